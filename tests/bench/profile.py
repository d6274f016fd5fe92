#!/usr/bin/env python3
"""Where the hypervisor's instructions go on each benchmarked path.

Runs the benchmark image (built by `make bench`) under the same icount
settings with QEMU's TB trace (-d in_asm,exec,nochain), stops once the
guest has printed --until, and attributes every run of hypervisor code
(PC >= 0xf0000000) to the guest function that was running on that CPU just
before (the trap's cause: loop_hvc, loop_ldr, ipi_round, anchor, ...).
Prints, per path, the hypervisor instructions per exit, by function:

    python3 tests/bench/profile.py                   # every path
    python3 tests/bench/profile.py loop_hvc loop_ldr # just these
    python3 tests/bench/profile.py --boot            # boot.bin up to the guest
    python3 tests/bench/profile.py --image doorbellshared  # the vCPU switch

--image picks another benchmark image (doorbell: the channel doorbell,
doorbellshared: the vCPU switch on a shared CPU, -smp 1); its guests are
the same bench.elf, so paths are named by the same guest functions.

loop_hvc mixes the three HVC metrics, loop_ldr the GICD_TYPER and UART
reads; guest_secondary is the IPI target's side.  The trace is large
(~400 MB in build/bench/); it is deleted afterwards unless --keep.
"""
import argparse
import bisect
import collections
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", "build")
QEMU = os.environ.get("QEMU", "qemu-system-arm")
CROSS = os.environ.get("CROSS", "arm-none-eabi-")
HYP_BASE = 0xf0000000
SEQ_EXIT = [100]    # which exit --seq shows


def symbols(elf):
    syms = []
    out = subprocess.run([CROSS + "nm", "-n", elf], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in "tTwW":
            syms.append((int(f[0], 16), f[2]))
    return [a for a, _ in syms], [s for _, s in syms]


def run_traced(image, smp, until, trace):
    argv = ["timeout", "-k", "5", "600", QEMU, "-M", "virt,virtualization=on", "-cpu",
            "cortex-a15", "-smp", str(smp), "-m", "1G", "-nographic", "-monitor", "none",
            "-icount", "shift=0,sleep=off", "-kernel", image,
            "-d", "in_asm,exec,nochain", "-D", trace]
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)
    out = b""
    rx = re.compile(until.encode())
    end = time.monotonic() + 600
    while time.monotonic() < end:
        data = p.stdout.read1(65536)
        if not data:
            break
        out += data
        if rx.search(out):
            break
    p.terminate()
    p.wait()
    if not rx.search(out):
        sys.exit("profile: QEMU never printed /%s/:\n%s" % (until, out.decode(errors="replace")))


OWNER_DETAIL = [None]     # --owner


