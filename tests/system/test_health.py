"""The health monitor (hyp/guest/health.c, docs/temporal-isolation.md
"Health monitor"): every event of a partition's health table meets its
action - a crash restarts (health.dts), an abort storm stops, a watchdog
miss is logged, a reported deadline miss restarts (healthdeadline.dts),
budget overruns stop the whole system (healthstop.dts, under -icount) -
and the monitor's health command shows the log.  'rt' beside the faulty
partitions keeps its tick throughout; a partition flooding the
deadline-miss call gets its own records rate limited and holds up
nobody."""
import re
import time

from conftest import PROMPT, check
from helpers import RT_LATENESS_BOUND, rt_ticks

ICOUNT = ["-icount", "shift=0,sleep=off"]
# records a guest may add to the log: a burst, then one a second
# (hyp/guest/health.h HEALTH_LOG_BURST, HEALTH_LOG_PERIOD_MS)
LOG_BURST = 8
# us: rt's worst timer lateness under -icount, where virtual time is
# instructions (tests/system/test_budget.py's bound)
RT_WORST_ICOUNT_US = 100
RECORD = re.compile(r"health #(\d+) (\d+)\.(\d{6}) s (\S+): (\S+) \((\d+), 0x([0-9a-f]+)\): "
                    r"(\S+)\r\n")


def health(vm, name=""):
    """The monitor's health command: (system line, [records as tuples])"""
    mark = vm.mark()
    vm.sendline(("health " + name).strip())
    vm.expect(r"health: \d+ records, next #\d+\r\n", timeout=60)
    text = vm.since(mark)
    system = re.search(r"health: (system [^\r\n]*)\r\n", text).group(1)
    recs = [(int(seq), int(s) * 1000000 + int(us), guest, ev, int(n), int(arg, 16), act)
            for seq, s, us, guest, ev, n, arg, act in RECORD.findall(text)]
    return system, recs, text


def check_rt_ticking(vm, since, beats=2, timeout=120):
    """rt's ticks after since: beats more lines, counted on without a gap"""
    end = time.monotonic() + timeout
    while len(rt_ticks(vm.since(since))) < beats:
        check(vm, time.monotonic() < end, "rt stopped ticking")
        time.sleep(0.5)
    ticks = rt_ticks(vm.output)
    check(vm, [n for n, _ in ticks] == [1000 * (i + 1) for i in range(len(ticks))],
          "rt lost ticks: %r" % ticks)
    check(vm, max(w for _, w in ticks) <= RT_LATENESS_BOUND, "rt late: %r" % ticks)


def state(vm, name):
    """name's state in the monitor's list"""
    vm.sendline("list")
    return vm.expect(r"\n%s +(\w+) " % name, timeout=60).group(1)


def test_health_crash_aborts_watchdog(qemu, image):
    vm = qemu(kernel=image("health"), smp=4)
    vm.expect(PROMPT, 30)
    # a crash: recorded, and the guest restarted by its crash entry
    for _ in range(2):
        vm.expect_seen(r"guest 'crasher' crashed on vCPU 0: exception vector", timeout=60)
        vm.expect(r"guest 'crasher': health: crash \(1\): restart", timeout=60)
    check(vm, len(re.findall(r"\[crasher\] faulty: crash", vm.output)) >= 2,
          "crasher was not restarted")
    # an abort storm: 1,000 aborts within 100 ms stop the guest, once
    vm.expect_seen(r"guest 'storm': health: abort-storm \((\d+)\): stop", timeout=60)
    vm.expect_seen(r"guest 'storm' stopped", timeout=60)
    # a watchdog miss, only logged: it goes on being watched, and logged
    for _ in range(2):
        vm.expect(r"guest 'wdlog': watchdog expired \(not fed for 200 ms\): logged", timeout=60)
    mark = vm.mark()
    check_rt_ticking(vm, mark)
    check(vm, state(vm, "storm") == "stopped", "storm not stopped")
    check(vm, state(vm, "wdlog") == "running", "wdlog not running")
    check(vm, vm.output.count("[wdlog] fed the watchdog") == 1, "wdlog was restarted")

    system, recs, text = health(vm)
    check(vm, system == "system running", text)
    seqs = [r[0] for r in recs]
    check(vm, seqs == sorted(seqs) and len(set(seqs)) == len(seqs), text)
    check(vm, [r[1] for r in recs] == sorted(r[1] for r in recs), "not in time order: " + text)
    by = {}
    for r in recs:
        by.setdefault((r[2], r[3], r[6]), []).append(r)
    check(vm, len(by.get(("storm", "abort-storm", "stop"), [])) == 1, text)
    check(vm, by[("storm", "abort-storm", "stop")][0][4] >= 1000, text)
    check(vm, len(by.get(("crasher", "crash", "restart"), [])) >= 2, text)
    # a crash record's arg is where it crashed; the watchdog's its period
    check(vm, all(r[5] == 200 for r in by.get(("wdlog", "watchdog", "log"), [])), text)
    check(vm, len(by.get(("wdlog", "watchdog", "log"), [])) >= 2, text)
    check(vm, "rt" not in {r[2] for r in recs}, text)
    # one guest's records alone
    _, only, text = health(vm, "storm")
    check(vm, {r[2] for r in only} == {"storm"} and len(only) == 1, text)
    vm.sendline("health nosuch")
    vm.expect(r"health: no guest 'nosuch'", timeout=60)
    check_rt_ticking(vm, vm.mark())


