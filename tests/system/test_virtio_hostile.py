"""A hostile virtio driver beside honest partitions:
tests/system/configs/vhostile.dts.

'vhostile' (guests/test/vhostile.c) names the most work its queues can -
the console flood of 256 avail entries of one 256-descriptor chain of
whole-RAM buffers, the same on its network device - and random and
invalid queue sizes, descriptors, lengths, indices and register writes,
moves its rings while they are live, and resets its devices from its
other vCPU in the middle of its floods - on the same CPU (vhostile.dts)
or on another (vhostile-split.dts), where a reset lands while the
flooding CPU is inside the device's notify handling; either way its
devices carry more between two samples of one life (they work again
after each reset).  Meanwhile 'ping' and 'echo'
(guests/test/netecho.c) exchange at least 1000 ICMP echo requests and
replies on the same network (ATTACK_MIN s at least), every one intact, the pinger until it has
seen the hostile guest's marker frame while pinging (so the two overlap
whatever the speed of each) and with a canary over a quarter of its RAM
that must come through unchanged; 'rt' keeps its 1 kHz heartbeat.

Its watchdog (5 s, never fed) restarts it in the middle of its attack,
at least twice during the test (`stats`: started 3 times or more).
The monitor answers `list` and `stats` within MONITOR_BOUND throughout,
and `restart` of the hostile guest in the middle of its attack, then
`stop`, `restart` and `stop` again within LIFECYCLE_BOUND each: one exit of the hostile guest is bounded (docs/networks.md, "Bounded work"), so its vCPUs leave their CPU at once.  Before the bound
the first console notify kept its vCPU in Hyp mode for
hours and `stop` answered "a vCPU did not leave its CPU".
"""
import re
import time

import pytest

from conftest import PROMPT, check
from helpers import (RT_LATENESS_BOUND, Heartbeat, check_guest, monitor_rtt, wait_for)

# s from typing a command to its answer while the attack runs (in rt's
# time: see monitor_rtt); generous, never a measure of QEMU's speed
MONITOR_BOUND = 5.0
# s for `stop` and `restart` of the attacker: guest_stop waits up to 1 s
# for its vCPUs to leave their CPU, which bounded exits make at once
LIFECYCLE_BOUND = 20.0
# s of wall clock between two of rt's heartbeat lines (test_hostile.py)
STALL_BOUND = 10.0
PING_TIMEOUT = 240
# s of the attack at least, whatever the speed of the pinger
ATTACK_MIN = 20
# s into the attack: the first restart, in the middle of its floods
RESTART_AFTER = 5
# the words the hypervisor's own lines would show a failure with
BAD = r"crashed|fatal|panic|\*\*\*|^error:|^warning:|did not leave"


def hypervisor_bad_lines(text):
    """Lines of the hypervisor that tell of a failure: the hostile guest's
    own console lines (its RAM flooded out) are its business."""
    lines = text.replace("\r\n", "\n").split("\n")
    return [l for l in lines if re.search(BAD, l) and "[vhostile]" not in l]


CON_RE = r"virtio console: bytes written (\d+), received \d+, malformed rings (\d+)"
STATS_RE = {
    "started": r"guest 'vhostile': \w+, started (\d+) times",
    "vcpu1": r"vcpu1 exits (\d+)",
    "con_bytes": r"virtio console: bytes written (\d+)",
    "con_bad": r"virtio console: [^\r]* malformed rings (\d+)",
    "net_bad": r"network 'lan': member 2, [^\r]* malformed rings (\d+)",
    "net_sent": r"network 'lan': member 2, frames sent (\d+)",
}


class Seen:
    """The largest of each of vhostile's `stats` counters over samples"""

    def __init__(self):
        self.most = dict.fromkeys(STATS_RE, 0)
        self.samples = []

    def add(self, text):
        sample = {}
        for k, rx in STATS_RE.items():
            for m in re.finditer(rx, text):
                self.most[k] = max(self.most[k], int(m.group(1)))
                sample[k] = int(m.group(1))
        if len(sample) == len(STATS_RE):
            self.samples.append(sample)

    def used_across_resets(self):
        """Two samples of one life between which both devices carried more:
        its vCPU 1 resets them every few ms, so they work again after a
        reset (bytes written, frames sent go on growing)"""
        return any(a["started"] == b["started"] and b["con_bytes"] > a["con_bytes"] and
                   b["net_sent"] > a["net_sent"]
                   for a, b in zip(self.samples, self.samples[1:]))


def stats_text(vm, guest, last):
    """`stats GUEST` typed, its output up to the line matching `last`:
    searched, not parsed between echo and prompt (the hostile guest's
    lifecycle lines may come in between, even inside the echo)"""
    mark = vm.mark()
    vm.sendline("stats %s" % guest)
    wait_for(vm, last, mark, 30)
    return vm.since(mark)


def lifecycle(vm, hb, cmd, answer):
    """A command of the operator's about the hostile guest: answered within
    LIFECYCLE_BOUND, and its vCPUs left their CPU"""
    mark = vm.mark()
    t = monitor_rtt(vm, cmd, answer, LIFECYCLE_BOUND, hb)
    print("%s: %.2f s" % (cmd, t))
    bad = hypervisor_bad_lines(vm.since(mark))
    check(vm, not bad, "after %r: %s" % (cmd, bad))
    return mark


def restart(vm, hb):
    """`restart vhostile` in the middle of its attack; its second life
    attacks again (its first line) before this returns"""
    mark = lifecycle(vm, hb, "restart vhostile", r"guest 'vhostile' restarted")
    wait_for(vm, r"\[vhostile\] vhostile: attacking", mark, 60)
    time.sleep(2)


