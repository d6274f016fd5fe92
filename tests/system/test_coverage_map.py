"""make coverage's mapping (scripts/coverage/coverage.py): a logged block of
partita.elf counts its function and basic block, a block QEMU did not run
counts for the unit tests only when its source lines ran under gcov, and a
function never executed is listed with its reason."""
import importlib.util
import os
import subprocess

from conftest import BUILD, ROOT

SCRIPT = os.path.join(ROOT, "scripts", "coverage", "coverage.py")
ELF = os.path.join(BUILD, "partita.elf")


def load():
    spec = importlib.util.spec_from_file_location("coverage_map", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_block_counts_for_the_unit_tests_only_when_its_lines_ran():
    ran = load().unit_ran_block
    ulines = {"hyp/lib/a.c": {10: True, 11: False, 12: True}}
    assert ran([("hyp/lib/a.c", 10), ("hyp/lib/a.c", 12)], ulines)
    # a line gcov counts that did not run: the block did not
    assert not ran([("hyp/lib/a.c", 10), ("hyp/lib/a.c", 11)], ulines)
    # a line of a file the unit tests do not link: unknown, so not run
    assert not ran([("hyp/lib/a.c", 10), ("hyp/lib/b.c", 3)], ulines)
    # lines gcov has no code for are left out, but one must have run
    assert ran([("hyp/lib/a.c", 10), ("hyp/lib/a.c", 40), None], ulines)
    assert not ran([("hyp/lib/a.c", 40), None], ulines)
    assert not ran([], ulines)


def symbols():
    out = subprocess.run(["arm-none-eabi-nm", ELF], capture_output=True, text=True,
                         check=True).stdout
    return {f[2]: int(f[0], 16) for f in (l.split() for l in out.splitlines()) if len(f) == 3}


def test_a_logged_block_counts_its_function(tmp_path):
    """One QEMU log with the first block of hyp_main: that function runs,
    the others are listed with a reason, and no unit test data changes the
    QEMU columns."""
    sym = symbols()
    logs = tmp_path / "qemu"
    logs.mkdir()
    (logs / "qemu-1.log").write_text(
        "IN: \n0x%08x:  e92d4ff0  push {r4, r5, r6, r7, r8, sb, sl, fp, lr}\n" % sym["hyp_main"])
    report = tmp_path / "report.txt"
    r = subprocess.run(["/usr/bin/python3", SCRIPT, ELF, str(logs), str(tmp_path / "none"),
                        str(report)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    row = next(l for l in r.stdout.splitlines() if l.startswith("boot "))
    assert row.split()[1] == "1", row          # hyp_main is boot/main.c's
    text = report.read_text()
    never = {l.split()[1] for l in text.splitlines()[1:] if l.startswith(("boot/", "hyp/"))}
    assert "hyp_main" not in never and "guest_start" in never, text
    assert "timer_udelay" in text and "not reachable under QEMU" in text
