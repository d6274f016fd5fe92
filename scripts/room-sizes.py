#!/usr/bin/env python3
"""What each optional room of the hypervisor costs: the text and read-only
data of the objects that are there only for it (`make room-sizes`).

The rooms are the parts a deployment may not need: the debugger, the
control partition, networks, the virtio transport and console, channels,
cache colouring and direct interrupts.  What is left is the core every
image carries.  Sizes are of the objects (section .text* and .rodata*),
before the linker's page alignment.

Usage: room-sizes.py [--images "ELF..."] OBJDIR [OBJECT...]   (`make room-sizes`)
With --images, the .text of those linked images too.
Without OBJECTs, every object under OBJDIR; with them, just those (the
build's own list, so that a stale object of a removed source is ignored).
"""
import os
import subprocess
import sys

SIZE = os.environ.get("SIZE", "arm-none-eabi-size")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rooms import ROOMS  # noqa: E402  the one table of rooms

# in every image, not yet rooms of their own: what of the core they are
ALWAYS = [
    ("cache colouring", ["hyp/config/colour", "hyp/config/config_colour", "mm/hyp_colour",
                         "mm/pt_copy", "mm/hyp_reloc"]),
    ("direct interrupts", ["vgic/vgic_pt"]),
]


def text_of(elf):
    """The .text section of a linked image (page aligned, as it is mapped)."""
    out = subprocess.run([SIZE, "-A", elf], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0] == ".text":
            return int(f[1])
    return 0


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
    args = sys.argv[1:]
    images = []
    if args[:1] == ["--images"]:
        images, args = args[1].split(), args[2:]
    objdir = args[0] if args else "build/obj"
    objs = args[1:] or [os.path.join(d, f) for d, _, fs in os.walk(objdir)
                        for f in fs if f.endswith(".o")]
    sizes = {os.path.relpath(o, objdir)[:-2]: size_of(o) for o in objs}
    if not sizes:
        print("room-sizes: no objects under %s: build first (make)" % objdir)
        return 1
    stubs = set()
    roomed = 0
    print("objects' .text and .rodata, by room (in / its stand-in when left out):")
    for name, ins, outs in ROOMS:
        n = sum(sizes.get(o, 0) for o in ins)
        roomed += n
        stubs.update(outs)
        print("%-20s %7d bytes / %5d" % (name, n, sum(sizes.get(o, 0) for o in outs)))
    for name, ins in ALWAYS:
        print("%-20s %7d bytes (in the core)" % (name, sum(sizes.get(o, 0) for o in ins)))
    total = sum(v for k, v in sizes.items() if k not in stubs)
    print("%-20s %7d bytes" % ("core", total - roomed))
    print("%-20s %7d bytes (objects only: libfdt, libc and libgcc come on top)"
          % ("all", total))
    for elf in images:
        print("%-20s %7d bytes of .text (%.1f KiB)" % (os.path.basename(elf), text_of(elf),
                                                       text_of(elf) / 1024.0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
