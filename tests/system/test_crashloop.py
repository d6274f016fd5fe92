"""Guests restarted a hundred times in a row: one asks
for PSCI SYSTEM_RESET, one takes an abort it cannot get out of - its
vectors unmapped, or the same instruction faulting again and again -
(on-crash "restart"), one starves its watchdog (guests/test/crashloop.c).
Each life uses the timer and SGIs and leaves an interrupt active and one
pending; every new life must find them working.  After a hundred lives
each, the hypervisor's free memory is what it was, stopped guests stay
stopped, and 'rt' beside them kept its tick."""
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import PROMPT, check
from helpers import RT_LATENESS_BOUND, Heartbeat, monitor_rtt

LOOPERS = {"loop-reset": "reset", "loop-crash": "abort", "loop-wd": "watchdog"}
LIVES = 100


def ok_lines(text, name):
    return len(re.findall(r"\[%s\] crashloop: %s, timer and SGIs ok" % (name, LOOPERS[name]),
                          text))


def free_kib(vm, hb):
    start = vm.mark()
    monitor_rtt(vm, "info", r"hypervisor memory: \d+ KiB free of \d+ KiB\r\n", 5.0, hb)
    return int(re.search(r"hypervisor memory: (\d+) KiB free", vm.since(start)).group(1))


def stop_loopers(vm, hb):
    for name in LOOPERS:
        monitor_rtt(vm, "stop " + name, r"guest '%s' stopped" % name, 5.0, hb)


def test_hundred_restarts(qemu, image):
    vm = qemu(kernel=image("crashloop"), smp=4)
    vm.expect(PROMPT, 30)       # typed input before the monitor runs is lost
    hb = Heartbeat(vm)
    deadline = time.monotonic() + 30
    while not all(ok_lines(vm.output, n) for n in LOOPERS):
        check(vm, time.monotonic() < deadline, "a looper never completed a life")
        time.sleep(0.2)
    # the baseline: every looper stopped, holding one life's tables
    stop_loopers(vm, hb)
    before = free_kib(vm, hb)
    mark = vm.mark()
    for name in LOOPERS:
        monitor_rtt(vm, "start " + name, r"guest '%s' started" % name, 5.0, hb)
    # each is stopped once it has lived a hundred times (restarts are the
    # boot CPU's work: the fast ones would starve loop-wd, which shares it)
    t0 = time.monotonic()
    running = set(LOOPERS)
    while running:
        text = vm.since(mark)
        lives = {n: ok_lines(text, n) for n in LOOPERS}
        for name in sorted(running):
            if lives[name] >= LIVES:
                monitor_rtt(vm, "stop " + name, r"guest '%s' stopped" % name, 5.0, hb)
                running.discard(name)
        check(vm, time.monotonic() - t0 < 50, "lives after 50 s: %s" % lives)
        check(vm, "LOST" not in text, "a life found its timer or SGIs gone")
        hb.poll()
        time.sleep(0.2)
    print("lives %s in %.1f s" % (lives, time.monotonic() - t0))
    time.sleep(1)           # nothing restarts a stopped guest
    after = free_kib(vm, hb)
    check(vm, after == before, "hypervisor memory free: %d KiB before %s lives, %d after"
          % (before, lives, after))
    start = vm.mark()
    monitor_rtt(vm, "list", r"rt\s+running", 5.0, hb)
    listing = vm.since(start)
    for name in LOOPERS:
        check(vm, re.search(r"%s\s+stopped" % name, listing), "%s is not stopped" % name)
    text = vm.since(mark)
    # each failed its own way; the lifecycle lines are rate limited per guest
    # (hyp/guest/guest.h GUEST_LOG_*): a burst, then 10 a second
    elapsed = time.monotonic() - t0
    for name, what in (("loop-reset", r"guest 'loop-reset' asked for a reset"),
                       ("loop-crash", r"guest 'loop-crash' crashed on vCPU 0: exception vector "
                                      r"not in guest memory"),
                       ("loop-crash", r"guest 'loop-crash' crashed on vCPU 0: the same "
                                      r"instruction keeps faulting"),
                       ("loop-wd", r"guest 'loop-wd': watchdog expired \(not fed for 50 ms\): "
                                   r"restarting")):
        check(vm, re.search(what, text), "no /%s/" % what)
        n = len(re.findall(r"guest '%s'(?:: restarting|: watchdog| crashed| asked)" % name,
                           vm.output))
        check(vm, n <= 256 + 10 * (elapsed + 10), "%d lines about %s in %.0f s" % (n, name, elapsed))
    check(vm, "still running after SYSTEM_RESET" not in text, "a reset did not take")
    bad = [l for l in text.split("\r\n") if re.search(r"fatal|panic|\*\*\*|^error:|did not leave|"
                                                      r"out of hypervisor memory", l)]
    check(vm, not bad, "unexpected hypervisor lines: %s" % bad[:10])
    for name in LOOPERS:
        start = vm.mark()
        monitor_rtt(vm, "stats " + name, r"guest '%s': stopped, started \d+ times" % name, 5.0, hb)
        n = int(re.search(r"started (\d+) times", vm.since(start)).group(1))
        check(vm, n > LIVES, "%s started %d times" % (name, n))
    hb.check(5.0, RT_LATENESS_BOUND, min_beats=5)


def qemu_pid(vm):
    """QEMU's own pid (vm.proc is the `timeout` that runs it)"""
    out = subprocess.run(["pgrep", "-P", str(vm.proc.pid)], stdout=subprocess.PIPE, check=True)
    return int(out.stdout.split()[0])


@pytest.mark.deadline(150)
def test_lives_survive_a_stalled_host(qemu, image):
    """A host that stops QEMU for a while (here SIGSTOP, 300 ms at a time)
    stops the guest's vCPU but not the counter it times its waits with: a
    life that was waiting for its timer interrupt or SGI must still find it
    when it runs again.  Failed before the guest looked at the GIC again
    after its deadline (CI on a loaded host: 'timer and SGIs LOST')."""
    vm = qemu(kernel=image("crashloop"), smp=4)
    vm.expect(PROMPT, 30)
    pid = qemu_pid(vm)
    mark = vm.mark()
    # at least 30 stalls, and on until every looper has lived through them:
    # how many lives 12 s of a stalled QEMU hold depends on how busy the
    # host is (CI on a loaded host: loop-wd, whose restarts are the boot
    # CPU's, had none), so only the deadline that ends a hang is in time
    deadline = time.monotonic() + 60
    stalls = 0
    while True:
        time.sleep(0.1)
        os.kill(pid, signal.SIGSTOP)
        time.sleep(0.3)
        os.kill(pid, signal.SIGCONT)
        stalls += 1
        lives = {n: ok_lines(vm.since(mark), n) for n in LOOPERS}
        if stalls >= 30 and all(lives.values()) or time.monotonic() > deadline:
            break
    time.sleep(1)
    text = vm.since(mark)
    lives = {n: ok_lines(text, n) for n in LOOPERS}
    check(vm, all(lives.values()), "lives while stalled (%d stalls): %s" % (stalls, lives))
    check(vm, "LOST" not in text, "a life found its timer or SGIs gone: %s" % lives)