def test_health_deadline_and_flood(qemu, image):
    vm = qemu(kernel=image("healthdeadline"), smp=4)
    vm.expect(PROMPT, 30)
    # the third miss within a second restarts late: it counts 1, 2, 3 again
    for _ in range(2):
        vm.expect_seen(r"\[late\] faulty: deadline 3 missed: 0", timeout=60)
        vm.expect(r"guest 'late': health: deadline-miss \(3\): restart", timeout=60)
    vm.expect_seen(r"\[flood\] faulty: \d+ misses reported", timeout=120)
    check_rt_ticking(vm, vm.mark(), beats=5)
    system, recs, text = health(vm)
    check(vm, system == "system running", "system: " + text)
    late = [r for r in recs if r[2] == "late"]
    flood = [r for r in recs if r[2] == "flood"]
    # each record's arg is the miss that reached the threshold, its count
    # the misses of that life; the first life's may count more, as the
    # boot CPU acts only once it has started every guest
    check(vm, len(late) >= 2 and all(r[3] == "deadline-miss" and r[6] == "restart" and
                                     r[4] == r[5] >= 3 for r in late) and
          all(r[4] == 3 for r in late[1:]), "late's records: " + text)
    # flood: one record a millisecond window at most, held to the rate
    # limit: a burst, then one a second of its life (the seconds counted
    # generously: its whole run so far, by the counter of its records)
    span_s = (flood[-1][1] - flood[0][1]) / 1e6 if flood else 0
    check(vm, len(flood) <= LOG_BURST + span_s + 1, "flood filled the log: " + text)
    m = re.search(r"health: flood: (\d+) records dropped", text)
    check(vm, m and int(m.group(1)) > 0, "no records of flood dropped: " + text)
    check(vm, state(vm, "flood") == "running", "flood not running")
    check(vm, state(vm, "late") == "running", "late not running")


def test_health_stop_system(qemu, image):
    vm = qemu(kernel=image("healthstop"), smp=4, extra=ICOUNT, lifetime=900)
    vm.expect(PROMPT, 60)
    vm.expect_seen(r"guest 'hog': health: budget-overrun \((\d+)\): stop-system", timeout=600)
    vm.expect_seen(r"health: system stopped: guest 'hog': budget-overrun: every guest stopped",
                   timeout=60)
    # rt ran exactly until then
    ticks = rt_ticks(vm.output)
    check(vm, len(ticks) >= 1, "rt never ticked")
    check(vm, [n for n, _ in ticks] == [1000 * (i + 1) for i in range(len(ticks))], repr(ticks))
    check(vm, max(w for _, w in ticks) <= RT_WORST_ICOUNT_US, repr(ticks))
    # the monitor answers on, and says why
    check(vm, state(vm, "hog") == "stopped" and state(vm, "rt") == "stopped", vm.output[-2000:])
    system, recs, text = health(vm)
    check(vm, re.match(r"system stopped at \d+\.\d{6} s: guest 'hog': budget-overrun: every "
                       r"guest stopped", system), text)
    check(vm, [(r[2], r[3], r[6]) for r in recs] == [("hog", "budget-overrun", "stop-system")],
          text)
    check(vm, recs[0][4] >= 1200, text)
    # and nothing runs any more: rt's lines stopped
    n = len(rt_ticks(vm.output))
    time.sleep(3)
    check(vm, len(rt_ticks(vm.output)) == n, "rt ticks on")
