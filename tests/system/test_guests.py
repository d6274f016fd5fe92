"""Test guests under Partita: each image (build/images/NAME.bin, from
tests/system/configs/NAME.dts) boots in QEMU; every guest prints
`TEST name: PASS|FAIL why` lines and `RESULT: N passed, M failed`, then
powers off.  Each test checks every such line of every guest, the
expected number of tests, the hypervisor's own lines (halted, one line per
injected abort, no crash, no error), and that the monitor still answers
afterwards, on cortex-a15 and cortex-a7.

The guests (guests/test/*.c) and what they cover:
  traps      one vCPU against the trap handling: hypercalls and PSCI error
             paths over HVC and SMC, conditional SMC, ACTLR/MPIDR/MIDR/CBAR,
             undefined instructions, data/prefetch aborts, emulated MMIO of
             every size and register, Thumb and IT blocks, stage 1 on,
             set/way cache maintenance
  probe,     two guests at once: probe attacks the hypervisor's memory and
  victim     victim's memory by physical address; victim tests all of its
             RAM and watches the attacked page
  smp        CPU_ON/CPU_OFF/AFFINITY_INFO of 4 vCPUs, spinlock and counters,
             PSCI CPU_ON errors, SYSTEM_OFF with vCPUs spinning
  reset      SYSTEM_RESET: the second boot finds its state fresh
  wild       an abort whose vector is unmapped: the guest must be marked
             crashed, not loop, while victim runs on
"""
import re

import pytest

from conftest import EVENT_TIMEOUT, Timeout, check
from helpers import (GUEST_TIMEOUT, IMAGES, RESULT_RE, boot_image, check_guest,
                     check_hypervisor_clean, monitor_answers, wait_for, wait_halted)

CPUS = ["cortex-a15", "cortex-a7"]


# ---- one image per test --------------------------------------------------------
@pytest.mark.parametrize("cpu", CPUS)
def test_traps(qemu, image, cpu):
    vm, start = boot_image(qemu, image, "traps", cpu)
    wait_halted(vm, ["traps"], start)
    text = vm.since(start)
    check_guest(vm, "traps", IMAGES["traps"]["traps"], text)
    check_hypervisor_clean(vm, text)
    # printing: exactly what the guest wrote, behind its name
    check(vm, "[traps] print: -42 42 0xcafef00d str x%\r\n" in text, "print line mangled")
    long = "".join(chr(ord(" ") + 1 + i % 94) for i in range(120))
    check(vm, "[traps] print-long: %s\r\n" % long in text, "long line mangled")
    check(vm, "[traps] print-puts: two parts\r\n" in text, "gputs line mangled")
    check(vm, "[traps] thumb-mmio: ##\r\n" in text,
          "Thumb 16/32-bit stores to the UART did not print '##'")
    check(vm, "[traps] alias-mmio: via-va\r\n" in text,
          "stores to the UART through a stage-1 alias did not print")
    want_cpu = "arm,%s" % cpu
    check(vm, re.search(r"\[traps\] dt: memory 0x40000000\+0x01000000 cpus 1 cpu '%s' "
                        r"bootargs 'traps test'\r\n" % want_cpu, text),
          "the guest's DT does not describe its configuration")
    # one console line per injected abort, naming the guest, PC and address
    for what, addr in (("read of unmapped memory", "0x41000000"),
                       ("write to unmapped memory", "0x08030000"),
                       ("instruction fetch from unmapped memory", "0x0a000000")):
        check(vm, re.search(r"guest 'traps' vCPU 0: %s at PC 0x[0-9a-f]{8}, address %s "
                            r"\(IPA %s\): abort injected" % (what, addr, addr), text),
              "no abort line for a %s at %s" % (what, addr))
    monitor_answers(vm)


