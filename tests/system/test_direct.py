"""Direct interrupts (docs/direct-interrupts.md): a guest
with interrupts = "direct" owns its CPU's physical GIC CPU interface in the
secure start.  Its virtual timer (PPI 27) and its passthrough PL031's SPI
reach its IRQ vector with no exit to Partita (the guest reads Partita's
own count of its IRQ exits before and after: 0); the hypervisor keeps the
CPU through Group 0 (FIQ), so stop, restart and the watchdog take it back
while it spins with interrupts masked, its CPU interface disabled and its
priority mask at the strictest value it can write.  Outside the secure
start the configuration is refused, naming guest and property."""
import re

from helpers import check_irq_guest

SECURE_MACHINE = "virt,virtualization=on,secure=on"
RESULT = r"\[%s\] direct: RESULT (\d+) ticks, (\d+) IRQ exits, worst \d+ us late, (\d+) others\r\n"
SPINNING = r"\[%s\] direct: spinning with interrupts masked\r\n"


def life(vm, name, rtc=False, sgi=False, timeout=60):
    """One life of the direct guest: up, its 200 timer interrupts without an
    exit, its RTC interrupt (with rtc) likewise and its pending bits, 50 SGIs to its vCPU 1 and
    their answers, then vCPU 1 off and on and its timer (with sgi), then the
    masked spin."""
    vm.expect(r"\[%s\] direct: up\r\n" % name, timeout=timeout)
    m = vm.expect(RESULT % name, timeout=timeout)
    assert (int(m.group(1)), int(m.group(2)), int(m.group(3))) == (200, 0, 0), \
        vm.describe("timer ticks, IRQ exits, stray interrupts: %s" % (m.groups(),))
    if rtc:
        m = vm.expect(r"\[%s\] direct: RTC (\d+) interrupt\(s\), (\d+) IRQ exits\r\n" % name,
                      timeout=timeout)
        assert (int(m.group(1)), int(m.group(2))) == (1, 0), vm.describe("RTC %s" % (m.groups(),))
        # GICD_ISPENDR/ICPENDR reach the hardware for its own interrupts
        # only: the RTC's SPI reads back pending and is taken, an SPI not
        # its own reads 0, ICPENDR clears it before it is taken
        m = vm.expect(r"\[%s\] direct: pending read (0x[0-9a-f]+), taken (\w+), after ICPENDR "
                      r"(0x[0-9a-f]+) and (\d+) taken, (\d+) IRQ exits\r\n" % name,
                      timeout=timeout)
        assert m.groups() == ("0x4", "yes", "0x0", "0", "0"), \
            vm.describe("pending state %s" % (m.groups(),))
    if sgi:
        m = vm.expect(r"\[%s\] direct: SGI (\d+) pings, (\d+) pongs, (\d+) IRQ exits\r\n" % name,
                      timeout=timeout)
        assert tuple(int(x) for x in m.groups()) == (50, 50, 0), \
            vm.describe("SGIs %s" % (m.groups(),))
        # vCPU 1 off (PSCI CPU_OFF) and on again: its timer still reaches
        # it directly, 5 of 5
        m = vm.expect(r"\[%s\] direct: vCPU 1 ([a-z ]+), (\d+) lives, (\d+) timer interrupts, "
                      r"(\d+) IRQ exits\r\n" % name, timeout=timeout)
        assert m.groups() == ("off and on", "2", "5", "0"), \
            vm.describe("vCPU 1 off and on: %s" % (m.groups(),))
    vm.expect(SPINNING % name, timeout=timeout)


def monitor(vm, cmd, want, timeout=30):
    """A monitor command, then what it must print (the guest's own lines may
    come before or after the prompt: no exact framing)."""
    vm.sendline(cmd)
    return vm.expect(want, timeout=timeout)


