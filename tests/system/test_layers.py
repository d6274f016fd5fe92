"""The layer check: scripts/check-layers.py must pass on the
real build and fail, naming both files, on objects that call into a later
layer - shown on small objects compiled here into a scratch tree laid out
like the build's."""
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


def run(objdir, *objs):
    return subprocess.run(["/usr/bin/python3", CHECK, objdir] + list(objs),
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
