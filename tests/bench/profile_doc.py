#!/usr/bin/env python3
"""Tables of docs/bench-profile.md: one path of
docs/benchmarks.md each, before and after, from two sets of `profile.py` outputs.

    python3 tests/bench/profile.py --top 40 > DIR/bench.txt
    python3 tests/bench/profile.py --image doorbell --top 40 > DIR/doorbell.txt
    python3 tests/bench/profile.py --image doorbellshared --top 40 > DIR/shared.txt
    python3 tests/bench/profile.py --image net --until "BENCH net_frame_roundtrip" \\
        --top 25 > DIR/net.txt
    python3 tests/bench/profile.py --boot --top 25 > DIR/boot.txt

once on the old tree (BUILD=old/build, the same profile.py) and once on
the new, then

    python3 tests/bench/profile_doc.py BEFORE_DIR AFTER_DIR

prints the tables (Markdown).  A path missing from one side shows "-".
"""
import os
import re
import sys

# (title, file, cpu, guest function, what the metric adds to the exits)
PATHS = [
    ("HVC: unknown ID, Partita version, PSCI_VERSION (the three mixed; "
     "metric = this + the guest's HVC)", "bench", 0, "loop_hvc"),
    ("MMIO reads: GICD_TYPER and the UART flag register (the two mixed)",
     "bench", 0, "loop_ldr"),
    ("MMIO write: GICD_ISENABLER", "bench", 0, "loop_str"),
    ("virtual IPI, sender: the GICD_SGIR store", "bench", 0, "ipi_round"),
    ("virtual IPI, receiver (exits of the target: the kick, its WFI)",
     "bench", 1, "guest_secondary"),
    ("virtual timer (busy and in WFI mixed)", "bench", 0, "bench_vtimer"),
    ("Stage-2 fault back to the guest's handler (its console line included)",
     "bench", 0, "loop_ldr2"),
    ("channel doorbell, sender (hypercall and doorbell page mixed)",
     "doorbell", 0, "doorbell_round"),
    ("channel doorbell, receiver (the peer's interrupt, its WFI)",
     "doorbell", 1, "bench_irq"),
    ("the vCPU switch: doorbell to a peer sleeping on the same CPU",
     "shared", 0, "doorbell_round"),
    ("network frame: the sender's transmit notify (copy, switch, the "
     "receiver's interrupt)", "net", 0, "tx_queue"),
]
HEAD = re.compile(r"^cpu(\d+), exits from guest (\S+): (\d+), ([\d.]+) hypervisor")
ROW = re.compile(r"^\s+([\d.]+)\s+(\S.*)$")


def parse_exits(path):
    """{(cpu, guest function): (per exit, {hyp function: per exit})}"""
    out, cur = {}, None
    if not os.path.exists(path):
        return out
    for line in open(path):
        m = HEAD.match(line)
        if m:
            cur = {}
            out[(int(m.group(1)), m.group(2))] = (float(m.group(4)), cur)
        elif cur is not None and ROW.match(line):
            v, f = ROW.match(line).groups()
            cur[f] = float(v)
        else:
            cur = None
    return out


def parse_boot(path):
    """(total, {function: instructions}) of profile.py --boot's first table"""
    total, rows = None, {}
    if not os.path.exists(path):
        return total, rows
    for line in open(path):
        m = re.match(r"^reset to the guest's first instruction: (\d+)", line)
        if m:
            total = int(m.group(1))
            continue
        if line.startswith("by calling function"):
            break
        m = re.match(r"^\s+(\d+)\s+[\d.]+%\s+(\S.*)$", line)
        if m:
            rows[m.group(2)] = int(m.group(1))
    return total, rows


def cell(v, fmt):
    return "-" if v is None else fmt % v


def table(before, after, fmt):
    names = sorted(set(before) | set(after),
                   key=lambda f: -max(before.get(f, 0), after.get(f, 0)))
    lines = ["| function | before | after |", "| --- | ---: | ---: |"]
    for f in names:
        lines.append("| `%s` | %s | %s |" % (f, cell(before.get(f), fmt),
                                            cell(after.get(f), fmt)))
    return lines


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bdir, adir = sys.argv[1:]
    cache = {}

    def exits(d, name):
        key = (d, name)
        if key not in cache:
            cache[key] = parse_exits(os.path.join(d, name + ".txt"))
        return cache[key]

    out = []
    for title, image, cpu, func in PATHS:
        b = exits(bdir, image).get((cpu, func), (None, {}))
        a = exits(adir, image).get((cpu, func), (None, {}))
        out += ["### " + title, "",
                "`%s.bin`, guest function `%s` (CPU %d): %s -> %s hypervisor instructions "
                "per exit" % (image.replace("shared", "doorbellshared"), func, cpu,
                              cell(b[0], "%.1f"), cell(a[0], "%.1f")), ""]
        out += table(b[1], a[1], "%.1f") + [""]
    bt, brows = parse_boot(os.path.join(bdir, "boot.txt"))
    at, arows = parse_boot(os.path.join(adir, "boot.txt"))
    out += ["### boot: reset to the guest's first instruction (1 MiB guest)", "",
            "`boot.bin` (`profile.py --boot`): %s -> %s instructions, by function"
            % (cell(bt, "%d"), cell(at, "%d")), ""]
    out += table(brows, arows, "%d") + [""]
    print("\n".join(out).rstrip("\n"))


if __name__ == "__main__":
    main()
