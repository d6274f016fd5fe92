"""A fault in the hypervisor: the boot CPU is made to take
a data abort, to overflow its stack into the guard page below it, or to
take an IRQ in HYP (which runs with IRQs masked); it must
print mode, PC, HSR, HDFAR/HIFAR/HPFAR and the registers and stop, while the
other CPUs and the guest on them go on."""
import re

import pytest



@pytest.mark.parametrize("kind,headline", [
    ("fault", r"\*\*\* cpu0: fatal HYP exception: data abort"),
    ("stack", r"\*\*\* cpu0: HYP stack overflow \(guard page hit\) during data abort"),
    ("text", r"\*\*\* cpu0: fatal HYP exception: data abort"),
    # HYP runs with IRQs masked: the IRQ vector's HYP half is a fatal report
    ("irq", r"\*\*\* cpu0: fatal HYP exception: IRQ taken in HYP \(HYP runs with IRQs "
            r"masked: a hypervisor bug\)"),
])
def test_hyp_fault_is_reported_and_contained(qemu, image, kind, headline):
    vm = qemu(kernel=image("fatal"), smp=4)
    vm.expect(r"\[rt\] tick 1000:", timeout=30)
    vm.sendline("help")             # the monitor answers before
    vm.expect(r"selftest fault\|stack\|text")
    vm.sendline("selftest " + kind)
    vm.expect(headline, timeout=60)
    m = vm.expect(r"mode 0x1a \(HYP\)  PC 0x(f[0-9a-f]{7})  CPSR 0x[0-9a-f]{8}  HSR 0x([0-9a-f]{8})")
    hsr = int(m.group(2), 16)
    if kind != "irq":                           # an IRQ leaves HSR as it was
        assert hsr >> 26 == 0x25                # data abort taken in HYP
    if kind == "text":
        assert hsr & 0x3c == 0x0c, hex(hsr)     # DFSC: permission fault
        assert hsr & (1 << 6)                   # a write (WnR)
    m = vm.expect(r"HDFAR 0x([0-9a-f]{8})  HIFAR 0x[0-9a-f]{8}  HPFAR 0x[0-9a-f]{8}")
    if kind == "text":      # a permission fault on the image's first page
        assert int(m.group(1), 16) == 0xf0000000
    vm.expect(r"r0  0x[0-9a-f]{8}  r1  0x[0-9a-f]{8}  r2  0x[0-9a-f]{8}  r3  0x[0-9a-f]{8}")
    vm.expect(r"sp  0x[0-9a-f]{8}  lr  0x[0-9a-f]{8}")
    vm.expect(r"\*\*\* cpu0 stopped; the other CPUs go on")
    # the guest on CPU 2 keeps ticking
    last = int(re.findall(r"\[rt\] tick (\d+):", vm.output)[-1])
    m = vm.expect(r"\[rt\] tick (\d+):", timeout=15)
    m = vm.expect(r"\[rt\] tick (\d+):", timeout=15)
    assert int(m.group(1)) >= last + 2000
