"""Virtual interrupts: the irq test guest under Partita with one,
two and four vCPUs on cortex-a15 and cortex-a7.  The guest checks the
virtual timer rate, WFI sleeping, EOI without a trap, pending/active state,
the physical counter read from USR, priorities and masking, an emulated
level interrupt, IPI counts and the SGI target filters; this side checks
every test passed and Partita answers."""
import pytest

from conftest import command
from helpers import check_irq_guest

CASES = [("irq", 4), ("irq2", 2), ("irq1", 1)]


@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
@pytest.mark.parametrize("config,vcpus", CASES, ids=[c[0] for c in CASES])
def test_interrupt_guest(qemu, image, cpu, config, vcpus):
    vm = qemu(kernel=image(config), cpu=cpu, smp=4)
    check_irq_guest(vm, config, vcpus)
    vm.expect(r"guest '%s' halted \(PSCI SYSTEM_OFF\)\r\n" % config, timeout=10)
    assert "help" in " ".join(command(vm, "help"))