@pytest.mark.parametrize("cpu", CPUS)
def test_isolation(qemu, image, cpu):
    """probe and victim at once on CPUs 1 and 2: probe's accesses to the
    hypervisor's and victim's memory abort in probe; victim's watched page,
    armed before the attack and checked after it, is untouched; both
    complete their tests; the hypervisor runs on."""
    vm, start = boot_image(qemu, image, "isolation", cpu)
    # the watch spans the attack by construction, not by the two guests'
    # speeds (CI on a busy host saw probe's attack end before victim had
    # armed its watch): probe starts once it is armed, and victim checks
    # the page every 100 ms until it is stopped
    wait_for(vm, r"\[victim\] victim: watch armed", start, GUEST_TIMEOUT)
    vm.sendline("start probe")
    wait_halted(vm, ["probe"], start, settle=False)
    wait_for(vm, RESULT_RE % "victim", start, GUEST_TIMEOUT)
    attack_end = vm.since(start).find("[probe] TEST other_guest_memory: PASS")
    check(vm, attack_end >= 0, "probe did not attack victim's memory")
    # a check of victim's page that began after the attack had ended
    wait_for(vm, r"(?s)\[victim\] victim: watch page intact, check \d+\r\n.*"
                 r"\[victim\] victim: watch page intact, check \d+\r\n",
             start + attack_end, GUEST_TIMEOUT)
    vm.sendline("stop victim")
    wait_for(vm, r"guest 'victim' stopped", start, GUEST_TIMEOUT)
    text = vm.since(start)
    for g, n in IMAGES["isolation"].items():
        check_guest(vm, g, n, text)
    check_hypervisor_clean(vm, text)

    # the premises: the attacked addresses are the hypervisor's and victim's
    m = re.search(r"hypervisor: 0x([0-9a-f]{8})-0x([0-9a-f]{8})", text)
    hyp = (int(m.group(1), 16), int(m.group(2), 16))
    m = re.search(r"guest 'victim': 1 vCPU, (\d+) MiB at 0x([0-9a-f]{8})", text)
    victim = (int(m.group(2), 16), int(m.group(2), 16) + (int(m.group(1)) << 20))
    m = re.search(r"\[probe\] probe: RAM 0x40000000-0x([0-9a-f]{8})(.*)\r\n", text)
    check(vm, m, "probe did not print its targets")
    window_end = int(m.group(1), 16)
    hyp_addrs = [int(a, 16) for a in re.findall(r" hyp (0x[0-9a-f]{8})", m.group(2))]
    other_addrs = [int(a, 16) for a in re.findall(r" other (0x[0-9a-f]{8})", m.group(2))]
    check(vm, hyp_addrs and other_addrs, "probe has no targets: %r" % m.group(0))
    for a in hyp_addrs:
        check(vm, hyp[0] <= a < hyp[1] and a >= window_end,
              "probe's hyp target 0x%08x is not hypervisor memory beyond its window "
              "(hypervisor 0x%08x-0x%08x, window ends 0x%08x): fix isolation.dts"
              % (a, hyp[0], hyp[1], window_end))
    for a in other_addrs:
        check(vm, victim[0] <= a and a + 0x1000 <= victim[1] and a >= window_end,
              "probe's other target 0x%08x is not victim's memory 0x%08x-0x%08x"
              % (a, victim[0], victim[1]))
    # victim's watch covered the attack: armed before it, and the page
    # found intact by checks after it (above), never changed
    armed = text.find("[victim] victim: watch armed")
    check(vm, 0 <= armed < attack_end, "the watch was armed at %d, after the attack at %d"
          % (armed, attack_end))
    check(vm, "watch page CHANGED" not in text, "victim's watched page changed")
    # the hypervisor reported each attack, on probe's behalf only
    for a in hyp_addrs + other_addrs:
        check(vm, re.search(r"guest 'probe' vCPU 0: write to unmapped memory at PC "
                            r"0x[0-9a-f]{8}, address 0x%08x" % a, text),
              "no abort line for probe's write to 0x%08x" % a)
    check(vm, "guest 'victim' vCPU" not in text, "victim took an abort")
    monitor_answers(vm)


