"""An image holds the rooms its configuration uses (scripts/rooms.py,
docs/building.md "Rooms"): the minimal configuration (two bare-metal
guests, nothing shared) links none of the optional rooms, is smaller than
the demo's and runs both guests; a configuration that asks for a room the
build leaves out is refused at build time naming the node and property,
and, linked anyway, at boot."""
import os
import subprocess

from conftest import BUILD, ROOT

ROOMS = os.path.join(ROOT, "scripts", "rooms.py")
SIZE = "arm-none-eabi-size"
# the minimal image's .text today (page aligned; the health monitor is in
# the core; 164 KiB until a restart's start order and gdb's report of a
# halt that timed out passed a page by 184 bytes): a bound that catches a
# room creeping back in; the aim, 80 KiB, needs more of the core to be
# rooms (docs/building.md, "Rooms")
MINIMAL_TEXT_MAX = 168 * 1024


def text_of(elf):
    out = subprocess.run([SIZE, "-A", elf], capture_output=True, text=True, check=True).stdout
    return next(int(l.split()[1]) for l in out.splitlines() if l.startswith(".text "))


def linked(name):
    with open(os.path.join(BUILD, "config", name + ".objs")) as f:
        return [os.path.relpath(l.strip(), os.path.join(BUILD, "obj")) for l in f]


def rooms(*args):
    return subprocess.run(["/usr/bin/python3", ROOMS] + list(args), capture_output=True,
                          text=True, cwd=ROOT)


def test_the_minimal_image_links_no_optional_room(image):
    objs = linked("minimal")
    for room_obj in ("hyp/manage/manage.o", "hyp/guest/network.o", "hyp/guest/channel.o",
                     "hyp/guest/disk.o", "hyp/vdev/virtq.o", "hyp/vdev/virtio_console.o",
                     "hyp/sched/budget.o"):
        assert room_obj not in objs, objs
    for stub in ("hyp/manage/manage_none.o", "hyp/guest/network_none.o",
                 "hyp/sched/budget_none.o"):
        assert stub in objs, objs
    # the debugger stays in unless GDB=n
    assert "hyp/gdb/gdb_stub.o" in objs, objs
    minimal, demo = text_of(image("minimal", "elf")), text_of(image("demo", "elf"))
    assert minimal < demo, (minimal, demo)
    assert minimal <= MINIMAL_TEXT_MAX, minimal
    # and the demo has what it asks for, and no more
    objs = linked("demo")
    assert "hyp/manage/manage.o" in objs and "hyp/guest/channel.o" in objs, objs
    assert "hyp/guest/network.o" not in objs and "hyp/guest/network_none.o" in objs, objs


def test_the_minimal_configuration_runs_its_two_guests(qemu, image):
    vm = qemu(kernel=image("minimal"), smp=4)
    # each on its own CPU: either may finish first
    for _ in range(2):
        vm.expect(r"guest '(one|two)' halted \(PSCI SYSTEM_OFF\)", timeout=30)
    assert "[one] hello from guest 0 (1 vCPUs)" in vm.output, vm.output
    assert "[two] hello from guest 1 (1 vCPUs)" in vm.output, vm.output
    assert "error" not in vm.output, vm.output


def test_a_room_left_out_is_refused_at_build_time_by_property(tmp_path):
    dtb = os.path.join(BUILD, "config", "demo.dtb")
    # make passes its ROOMS and GDB to the tool that lists the link
    r = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "-n", "-W", "scripts/rooms.py",
                        "ROOMS=none", "GDB=n", "build/config/demo.objs"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "scripts/rooms.py link build/config/demo.dtb n \"none\"" in r.stdout, r.stdout
    r = rooms("link", dtb, "y", "none", "build/obj", "build/obj/boot/main.o")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "/partita/linux: property control needs the room 'control'" in r.stderr, r.stderr
    assert "/partita/talk: compatible = \"partita,channel\" needs the room 'channels'" \
        in r.stderr, r.stderr
    # a selection that names some rooms refuses only what it leaves out
    r = rooms("link", dtb, "y", "channels budgets", "build/obj", "build/obj/boot/main.o")
    assert r.returncode == 1 and "room 'control'" in r.stderr, r.stderr
    assert "room 'channels'" not in r.stderr, r.stderr
    r = rooms("link", dtb, "y", "channels control", "build/obj", "build/obj/boot/main.o")
    assert r.returncode == 0 and r.stdout.split() == ["build/obj/boot/main.o"], r.stdout
    r = rooms("link", dtb, "y", "nonsense", "build/obj")
    assert r.returncode == 1 and "unknown room(s) nonsense" in r.stderr, r.stderr