def attribute(trace, hyp, guest, stop_at_guest_entry=False):
    """{(cpu, guest function): [segments, Counter(hyp function -> insns)]}"""
    ha, hn = hyp
    ga, gn = guest

    def sym(pc):
        a, n = (ha, hn) if pc >= HYP_BASE else (ga, gn)
        i = bisect.bisect_right(a, pc) - 1
        return n[i] if i >= 0 else "?"

    tbsize, cur, n = {}, None, 0
    tbs = collections.Counter()     # executions per TB start (for --tbs)
    seqs = {}                       # (cpu, guest fn) -> TB sequence of its 100th exit
    cur_seq = {}
    seg, last = {}, {}
    paths = collections.defaultdict(lambda: [0, collections.Counter()])
    total = collections.Counter()
    entries = 0
    owner, by_owner = "(before the MMU)", collections.Counter()
    lib = re.compile(r"^(fdt_|_fdt|mem|str|__)")
    with open(trace, errors="replace") as f:
        for line in f:
            if line.startswith("IN:"):
                cur, n = None, 0
                continue
            m = re.match(r"0x([0-9a-f]+):\s", line)
            if m:
                pc = int(m.group(1), 16)
                if cur is None:
                    cur = pc
                n += 1
                tbsize[cur] = n
                continue
            m = re.match(r"Trace (\d+): \S+ \[[0-9a-f]+/([0-9a-f]+)/", line)
            if not m:
                continue
            cpu, pc = int(m.group(1)), int(m.group(2), 16)
            k = tbsize.get(pc, 1)
            if stop_at_guest_entry:
                # QEMU's boot stub runs at 0x40000000, then Partita; the
                # guest's first instruction is the next TB there
                if pc == 0x40000000:
                    entries += 1
                    if entries == 2:
                        break
                fn = "(before the MMU)" if pc < HYP_BASE else sym(pc)
                tbs[pc] += 1
                total[fn] += k
                if not lib.match(fn):
                    owner = fn
                by_owner[owner] += k
                if OWNER_DETAIL[0] == owner:
                    by_owner[owner + " > " + fn] += k
                continue
            if pc >= HYP_BASE:
                tbs[pc] += 1
                seg.setdefault(cpu, collections.Counter())[sym(pc)] += k
                cur_seq.setdefault(cpu, []).append((pc, k))
            else:
                s = seg.pop(cpu, None)
                q = cur_seq.pop(cpu, None)
                if s and cpu in last:
                    p = paths[(cpu, sym(last[cpu]))]
                    p[0] += 1
                    p[1].update(s)
                    if p[0] == SEQ_EXIT[0]:
                        seqs[(cpu, sym(last[cpu]))] = q
                last[cpu] = pc
    return paths, total, by_owner, (tbs, tbsize, sym, seqs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", help="guest functions to show (default: all)")
    ap.add_argument("--boot", action="store_true",
                    help="profile boot.bin from reset to the guest's first instruction")
    ap.add_argument("--until", default=None,
                    help="stop once the console shows this regex (default: bench.bin's "
                    "last timed line, another image's 'BENCH done')")
    ap.add_argument("--image", default="bench",
                    help="the benchmark image under build/bench/images (default bench)")
    ap.add_argument("--smp", type=int, default=None,
                    help="CPUs (default: 1 for boot and doorbellshared, else 2)")
    ap.add_argument("--top", type=int, default=14)
    ap.add_argument("--tbs", metavar="FUNC",
                    help="also list FUNC's translation blocks: start, size, executions")
    ap.add_argument("--seq", type=int, metavar="N",
                    help="also print the TB sequence of exit N of each path")
    ap.add_argument("--owner", metavar="FUNC",
                    help="with --boot: split FUNC's count by the routines it calls")
    ap.add_argument("--keep", action="store_true", help="keep the trace file")
    args = ap.parse_args()
    if args.seq:
        SEQ_EXIT[0] = args.seq
    OWNER_DETAIL[0] = args.owner
    os.chdir(ROOT)
    name = "boot" if args.boot else args.image
    image_elf = os.path.join(BUILD, "bench/images/%s.elf" % name)
    trace = os.path.join(BUILD, "bench/%s.trace" % name)
    smp = args.smp or (1 if name in ("boot", "doorbellshared", "doorbellsharedpmu") else 2)
    until = args.until or (r"BENCH ipi_latency_wfi" if name == "bench" else r"BENCH done")
    run_traced(os.path.join(BUILD, "bench/images/%s.bin" % name), smp, until, trace)
    try:
        paths, total, by_owner, tbinfo = attribute(trace, symbols(image_elf),
                                 symbols(os.path.join(BUILD, "bench/guest/bench.elf")),
                                 stop_at_guest_entry=args.boot)
    finally:
        if not args.keep:
            os.unlink(trace)
    if args.tbs:
        tbs, tbsize, sym, seqs = tbinfo
        for pc in sorted(tbs):
            if sym(pc) == args.tbs:
                print("  tb 0x%08x  %3d insns  x%d" % (pc, tbsize.get(pc, 1), tbs[pc]))
    if args.boot:
        all_ = sum(total.values())
        print("reset to the guest's first instruction: %d instructions" % all_)
        for fn, v in total.most_common(args.top):
            print("  %9d %5.1f%%  %s" % (v, 100.0 * v / all_, fn))
        print("by calling function (libfdt and string routines counted in their caller):")
        for fn, v in by_owner.most_common(args.top):
            print("  %9d %5.1f%%  %s" % (v, 100.0 * v / all_, fn))
        return 0
    for (cpu, gfn), (count, fns) in sorted(paths.items(), key=lambda kv: -sum(kv[1][1].values())):
        if args.paths and gfn not in args.paths:
            continue
        print("cpu%d, exits from guest %s: %d, %.1f hypervisor instructions each"
              % (cpu, gfn, count, sum(fns.values()) / count))
        for fn, v in fns.most_common(args.top):
            print("  %8.1f  %s" % (v / count, fn))
        if args.seq and (cpu, gfn) in tbinfo[3]:
            for pc, k in tbinfo[3][(cpu, gfn)]:
                print("      0x%08x %3d  %s" % (pc, k, tbinfo[2](pc)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
