"""The citation check: scripts/check-citations.py passes on the tree and, on
a scratch tree, names file and line of every comment that cites a document
outside the repository, in each kind of file it reads, while fuzzing seeds
and specification sections pass."""
import os
import subprocess

from conftest import ROOT

CHECK = os.path.join(ROOT, "scripts", "check-citations.py")
# The outside documents, put together here so that this file cites none.
TRACKER, PRODUCT, MAIL = "iss" + "ue 27", "the bri" + "ef section 4", "seed ma" + "il"


def run(root):
    return subprocess.run(["/usr/bin/python3", CHECK, str(root)], capture_output=True, text=True)


def test_the_tree_cites_nothing_outside():
    r = run(ROOT)
    assert r.returncode == 0, r.stdout


def test_each_citation_is_named_with_its_line(tmp_path):
    files = {
        "hyp/a.c": "/* the distributor (GICv2 4.3.2) */\n/* reset (%s) */\n" % TRACKER,
        "boot/b.S": "@ fine\n/* start modes (%s) */\n" % MAIL,
        "tests/c.py": "seed = 1  # a fuzzing seed\n# as %s says\n" % PRODUCT,
        "guests/d.dts": "/* virtio 1.x 5.1.6.3 */\n/* (%s it" "em 5) */\n" % TRACKER,
        "Makefile": "# fine\n# (%s)\n" % TRACKER,
    }
    for rel, text in files.items():
        os.makedirs(os.path.dirname(tmp_path / rel), exist_ok=True)
        (tmp_path / rel).write_text(text)
    r = run(tmp_path)
    assert r.returncode == 1
    for rel in files:
        assert "%s:2: " % rel in r.stdout, r.stdout
        assert "%s:1: " % rel not in r.stdout, r.stdout


def test_fuzz_corpora_and_the_build_are_not_read(tmp_path):
    for rel in ("build/x.c", "tests/unit/corpus/net/y.c"):
        os.makedirs(os.path.dirname(tmp_path / rel), exist_ok=True)
        (tmp_path / rel).write_text("/* %s */\n" % TRACKER)
    assert run(tmp_path).returncode == 0
