#!/usr/bin/env python3
"""What each optional room of the hypervisor costs: the text and read-only
data of the objects that are there only for it (`make room-sizes`).

The rooms are the parts a deployment may not need: the debugger, the
control partition, networks, the virtio transport and console, channels,
cache colouring and direct interrupts.  What is left is the core every
image carries.  Sizes are of the objects (section .text* and .rodata*),
before the linker's page alignment.

Usage: room-sizes.py OBJDIR [OBJECT...]   (`make room-sizes`)
Without OBJECTs, every object under OBJDIR; with them, just those (the
build's own list, so that a stale object of a removed source is ignored).
"""
import os
import subprocess
import sys

SIZE = os.environ.get("SIZE", "arm-none-eabi-size")

# the objects only a room uses, by source path without extension
ROOMS = [
    ("gdb", ["hyp/gdb/rsp", "hyp/gdb/gdb_stub", "hyp/gdb/gdb_break", "hyp/gdb/gdb_step",
             "hyp/gdb/gdb_regs", "hyp/gdb/gdb_vfp", "hyp/gdb/gdb_port", "hyp/gdb/gdb_guest",
             "hyp/gdb/debug_gdb", "hyp/arch/arm_next"]),
    ("control partition", ["hyp/manage/manage", "hyp/manage/manage_ops",
                           "hyp/manage/manage_page", "hyp/manage/image",
                           "hyp/guest/lifecycle", "hyp/config/config_control"]),
    ("networks", ["hyp/vdev/virtio_net", "hyp/guest/network", "hyp/config/config_network"]),
    ("virtio transport", ["hyp/vdev/virtq", "hyp/vdev/virtio_mmio"]),
    ("virtio console", ["hyp/vdev/virtio_console"]),
    ("channels", ["hyp/guest/channel", "hyp/config/config_channel"]),
    ("cache colouring", ["hyp/config/colour", "hyp/config/config_colour", "mm/hyp_colour",
                         "mm/pt_copy", "mm/hyp_reloc"]),
    ("direct interrupts", ["vgic/vgic_pt"]),
]


def size_of(obj):
    out = subprocess.run([SIZE, "-A", obj], capture_output=True, text=True,
                         check=True).stdout
    total = 0
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[1].isdigit() and f[0].startswith((".text", ".rodata")):
            total += int(f[1])
    return total


def main():
    objdir = sys.argv[1] if len(sys.argv) > 1 else "build/obj"
    objs = sys.argv[2:] or [os.path.join(d, f) for d, _, fs in os.walk(objdir)
                            for f in fs if f.endswith(".o")]
    sizes = {os.path.relpath(o, objdir)[:-2]: size_of(o) for o in objs}
    if not sizes:
        print("room-sizes: no objects under %s: build first (make)" % objdir)
        return 1
    roomed = 0
    for name, objs in ROOMS:
        n = sum(sizes.get(o, 0) for o in objs)
        roomed += n
        print("%-20s %7d bytes" % (name, n))
    total = sum(sizes.values())
    print("%-20s %7d bytes" % ("core", total - roomed))
    print("%-20s %7d bytes (objects only: libfdt, libc and libgcc come on top)"
          % ("all", total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
