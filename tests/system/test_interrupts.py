"""Virtual interrupts (issue 4): the irq test guest under Partita with one,
two and four vCPUs on cortex-a15 and cortex-a7.  The guest checks the
virtual timer rate, WFI sleeping, the timer still high after its EOI
taken again (hardware-linked), EOI without a trap, pending/active state,
priorities and masking, an emulated level interrupt, IPI counts and the SGI
target filters; this side checks every test passed and Partita answers."""
import re

import pytest

from conftest import command

CASES = [("irq", 4), ("irq2", 2), ("irq1", 1)]


@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
@pytest.mark.parametrize("config,vcpus", CASES, ids=[c[0] for c in CASES])
def test_interrupt_guest(qemu, image, cpu, config, vcpus):
    vm = qemu(kernel=image(config), cpu=cpu, smp=4)
    m = vm.expect(r"\[%s\] RESULT: (\d+) passed, (\d+) failed" % config, timeout=60)
    out = vm.output
    fails = re.findall(r"\[%s\] TEST (\S+): FAIL (.*)" % config, out)
    assert not fails, "failing interrupt tests: %s" % fails
    passed = int(m.group(1))
    # the IPI and SGI-filter tests need at least two vCPUs
    assert passed == (13 if vcpus > 1 else 10), out
    assert int(m.group(2)) == 0
    vm.expect(r"guest '%s' halted \(PSCI SYSTEM_OFF\)\r\n" % config, timeout=10)
    assert "help" in " ".join(command(vm, "help"))
