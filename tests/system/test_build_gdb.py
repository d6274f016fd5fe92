"""`make GDB=n` leaves the debugger out: the image links hyp/gdb/gdb_none.c
instead of the stub, its protocol and the next-instruction decoder, and the
default build links them and not gdb_none.  Shown on the list of objects
make would link (scripts/rooms.py, given make's GDB: make -n shows the
call, the tool is then run as make would), without touching the build's
own image."""
import subprocess

from conftest import ROOT


def link_objects(*args):
    r = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "-n",
                        "-W", "scripts/rooms.py"] + list(args) + ["build/config/demo.objs"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    # the tool's command, its continued lines joined, its output not kept
    out = r.stdout.replace("\\\n", " ")
    lines = [l for l in out.splitlines() if "scripts/rooms.py link" in l]
    assert len(lines) == 1, r.stdout
    cmd = lines[0].split(">")[0]
    r = subprocess.run(cmd, shell=True, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_the_debugger_is_in_by_default():
    objs = link_objects()
    for obj in ("hyp/gdb/gdb_stub.o", "hyp/gdb/rsp.o", "hyp/arch/arm_next.o"):
        assert obj in objs, objs
    assert "gdb_none.o" not in objs, objs


def test_gdb_n_leaves_it_out():
    objs = link_objects("GDB=n")
    assert "hyp/gdb/gdb_none.o" in objs, objs
    for obj in ("gdb_stub.o", "rsp.o", "gdb_break.o", "gdb_guest.o", "arm_next.o"):
        assert obj not in objs, objs
