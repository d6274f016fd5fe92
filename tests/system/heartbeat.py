"""Watching a system under attack: the heartbeat of the 'rt' guest
(guests/test/rt.c, one line a second with its 1 kHz tick count and the
worst lateness of its timer interrupt) and the monitor's response time."""
import re
import time

from conftest import check

TICK = re.compile(r"\[(\w+)\] tick (\d+): jitter avg (\d+) us, worst (\d+) us\r\n")


class Heartbeat:
    """The tick lines of one guest, with the wall time each was first seen.
    Call poll() often (every few tenths of a second)."""

    def __init__(self, vm, guest="rt"):
        self.vm, self.guest = vm, guest
        self.pos = vm.mark()
        self.beats = []             # (seen at, tick, worst us)
        self.started = time.monotonic()

    def poll(self):
        text = self.vm.since(self.pos)
        last = 0
        for m in TICK.finditer(text):
            if m.group(1) == self.guest:
                self.beats.append((time.monotonic(), int(m.group(2)), int(m.group(4))))
            last = m.end()
        self.pos += last

    def check(self, max_gap, max_worst_us, min_beats=2):
        """Ticks counted on without a gap, lines at most max_gap s apart (and
        the last one no older than that), timer lateness within bound.  An
        attack shorter than min_beats seconds (the hypervisor got faster)
        waits for the beats still to come: the guest must be ticking on."""
        self.poll()
        end = time.monotonic() + max_gap * min_beats
        while len(self.beats) < min_beats and time.monotonic() < end:
            time.sleep(0.2)
            self.poll()
        vm, b = self.vm, self.beats
        check(vm, len(b) >= min_beats, "%d heartbeats of '%s', want %d"
              % (len(b), self.guest, min_beats))
        for (t0, n0, _), (t1, n1, _) in zip(b, b[1:]):
            check(vm, n1 == n0 + 1000, "'%s' ticked from %d to %d between two lines"
                  % (self.guest, n0, n1))
            check(vm, t1 - t0 <= max_gap, "'%s' stalled: %.1f s between tick %d and %d"
                  % (self.guest, t1 - t0, n0, n1))
        age = time.monotonic() - max(b[-1][0], self.started)
        check(vm, age <= max_gap, "'%s' silent for the last %.1f s" % (self.guest, age))
        worst = max(w for _, _, w in b)
        check(vm, worst <= max_worst_us, "'%s' timer interrupt up to %d us late (bound %d us)"
              % (self.guest, worst, max_worst_us))
        return worst


def monitor_rtt(vm, cmd, pattern, bound, hb=None):
    """Type a monitor command and time until `pattern` answers it; fail
    beyond `bound` seconds.  Polls the heartbeat meanwhile."""
    start = vm.mark()
    t0 = time.monotonic()
    vm.sendline(cmd)
    rx = re.compile(pattern)
    while not rx.search(vm.since(start)):
        if hb:
            hb.poll()
        elapsed = time.monotonic() - t0
        check(vm, elapsed <= bound and vm.alive(),
              "the monitor did not answer %r within %.1f s" % (cmd, bound))
        time.sleep(0.05)
    return time.monotonic() - t0