def link(tmp_path, objs, config_obj):
    """An image of these objects (under build/obj) and this configuration
    object, linked as the Makefile links: its raw binary."""
    elf = str(tmp_path / "image.elf")
    cmd = ["arm-none-eabi-gcc", "-mcpu=cortex-a15", "-marm", "-mfloat-abi=soft", "-nostartfiles",
           "-static", "-Wl,--no-warn-mismatch", "-Wl,-z,max-page-size=4096",
           "-Wl,--build-id=none", "-Wl,--no-warn-execstack", "-T", "build/linker.lds"] + \
        [os.path.join("build", "obj", o) for o in objs] + \
        [config_obj, "build/libfdt/lib/libfdt.a", "-lc", "-lgcc", "-o", elf]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    binary = str(tmp_path / "image.bin")
    subprocess.run(["arm-none-eabi-objcopy", "-O", "binary", elf, binary], check=True)
    return binary


VCON_ON_THE_UART = """/dts-v1/;
/ { partita { compatible = "partita,config";
    con { compatible = "partita,guest"; cpus = <1>; memory = <0x48000000 0x01000000>;
          kernel = /incbin/("build/guests/hello.bin"); autostart;
          virtio-console = <0x0a000400 33>; }; }; };
"""


def test_a_virtio_console_is_checked_without_networks(qemu, tmp_path):
    """The virtio console's window and interrupt are checked beside the
    guest's network devices, also in an image without networks (the check
    was the networks' once, and went with them)."""
    dts, dtb, obj = (str(tmp_path / n) for n in ("vcon.dts", "vcon.dtb", "vcon.o"))
    with open(dts, "w") as f:
        f.write(VCON_ON_THE_UART)
    subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-i", ROOT, "-o", dtb, dts],
                   check=True, cwd=ROOT)
    subprocess.run(["arm-none-eabi-gcc", "-mcpu=cortex-a15", "-marm", "-Iinclude", "-I.",
                    "-D__ASSEMBLER__", "-DCONFIG_DTB=\"%s\"" % dtb, "-c",
                    "hyp/config/config_blob.S", "-o", obj], check=True, cwd=ROOT)
    # the objects of an image with a virtio console and no networks
    objs = linked("linuxhvc")
    assert "hyp/vdev/virtio_console.o" in objs and "hyp/guest/network_none.o" in objs, objs
    vm = qemu(kernel=link(tmp_path, objs, obj), smp=4)
    vm.expect(r"no guest started", timeout=30)
    assert "guest 'con': property 'virtio-console': interrupt 33 is the guest's own " \
        "emulated UART" in vm.output, vm.output


def test_a_room_left_out_is_refused_at_boot(qemu, tmp_path):
    """The demo's configuration linked with the minimal image's objects, as
    no build would: the parser's stand-ins refuse it by property."""
    binary = link(tmp_path, linked("minimal"), "build/config/demo.o")
    vm = qemu(kernel=binary, smp=4)
    vm.expect(r"no guest started", timeout=30)
    assert "guest 'linux': property 'control': needs the control partition, which this " \
        "image leaves out" in vm.output, vm.output
    assert "node 'talk': property 'compatible': needs channels, which this image leaves out" \
        in vm.output, vm.output
