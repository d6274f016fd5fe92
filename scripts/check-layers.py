#!/usr/bin/env python3
"""Check that the hypervisor's layers depend on each other one way only.

Reads the symbol tables of the built objects (`nm`) and resolves every
undefined symbol of an object to the object that defines it.  Each object
belongs to the layer of its source folder; a call (or data reference) from
one layer into a later one in LAYERS is an error, and so are two folders
that call each other.  References inside one folder are free.

It reads the sources' `#include "..."` lines too: a header of a later layer
included by a file of an earlier one is an error naming both files.  And
it builds the graph of the files' dependencies (a .c and its .h are one
node, joined to each header they include, as the compiler's -MMD records
them) and fails on a strongly connected component of more than MAX_CIRCLE
nodes: files that all reach each other can be read only together.

Usage: check-layers.py [--src DIR] OBJDIR [OBJECT...]   (`make check-layers`)
Without OBJECTs, every object under OBJDIR; with them, just those (the
build's own list, so that a stale object of a removed source is ignored).
--src names the source tree (default: the current folder).
Prints each offending reference as "caller -> callee: symbol" and exits 1.
"""
import os
import re
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

# the largest set of files allowed to depend on each other in a circle
MAX_CIRCLE = 3

# where `#include "x"` is looked up, after the including file's folder:
# the compiler's -I. and -Iinclude (Makefile CFLAGS)
INCLUDE_DIRS = [".", "include"]
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def layer_of(obj, objdir):
    return layer_of_path(os.path.relpath(obj, objdir))


def layer_of_path(rel):
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


def sources(src):
    """Every C source and header of the layers, relative to src."""
    found = []
    for name in LAYERS:
        top = os.path.join(src, name)
        for d, _, fs in os.walk(top):
            for f in fs:
                if f.endswith((".c", ".h", ".S")):
                    found.append(os.path.relpath(os.path.join(d, f), src))
    return sorted(set(found))


def includes(src, rel):
    """The files of the source tree that rel includes, relative to src."""
    out = []
    with open(os.path.join(src, rel), errors="replace") as f:
        for line in f:
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            for base in [os.path.dirname(rel)] + INCLUDE_DIRS:
                cand = os.path.normpath(os.path.join(base, m.group(1)))
                if os.path.isfile(os.path.join(src, cand)):
                    out.append(cand)
                    break
    return out


def check_includes(src):
    """Errors for includes against the order, and the include edges."""
    rank = {name: i for i, name in enumerate(LAYERS)}
    errors, edges = [], set()
    for rel in sources(src):
        a = layer_of_path(rel)
        for inc in includes(src, rel):
            b = layer_of_path(inc)
            if b is None:
                continue            # include/: the ABI and arch headers
            if rank[b] > rank[a]:
                errors.append("%s includes %s: %s is a later layer than %s"
                              % (rel, inc, b, a))
            edges.add((os.path.splitext(rel)[0], os.path.splitext(inc)[0]))
    return errors, edges


def circles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    graph = {}
    for a, b in edges:
        if a != b:
            graph.setdefault(a, set()).add(b)
            graph.setdefault(b, set())
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def check_circles(edges):
    return ["%d files depend on each other in a circle (at most %d): %s"
            % (len(c), MAX_CIRCLE, " ".join(c))
            for c in sorted(circles(edges)) if len(c) > MAX_CIRCLE]


def main():
    args = sys.argv[1:]
    src = "."
    if args[:1] == ["--src"]:
        src, args = args[1], args[2:]
    objdir = args[0] if args else "build/obj"
    errors, count = check(objdir, args[1:])
    inc_errors, inc_edges = check_includes(src)
    errors += inc_errors + check_circles(inc_edges)
    for e in errors:
        print("check-layers: " + e)
    if errors:
        print("check-layers: %d problem(s) with the layer order "
              "(scripts/check-layers.py, README 'Source layout')" % len(errors))
        return 1
    print("check-layers: %d objects and their sources, dependencies run one way" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
