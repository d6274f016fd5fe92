"""The layer check: scripts/check-layers.py must pass on the
real build and fail, naming both files, on objects that call into a later
layer and on sources that include a header of a later layer, and on files
that depend on each other in a circle of more than three - shown on small
objects compiled here, and sources written here, into a scratch tree laid
out like the build's and the repository's."""
import os
import subprocess

from conftest import ROOT

CHECK = os.path.join(ROOT, "scripts", "check-layers.py")
CC = "arm-none-eabi-gcc"


def compile_to(tree, path, code):
    """Compile C `code` to tree/path (an object in a layer's folder)."""
    obj = os.path.join(tree, path)
    os.makedirs(os.path.dirname(obj), exist_ok=True)
    src = obj[:-2] + ".c"
    with open(src, "w") as f:
        f.write(code)
    subprocess.run([CC, "-c", "-O2", src, "-o", obj], check=True)
    os.unlink(src)


def write_src(tree, path, text):
    """A source file of the scratch tree (the layers' folders under it)."""
    src = os.path.join(tree, path)
    os.makedirs(os.path.dirname(src), exist_ok=True)
    with open(src, "w") as f:
        f.write(text)


def run(objdir, *objs):
    # the scratch tree is both the objects' folder and the sources'
    return subprocess.run(["/usr/bin/python3", CHECK, "--src", objdir, objdir] + list(objs),
                          capture_output=True, text=True)


def test_the_build_runs_one_way():
    # through make: the build's own list of objects, none left from
    # sources that no longer exist
    r = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "check-layers"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "dependencies run one way" in r.stdout


def test_a_call_into_a_later_layer_names_both_files(tmp_path):
    tree = str(tmp_path)
    compile_to(tree, "hyp/sched/sched.o", "void vcpu_run(void) {}\n")
    compile_to(tree, "vgic/vgic_hw.o",
               "void vcpu_run(void); void kick(void) { vcpu_run(); }\n")
    r = run(tree)
    assert r.returncode == 1, r.stdout
    assert "vgic/vgic_hw -> hyp/sched/sched: vcpu_run: hyp/sched is a later layer " \
           "than vgic" in r.stdout, r.stdout


def test_two_folders_calling_each_other_are_named(tmp_path):
    tree = str(tmp_path)
    compile_to(tree, "hyp/trap/abort.o",
               "void guest_crash(void); void trap(void) { guest_crash(); }\n")
    compile_to(tree, "hyp/guest/guest.o",
               "void trap(void); void guest_crash(void) {} void run(void) { trap(); }\n")
    r = run(tree)
    assert r.returncode == 1, r.stdout
    assert "hyp/trap/abort -> hyp/guest/guest: guest_crash" in r.stdout, r.stdout
    assert "(and hyp/guest calls hyp/trap)" in r.stdout, r.stdout


def test_downward_calls_pass_and_a_folder_outside_the_layers_fails(tmp_path):
    tree = str(tmp_path)
    compile_to(tree, "hyp/lib/format.o", "int fmt(void) { return 1; }\n")
    compile_to(tree, "hyp/console/monitor.o",
               "int fmt(void); int cmd(void) { return fmt(); }\n")
    assert run(tree).returncode == 0
    compile_to(tree, "hyp/misc/thing.o", "int thing(void) { return 0; }\n")
    r = run(tree)
    assert r.returncode == 1 and "hyp/misc/thing.o: in no layer" in r.stdout, r.stdout


def test_an_include_of_a_later_layer_names_both_files(tmp_path):
    tree = str(tmp_path)
    compile_to(tree, "hyp/lib/format.o", "int fmt(void) { return 1; }\n")
    write_src(tree, "hyp/sched/sched.h", "struct pcpu;\n")
    write_src(tree, "vgic/vgic.h", "#include <stdint.h>\n")
    # an include of an earlier layer's header, and of one in include/, pass
    write_src(tree, "hyp/trap/abort.c", '#include "vgic/vgic.h"\n#include <arch/sysregs.h>\n')
    r = run(tree)
    assert r.returncode == 0, r.stdout
    # the planted one: the distributor model including the scheduler's header
    write_src(tree, "vgic/vgic_hw.c", '#include "vgic.h"\n#include "hyp/sched/sched.h"\n')
    r = run(tree)
    assert r.returncode == 1, r.stdout
    assert "vgic/vgic_hw.c includes hyp/sched/sched.h: hyp/sched is a later layer " \
           "than vgic" in r.stdout, r.stdout


def test_a_circle_of_more_than_three_files_fails(tmp_path):
    tree = str(tmp_path)
    compile_to(tree, "hyp/lib/format.o", "int fmt(void) { return 1; }\n")
    # a.c -> b.h, b.c -> c.h, c.c -> a.h: three files reach each other
    for me, other in (("a", "b"), ("b", "c"), ("c", "a")):
        write_src(tree, "hyp/guest/%s.h" % me, "struct %s;\n" % me)
        write_src(tree, "hyp/guest/%s.c" % me, '#include "%s.h"\n#include "%s.h"\n' % (me, other))
    r = run(tree)
    assert r.returncode == 0, r.stdout
    # one more in the ring: c.c -> d.h, d.c -> a.h
    write_src(tree, "hyp/guest/c.c", '#include "c.h"\n#include "d.h"\n')
    write_src(tree, "hyp/guest/d.h", "struct d;\n")
    write_src(tree, "hyp/guest/d.c", '#include "d.h"\n#include "a.h"\n')
    r = run(tree)
    assert r.returncode == 1, r.stdout
    assert "4 files depend on each other in a circle (at most 3): hyp/guest/a hyp/guest/b " \
           "hyp/guest/c hyp/guest/d" in r.stdout, r.stdout
