"""`make GDB=n` leaves the debugger out: the image links hyp/gdb/gdb_none.c
instead of the stub, its protocol and the next-instruction decoder, and the
default build links them and not gdb_none.  Shown on the link command make
would run (make -n, the linker script taken as new so that it relinks),
without touching the build's own image."""
import subprocess

from conftest import ROOT


def link_line(*args):
    r = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "-n",
                        "-W", "build/linker.lds"] + list(args) + ["build/partita.elf"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    # the link command, its continued lines joined
    out = r.stdout.replace("\\\n", " ")
    lines = [l for l in out.splitlines() if "-o build/partita.elf" in l]
    assert len(lines) == 1, r.stdout
    return lines[0]


def test_the_debugger_is_in_by_default():
    line = link_line()
    for obj in ("hyp/gdb/gdb_stub.o", "hyp/gdb/rsp.o", "hyp/arch/arm_next.o"):
        assert obj in line, line
    assert "gdb_none.o" not in line, line


def test_gdb_n_leaves_it_out():
    line = link_line("GDB=n")
    assert "hyp/gdb/gdb_none.o" in line, line
    for obj in ("gdb_stub.o", "rsp.o", "gdb_break.o", "gdb_guest.o", "arm_next.o"):
        assert obj not in line, line
