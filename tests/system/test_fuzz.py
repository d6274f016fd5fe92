"""The fuzzing guest: two guests run random trapping
instruction sequences (guests/test/fuzz.c) for three seeds each while rt
keeps ticking; every seed completes with its aborts and undefined
instructions handed back, the same seed generates the same code in both
guests, the hypervisor stays clean and the monitor answers."""
import re
import time

from conftest import PROMPT, check
from helpers import RT_LATENESS_BOUND, Heartbeat, monitor_rtt

SEED_LINE = re.compile(r"\[(fuzz-[ab])\] fuzz: seed (\d+): (\d+) instructions, (\d+) traps, "
                       r"(\d+) faults back, checksum ([0-9a-f]{8})")


def test_fuzz_seeds(qemu, image):
    vm = qemu(kernel=image("fuzz"), smp=4)
    vm.expect(PROMPT, 30)       # typed input before the monitor runs is lost
    hb = Heartbeat(vm)
    deadline = time.monotonic() + 90
    while not all("guest 'fuzz-%s' halted" % g in vm.output for g in "ab"):
        check(vm, time.monotonic() < deadline and vm.alive(), "the fuzzers did not finish")
        monitor_rtt(vm, "list", r"rt\s+running", 3.0, hb)
        time.sleep(0.5)
    out = vm.output
    for g in ("fuzz-a", "fuzz-b"):
        check(vm, "[%s] RESULT: 3 passed, 0 failed" % g in out, "%s did not pass" % g)
    runs = {}
    for m in SEED_LINE.finditer(out):
        runs.setdefault(int(m.group(2)), []).append(m.groups())
    check(vm, sorted(runs) == [1, 2, 3, 4, 5], "seeds run: %s" % sorted(runs))
    for seed, rs in runs.items():
        for r in rs:
            check(vm, int(r[2]) == 20000 and int(r[3]) > 5000,
                  "seed %d: %s instructions, %s traps" % (seed, r[2], r[3]))
    # the same seed, the same code in either guest (what it loads from the
    # devices feeds later addresses and flags, so the counts may differ)
    a, b = runs[1]
    check(vm, (a[2], a[5]) == (b[2], b[5]), "seed 1 differs between the guests: %s vs %s"
          % (a, b))
    lines = out.replace("\r\n", "\n").split("\n")
    bad = [l for l in lines if re.search(r"crashed|fatal|panic|\*\*\*|^error:|did not leave", l)]
    check(vm, not bad, "unexpected hypervisor lines: %s" % bad[:10])
    monitor_rtt(vm, "info", r"hypervisor memory: \d+ KiB free", 3.0, hb)
    hb.check(5.0, RT_LATENESS_BOUND)