def test_direct_timer_spi_stop_restart(qemu, image):
    """direct: its timer and RTC without an exit, then stop, start, restart
    while it spins masked; irq1 beside it: the virtual interface as ever"""
    vm = qemu(kernel=image("direct", "elf"), machine=SECURE_MACHINE, smp=4)
    vm.expect(r"boot: start mode secure,", timeout=60)
    life(vm, "direct", rtc=True, sgi=True)
    # beside it on CPU 2, a guest with the virtual CPU interface passes its tests
    check_irq_guest(vm, "irq1", 1)
    # spinning masked: stop must still take the CPU back
    monitor(vm, "stop direct", r"guest 'direct' stopped")
    monitor(vm, "list", r"direct\s+stopped")
    # the guest's lines and the monitor's answer come in either order
    vm.sendline("start direct")
    life(vm, "direct", rtc=True, sgi=True)
    vm.expect_seen(r"guest 'direct' started\r\n")
    vm.sendline("restart direct")
    life(vm, "direct", rtc=True, sgi=True)
    vm.expect_seen(r"guest 'direct' restarted\r\n")
    monitor(vm, "list", r"direct\s+running")
    assert "crashed" not in vm.output and "error" not in vm.output, vm.describe("an error")


def test_direct_guest_on_coloured_memory(qemu, image):
    """The whole real-time partition: direct interrupts on coloured memory,
    beside a coloured guest of the virtual interface, the hypervisor in
    colours of its own; still no IRQ exit, and stop takes the CPUs back"""
    vm = qemu(kernel=image("directcolour", "elf"), machine=SECURE_MACHINE, smp=4)
    vm.expect(r"hypervisor: its \d+ pages and \d+ page tables are in colours 28-31 "
              r"\(read back by ATS1HR\)", timeout=60)
    life(vm, "direct", rtc=True, sgi=True)
    check_irq_guest(vm, "irq1", 1)
    monitor(vm, "stop direct", r"guest 'direct' stopped")
    vm.sendline("info")
    vm.expect(r"colors: guest 'direct': 0-15, 16 of 32: ", timeout=30)
    assert "crashed" not in vm.output and "error" not in vm.output, vm.describe("an error")


def test_direct_watchdog_and_crash_while_masked(qemu, image):
    """directwd starves its watchdog, directcrash faults for good, each with
    interrupts masked: both are restarted, three times over (their lines
    interleave: each guest's own are checked in order, apart)"""
    vm = qemu(kernel=image("directwd", "elf"), machine=SECURE_MACHINE, smp=4)
    for _ in range(3):
        life(vm, "directwd")
        vm.expect(r"guest 'directwd': watchdog expired \(not fed for 300 ms\): restarting",
                  timeout=30)
    # directcrash's lives run on their own CPU: wait for two of its crashes
    vm.expect_seen(r"(?s)guest 'directcrash' crashed on vCPU 0: .*"
                   r"guest 'directcrash' crashed on vCPU 0: ", timeout=60)
    lives = re.findall(r"\[directcrash\] direct: RESULT (\d+) ticks, (\d+) IRQ exits",
                       vm.output)
    assert len(lives) >= 2, vm.describe("directcrash: %d lives" % len(lives))
    assert all(l == ("200", "0") for l in lives), vm.describe("directcrash lives %s" % lives)
    assert "crashed" not in vm.output.replace("guest 'directcrash' crashed", ""), \
        vm.describe("another guest crashed")


def test_direct_smp(qemu, image):
    """The SMP/PSCI guest as a direct guest on three CPUs: CPU_ON/OFF, its
    spinlock, and SYSTEM_OFF while two vCPUs spin take every CPU back"""
    vm = qemu(kernel=image("directsmp", "elf"), machine=SECURE_MACHINE, smp=4)
    m = vm.expect(r"\[smp\] RESULT: (\d+) passed, (\d+) failed\r\n", timeout=120)
    assert (int(m.group(1)), int(m.group(2))) == (9, 0), vm.describe("smp tests")
    vm.expect_seen(r"\[smp\] smp: powering off with 2 vCPUs spinning\r\n")
    vm.expect(r"guest 'smp' halted \(PSCI SYSTEM_OFF\)", timeout=30)
    vm.sendline("list")
    vm.expect(r"smp\s+halted", timeout=30)


def test_direct_refused_without_secure_start(qemu, image):
    vm = qemu(kernel=image("direct"), smp=2)
    vm.expect(r"config: error: guest 'direct': property 'interrupts': \"direct\" needs "
              r"Partita started in the secure world[^\r\n]*this start: nonsecure-hyp\r\n",
              timeout=60)
    vm.expect(r"configuration has \d+ errors?: no guest started", timeout=60)
