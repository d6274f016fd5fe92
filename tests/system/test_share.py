"""Shared CPUs: tests/system/configs/share.dts puts three
guests on one CPU - two busy ones with 4 ms and 12 ms slices and one that
sleeps on its virtual timer every 4 ms.  Under -icount time is instructions,
so the shares are steady: the busy guests progress 1:3, the sleeper's timer
interrupt comes within microseconds although a busy turn lasts up to 12 ms,
and every guest's VFP registers (its own pattern in d0-d31 and FPSCR,
checked continuously) survive the switches, which happen lazily (each
report says how often the guest's registers were brought back).  Also: no
VFP trap on an exclusive CPU, a guest with more vCPUs than CPUs, and a
guest reset on shared CPUs."""
import re

import pytest

from conftest import check
from helpers import boot_image, check_guest, check_hypervisor_clean, wait_halted

ICOUNT = ["-icount", "shift=0,sleep=off"]
BUSY = re.compile(r"\[(\w+)\] busy (\d+): checks (\d+) vfp-errors (\d+) vfp-loads (\d+)\r?\n")
SLEEP = re.compile(r"\[sleeper\] sleep (\d+): wakes (\d+) late avg (\d+) us max (\d+) us "
                   r"vfp-errors (\d+) vfp-loads (\d+)\r?\n")


def reports(vm, pattern, guest_of, want):
    """Wait until every guest in want has want[guest] whole report lines"""
    got = {}
    for _ in range(200):
        got = {}
        for m in pattern.finditer(vm.output):
            got.setdefault(guest_of(m), []).append(m)
        if all(len(got.get(g, [])) >= n for g, n in want.items()):
            return got
        vm.expect(pattern.pattern, timeout=60)
    raise AssertionError("reports: %r" % {g: len(r) for g, r in got.items()})


@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
def test_shared_cpu_slices_vfp_and_timer(qemu, image, cpu):
    vm = qemu(kernel=image("share"), cpu=cpu, smp=1, extra=ICOUNT)
    vm.expect(r"sched: CPU 0 shared by busy4/vcpu0 \(4000 us\), busy12/vcpu0 \(12000 us\), "
              r"sleeper/vcpu0 \(1000 us\)\r\n")
    vm.expect(r"guest 'sleeper': starting")
    busy = reports(vm, BUSY, lambda m: m.group(1), {"busy4": 8, "busy12": 8})
    sleep = reports(vm, SLEEP, lambda m: "sleeper", {"sleeper": 4})["sleeper"]
    # progress in proportion to the slices (reports 0-1: start-up)
    work = {g: sum(int(m.group(3)) for m in busy[g][2:8]) for g in ("busy4", "busy12")}
    ratio = work["busy12"] / work["busy4"]
    assert 2.7 < ratio < 3.3, "busy12/busy4 progress %.2f, slices 12:4" % ratio
    # the VFP registers survived every switch, and switches did happen
    for g in ("busy4", "busy12"):
        last = busy[g][7]
        assert int(last.group(4)) == 0, "%s: VFP registers changed: %s" % (g, last.group(0).strip())
        assert int(last.group(5)) > 50, "%s: no lazy VFP switching? %s" % (g, last.group(0))
    assert "VFP MISMATCH" not in vm.output
    # the sleeper: on time (a busy turn is up to 12 ms), its VFP intact
    for m in sleep[1:]:
        assert int(m.group(4)) < 200, "sleeper woke late: %s" % m.group(0)
        assert int(m.group(5)) == 0, "sleeper: VFP registers changed: %s" % m.group(0)
    assert int(sleep[-1].group(6)) >= int(sleep[-1].group(2)) - 2, \
        "the sleeper's VFP should come back after each wake: %s" % sleep[-1].group(0)


def test_exclusive_cpu_keeps_its_vfp(qemu, image):
    """Alone on its CPU a guest owns the VFP: no access ever traps."""
    vm = qemu(kernel=image("sharealone"), smp=1, extra=ICOUNT)
    busy = reports(vm, BUSY, lambda m: m.group(1), {"alone": 3})["alone"]
    assert "sched: CPU" not in vm.output
    for m in busy:
        assert (m.group(4), m.group(5)) == ("0", "0"), m.group(0)


def test_more_vcpus_than_cpus(qemu, image):
    """The SMP test guest's 4 vCPUs on 2 CPUs, two on each: PSCI CPU_ON and
    CPU_OFF, IPIs and its spinlock between vCPUs taking turns on one CPU."""
    vm = qemu(kernel=image("smpshared"), smp=2)
    m = vm.expect(r"\[smp\] RESULT: (\d+) passed, (\d+) failed", timeout=120)
    assert (m.group(1), m.group(2)) == ("9", "0"), m.group(0)
    vm.expect(r"guest 'smp' halted \(PSCI SYSTEM_OFF\)")
    assert not re.search(r"crashed|fatal|^error:|^warning:", vm.output, re.M)


def test_reset_on_shared_cpus(qemu, image):
    """SYSTEM_RESET of a guest sharing CPU 0 with a busy one: both boots of
    the reset guest find a fresh state; the busy guest's VFP pattern stays
    (the reset guest never touches the VFP: no reload is needed at all)."""
    vm = qemu(kernel=image("resetshared"), smp=2)
    vm.expect(r"\[reset\] RESULT: 5 passed, 0 failed", timeout=60)
    vm.expect(r"guest 'reset': restarting")
    vm.expect(r"\[reset\] RESULT: 4 passed, 0 failed", timeout=60)
    vm.expect(r"guest 'reset' halted \(PSCI SYSTEM_OFF\)")
    mark = len(vm.output)
    m = None
    while m is None:
        vm.expect(BUSY.pattern, timeout=30)
        m = BUSY.search(vm.output, mark)
    assert (m.group(4), m.group(5)) == ("0", "1"), m.group(0)
    assert not re.search(r"crashed|fatal|^error:|^warning:", vm.output, re.M)


def test_timer_interrupt_held_across_switches(qemu, image):
    """Two guests on one shared CPU, each holding its virtual timer's
    interrupt in its handler (taken, the timer still firing, no EOI) until
    it has been switched out and back in (guests/test/ppihold.c): the
    physical PPI, hardware-linked, is deactivated when its vCPU leaves (or
    the other guest's timer could not fire) and activated again when it
    comes back; each expiry is taken exactly once and the timer fires again
    after the EOI."""
    vm, start = boot_image(qemu, image, "ppihold", "cortex-a15")
    wait_halted(vm, ["holda", "holdb"], start)
    text = vm.since(start)
    for g in ("holda", "holdb"):
        check_guest(vm, g, 1, text)
        check(vm, "[%s] ppihold: 5 timer interrupts in 5 rounds, 5 held across a switch" % g
              in text, "guest %s's ppihold line" % g)
    check_hypervisor_clean(vm, text)
