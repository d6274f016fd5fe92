"""The size check: scripts/check-size.py passes on the
tree and fails, naming file, line and function, on a scratch tree with a
file over 500 lines or a function over 80."""
import os
import subprocess

from conftest import ROOT

CHECK = os.path.join(ROOT, "scripts", "check-size.py")


def run(root):
    return subprocess.run(["/usr/bin/python3", CHECK, root], capture_output=True, text=True)


def function(name, body_lines):
    return "static int %s(int x)\n{\n%s    return x;\n}\n" % (name, "    x++;\n" * body_lines)


def test_the_tree_is_within_bounds():
    r = run(ROOT)
    assert r.returncode == 0, r.stdout


def test_a_long_function_and_a_long_file_are_named(tmp_path):
    os.makedirs(tmp_path / "hyp" / "lib")
    # 76 body lines + name, braces and return: 80 lines, the most allowed
    (tmp_path / "hyp" / "lib" / "ok.c").write_text(function("fits", 76))
    assert run(str(tmp_path)).returncode == 0
    (tmp_path / "hyp" / "lib" / "long.c").write_text("\n" + function("too_long", 77))
    r = run(str(tmp_path))
    assert r.returncode == 1
    assert "hyp/lib/long.c:2: too_long is 81 lines (at most 80 a function)" in r.stdout, r.stdout
    (tmp_path / "hyp" / "lib" / "long.c").write_text("int x;\n" * 501)
    r = run(str(tmp_path))
    assert r.returncode == 1 and "hyp/lib/long.c: 501 lines" in r.stdout, r.stdout
