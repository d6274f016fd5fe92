"""Virtual interrupts: the irq test guest under Partita with one,
two and four vCPUs on cortex-a15 and cortex-a7.  The guest checks the
virtual timer rate, WFI sleeping, EOI without a trap, pending/active state,
the physical counter read from USR, priorities and masking, an emulated
level interrupt, IPI counts and the SGI target filters; this side checks
every test passed and Partita answers."""
import pytest

from conftest import command
from helpers import (boot_image, check_guest, check_hypervisor_clean, check_irq_guest,
                     wait_halted)

CASES = [("irq", 4), ("irq2", 2), ("irq1", 1)]


@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
@pytest.mark.parametrize("config,vcpus", CASES, ids=[c[0] for c in CASES])
def test_interrupt_guest(qemu, image, cpu, config, vcpus):
    vm = qemu(kernel=image(config), cpu=cpu, smp=4)
    check_irq_guest(vm, config, vcpus)
    vm.expect(r"guest '%s' halted \(PSCI SYSTEM_OFF\)\r\n" % config, timeout=60)
    assert "help" in " ".join(command(vm, "help"))


def test_passthrough_spi_state(qemu, image):
    """A passed-through device's SPI (QEMU's PL031) on a guest with a
    virtual CPU interface (guests/test/rtc.c): its pending state as the
    guest reads GICD_ISPENDR is the physical line's, enabled or not;
    enabling delivers it at once; after the handler it is not pending; a
    line that dropped, or an SPI disabled, is not taken; GICD_ISPENDR and
    GICD_ICPENDR set and clear the physical pending state."""
    vm, start = boot_image(qemu, image, "rtc", "cortex-a15")
    wait_halted(vm, ["rtc"], start)
    text = vm.since(start)
    check_guest(vm, "rtc", 11, text)
    check_hypervisor_clean(vm, text)
