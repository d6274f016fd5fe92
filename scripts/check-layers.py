#!/usr/bin/env python3
"""Check that the hypervisor's layers depend on each other one way only.

Reads the symbol tables of the built objects (`nm`) and resolves every
undefined symbol of an object to the object that defines it.  Each object
belongs to the layer of its source folder; a call (or data reference) from
one layer into a later one in LAYERS is an error, and so are two folders
that call each other.  References inside one folder are free.

Usage: check-layers.py OBJDIR [OBJECT...]   (`make check-layers`)
Without OBJECTs, every object under OBJDIR; with them, just those (the
build's own list, so that a stale object of a removed source is ignored).
Prints each offending reference as "caller -> callee: symbol" and exits 1.
"""
import os
import subprocess
import sys

# The allowed order, lowest first: a layer may use only the layers before it.
# The same list, with what each folder holds, is in README.md ("Source layout").
LAYERS = [
    "hyp/lib",           # formatter, console output, spinlock, fatal reports
    "hyp/dt",            # the host device-tree index and its translation
    "hyp/platform",      # the host description, CPU release, per-CPU data
    "hyp/drivers/uart",  # the host UART drivers behind struct uart_driver
    "hyp/config",        # the configuration parser and validator
    "mm",                # page allocator, HYP tables, Stage-2, caches
    "hyp/vdev",          # MMIO bus, virtio transport and devices, vUART
    "vgic",              # host GIC driver, distributor model, list registers
    "timer",             # the counter, HYP timer, virtual timer state
    "hyp/arch",          # vectors, world switch, vCPU registers, VFP
    "hyp/trap",          # the exception-class table, CP15, MMIO, SMCCC
    "hyp/sched",         # exclusive and shared scheduling
    "hyp/guest",         # lifecycle, loader, guest DT, channels, PSCI
    "hyp/manage",        # management calls and page, run-time images
    "hyp/gdb",           # the gdb stub, breakpoints, stepping, guest memory
    "hyp/console",       # escape, input routing and the monitor
    "boot",              # entry, secure monitor, early MMU, main, SMP
]

NM = os.environ.get("NM", "arm-none-eabi-nm")


def layer_of(obj, objdir):
    rel = os.path.relpath(obj, objdir)
    folder = os.path.dirname(rel)
    best = None
    for name in LAYERS:
        if folder == name or folder.startswith(name + "/"):
            if best is None or len(name) > len(best):
                best = name
    return best


def symbols(obj):
    """(defined, undefined) global symbol names of one object."""
    out = subprocess.run([NM, obj], check=True, capture_output=True, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRCWVG" and parts[1].isupper():
            defined.add(parts[2])
    return defined, undefined


def check(objdir, objs=None):
    if not objs:
        objs = sorted(os.path.join(d, f) for d, _, fs in os.walk(objdir)
                      for f in fs if f.endswith(".o"))
    if not objs:
        return ["no objects under %s: build first (make)" % objdir], 0
    owner, needs, errors = {}, {}, []
    for obj in objs:
        layer = layer_of(obj, objdir)
        if layer is None:
            errors.append("%s: in no layer (add its folder to LAYERS)"
                          % os.path.relpath(obj, objdir))
            continue
        defined, undefined = symbols(obj)
        for sym in defined:
            owner[sym] = obj
        needs[obj] = undefined
    rank = {name: i for i, name in enumerate(LAYERS)}
    pairs = {}
    for obj, undefined in needs.items():
        for sym in sorted(undefined):
            callee = owner.get(sym)
            if callee is None:
                continue            # libfdt, libc, libgcc, the linker script
            a, b = layer_of(obj, objdir), layer_of(callee, objdir)
            if a != b:
                pairs.setdefault((a, b), []).append((obj, callee, sym))
    rel = lambda p: os.path.relpath(p, objdir)[:-2]
    for (a, b), refs in sorted(pairs.items()):
        if rank[a] < rank[b]:
            mutual = " (and %s calls %s)" % (b, a) if (b, a) in pairs else ""
            for obj, callee, sym in refs:
                errors.append("%s -> %s: %s: %s is a later layer than %s%s"
                              % (rel(obj), rel(callee), sym, b, a, mutual))
    return errors, len(objs)


def main():
    objdir = sys.argv[1] if len(sys.argv) > 1 else "build/obj"
    errors, count = check(objdir, sys.argv[2:])
    for e in errors:
        print("check-layers: " + e)
    if errors:
        print("check-layers: %d problem(s) with the layer order "
              "(scripts/check-layers.py, README 'Source layout')" % len(errors))
        return 1
    print("check-layers: %d objects, dependencies run one way" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
