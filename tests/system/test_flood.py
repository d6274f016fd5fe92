"""Console floods: two guests print as fast as they can
for 4 s (guests/test/flood.c).  Each guest's output is held to its budget
(its configuration's console-rate, here a burst of 8 KiB, then 2000 a
second): the polite one, which
waits on FR.TXFF, is made to wait and loses nothing; the rude one, which
does not, loses what is over and is told so at most once a second.
Meanwhile the monitor answers and rt ticks."""
import re
import time

from conftest import PROMPT, check
from helpers import Heartbeat, monitor_rtt

BURST, RATE = 8192, 2000       # tests/system/configs/flood.dts console-rate
FLOOD_S = 4


def test_console_flood_is_bounded(qemu, image):
    vm = qemu(kernel=image("flood"), smp=4)
    vm.expect(PROMPT, 30)       # typed input before the monitor runs is lost
    hb = Heartbeat(vm)
    deadline = time.monotonic() + 40
    while not all("guest 'flood-%s' halted" % g in vm.output for g in ("polite", "rude")):
        check(vm, time.monotonic() < deadline and vm.alive(), "the floods did not end")
        monitor_rtt(vm, "list", r"rt\s+running", 3.0, hb)
        time.sleep(0.3)
    out = vm.output
    lines = out.split("\r\n")
    for g in ("polite", "rude"):
        m = re.search(r"\[flood-%s\] flood: done, %s, (\d+) lines of (\d+) characters, transmit "
                      r"FIFO full (\d+) times" % (g, g), out)
        check(vm, m, "flood-%s did not report" % g)
        written = int(m.group(1)) * int(m.group(2))
        # (a line may follow a monitor prompt on the same row)
        shown = sum(len(t) + 1 for t in re.findall(r"\[flood-%s\] ([^\r\n]*)\r\n" % g, out))
        budget = BURST + RATE * (FLOOD_S + 2)
        check(vm, shown <= budget, "flood-%s: %d characters shown, budget %d" % (g, shown, budget))
        if g == "polite":
            check(vm, int(m.group(3)) > 0, "the polite guest never saw its FIFO full")
            # all but what it wrote without waiting once its time was up
            # (the rest of its last line); the report line comes on top
            check(vm, written + 200 >= shown >= written - 75,
                  "polite: wrote %d, %d shown: it lost some" % (written, shown))
        else:
            check(vm, written > budget, "rude wrote only %d characters" % written)
            notes = [l for l in lines if re.match(r"guest 'flood-rude': \d+ console characters "
                                                  r"dropped \(rate limit\)$", l)]
            check(vm, 1 <= len(notes) <= FLOOD_S + 3, "%d drop notices for rude" % len(notes))
    monitor_rtt(vm, "info", r"hypervisor memory: \d+ KiB free", 3.0, hb)
    hb.check(5.0, 1000000)