# vhostile.dts: the resetting vCPU takes turns with the flooding one on
# CPU 3; vhostile-split.dts: it runs on CPU 2, so that its resets land
# while CPU 3 is inside the devices' notify handling
LAYOUTS = [("cortex-a15", "vhostile"), ("cortex-a7", "vhostile"),
           ("cortex-a15", "vhostile-split")]


@pytest.mark.deadline(420)
@pytest.mark.parametrize("cpu,layout", LAYOUTS)
def test_virtio_hostile_beside_honest_partitions(qemu, image, cpu, layout):
    vm = qemu(kernel=image(layout), smp=4, cpu=cpu, lifetime=400,
              name="%s-%s" % (layout, cpu))
    start = vm.mark()
    vm.expect(PROMPT, 30)       # typed input before the monitor runs is lost
    # the resetting vCPU 1 where the layout puts it: beside vCPU 0 on CPU 3,
    # or on CPU 2 with ping and echo
    where = 2 if layout == "vhostile-split" else 3
    check(vm, re.search(r"sched: CPU %d shared by [^\r]*vhostile/vcpu1" % where, vm.since(start)),
          "vhostile's vCPU 1 is not on CPU %d" % where)
    wait_for(vm, r"\[vhostile\] vhostile: attacking", start, 30)
    hb = Heartbeat(vm)
    rtts = []
    # while the attack runs and ping pings: the monitor answers, rt ticks
    t0 = time.monotonic()
    deadline = t0 + PING_TIMEOUT
    halted = re.compile(r"guest 'ping' halted \(PSCI SYSTEM_OFF\)")
    restarted = False
    seen = Seen()
    while not halted.search(vm.since(start)) or time.monotonic() < t0 + ATTACK_MIN:
        check(vm, time.monotonic() < deadline and vm.alive(),
              "ping did not finish in %d s" % PING_TIMEOUT)
        rtts.append(monitor_rtt(vm, "list", r"vhostile\s+running", MONITOR_BOUND, hb))
        mark = vm.mark()
        rtts.append(monitor_rtt(vm, "stats vhostile", CON_RE, MONITOR_BOUND, hb))
        seen.add(vm.since(mark))
        hb.poll()
        if not restarted and time.monotonic() > t0 + RESTART_AFTER:
            # in the middle of its floods: its vCPUs leave, it starts over
            restart(vm, hb)
            restarted = True
        time.sleep(0.5)
    text = vm.since(start)
    check_guest(vm, "ping", 4, text)        # setup, arp, ping, canary
    m = re.search(r"\[ping\] netecho: (\d+) of (\d+) echo replies, \d+ us per round trip, "
                  r"(\d+) hostile frames seen", text)
    check(vm, m, "no ping summary")
    ok, sent, marks = (int(x) for x in m.groups())
    print("ping: %d of %d replies intact, %d hostile frames seen" % (ok, sent, marks))
    check(vm, ok == sent >= 1000 and marks >= 1,
          "%d of %d replies, %d hostile frames while pinging" % (ok, sent, marks))
    # the honest devices were never stopped; the hostile ones were
    stopped = set(re.findall(r"guest '(\w+)': (?:network 'lan'|virtio console): device needs "
                             r"reset: ", text))
    check(vm, stopped <= {"vhostile"}, "devices stopped: %s" % stopped)

    # the attack reached its devices, its second vCPU ran (the resets from
    # another vCPU happened) and the watchdog won too (boot, the restart
    # above, its own restarts); each life starts its counters afresh, so
    # the largest seen over the samples taken during the attack
    print("vhostile: at most %s" % seen.most)
    check(vm, seen.most["started"] >= 3, "its watchdog did not restart it: %s" % seen.most)
    check(vm, seen.most["vcpu1"] > 0, "its vCPU 1 never ran: %s" % seen.most)
    check(vm, seen.most["con_bytes"] >= 8192 and seen.most["con_bad"] >= 1 and
          seen.most["net_bad"] >= 1, "the attack did not reach the devices: %s" % seen.most)
    check(vm, seen.used_across_resets(),
          "its devices did not carry more within one life: %s" % seen.samples[:8])
    echo_re = (r"network 'lan': member 1, frames sent (\d+), received (\d+), dropped sending "
               r"\d+, dropped for want of RX buffers \d+, malformed rings (\d+)")
    m = re.search(echo_re, stats_text(vm, "echo", echo_re))
    check(vm, int(m.group(1)) >= 1000 and int(m.group(2)) >= 1000 and m.group(3) == "0",
          "stats echo: %s" % m.group(0))
    hb.check(STALL_BOUND, RT_LATENESS_BOUND)

    # the operator wins: stop, restart (the attack starts over), stop again
    lifecycle(vm, hb, "stop vhostile", r"guest 'vhostile' stopped")
    restart(vm, hb)
    lifecycle(vm, hb, "stop vhostile", r"guest 'vhostile' stopped")
    monitor_rtt(vm, "list", r"vhostile\s+stopped", MONITOR_BOUND, hb)
    monitor_rtt(vm, "list", r"echo\s+running", MONITOR_BOUND, hb)
    hb.check(STALL_BOUND, RT_LATENESS_BOUND)
    print("monitor during the attack: worst %.2f s of %d answers" % (max(rtts), len(rtts)))
    check(vm, not hypervisor_bad_lines(vm.since(start)),
          "unexpected hypervisor lines: %s" % hypervisor_bad_lines(vm.since(start)))