@pytest.mark.parametrize("cpu", CPUS)
def test_smp(qemu, image, cpu):
    """4 vCPUs on CPUs 2 3 1 0 (the monitor's CPU too); powers off while
    3 of them spin: all must leave their CPUs, and the monitor answers."""
    vm, start = boot_image(qemu, image, "smp", cpu)
    wait_halted(vm, ["smp"], start)
    text = vm.since(start)
    check_guest(vm, "smp", IMAGES["smp"]["smp"], text)
    check_hypervisor_clean(vm, text)
    check(vm, "[smp] smp: powering off with 3 vCPUs spinning" in text,
          "smp did not power off with its vCPUs spinning")
    monitor_answers(vm)


@pytest.mark.parametrize("cpu", CPUS)
def test_system_reset(qemu, image, cpu):
    """reset: boot 1 passes its fresh-state tests, leaves marks, resets;
    the hypervisor restarts it; boot 2 finds everything fresh, powers off."""
    vm, start = boot_image(qemu, image, "reset", cpu)
    wait_for(vm, r"\[reset\] reset: boot 1: ", start, GUEST_TIMEOUT)
    m = wait_for(vm, r"guest 'reset' asked for a reset \(PSCI SYSTEM_RESET\)\r\n", start,
                 GUEST_TIMEOUT)
    first = vm.since(start)[:m.end()]
    m = wait_for(vm, r"guest 'reset': restarting\r\n", start, EVENT_TIMEOUT)
    second_start = start + m.end()
    wait_for(vm, r"\[reset\] reset: boot 2: ", second_start, EVENT_TIMEOUT)
    wait_for(vm, r"guest 'reset' halted \(PSCI SYSTEM_OFF\)\r\n", second_start, GUEST_TIMEOUT)
    vm.settle(quiet=0.3, timeout=10)
    second = vm.since(second_start)
    names1 = check_guest(vm, "reset", 5, first)
    names2 = check_guest(vm, "reset", 4, second)
    check(vm, names2 == [n for n in names1 if n != "marks_left"],
          "boot 2 ran tests %s, boot 1 %s" % (names2, names1))
    check(vm, len(re.findall(r"\[reset\] reset: boot \d", vm.since(start))) == 2,
          "the guest did not boot exactly twice")
    check_hypervisor_clean(vm, vm.since(start))
    monitor_answers(vm)


@pytest.mark.parametrize("cpu", CPUS)
def test_fault_cannot_be_delivered(qemu, image, cpu):
    """wild's abort vector is unmapped: each injected abort aborts again at
    the vector.  The hypervisor must mark wild crashed (on-crash "stop")
    after a bounded number of aborts, victim completes, the monitor answers."""
    vm, start = boot_image(qemu, image, "wild", cpu)
    wait_for(vm, r"\[wild\] wild: vectors at", start, GUEST_TIMEOUT)
    wait_halted(vm, ["victim"], start, settle=False)
    check_guest(vm, "victim", 3, vm.since(start))
    try:
        vm.settle(quiet=0.5, timeout=2)
    except Timeout:
        pass                # a flood of abort lines: counted below
    text = vm.since(start)
    n = len(re.findall(r"guest 'wild' vCPU 0: [^\r\n]*abort injected", text))
    if n > 20:
        vm.kill()
        lines = vm.output.replace("\r\n", "\n").split("\n")
        raise AssertionError(
            "%d abort lines for wild (and counting): the hypervisor keeps injecting an "
            "abort whose vector aborts again\n\ncommand: %s\n\n---- console output, the "
            "first 60 of %d lines ----\n%s\n---- end ----"
            % (n, " ".join(vm.qemu_argv), len(lines), "\n".join(lines[:60])))
    check(vm, re.search(r"guest 'wild' crashed on vCPU 0: [^\r\n]*PC 0x[0-9a-f]{8}", text),
          "wild was not marked crashed")
    check(vm, "wild: still running" not in text, "wild ran on after its fault")
    monitor_answers(vm)
