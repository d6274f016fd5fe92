"""The debug registers for guests: guests/test/debug.c on
a CPU of its own (DBGDIDR, the OS Lock, monitor mode, a breakpoint at its
address and privilege, a store watchpoint, comparators that ask for Hyp
mode changed into nothing), beside a guest running the same code on another
CPU that sees none of it; then three guests on one shared CPU, where one
keeps its breakpoint and watchpoint across switches and the two others, at
the same addresses, never see them.  cortex-a15 and a7."""
import re

import pytest

from helpers import check_guest, check_hypervisor_clean, wait_halted


@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
def test_debug_registers_for_a_guest(qemu, image, cpu):
    vm = qemu(kernel=image("debug"), cpu=cpu, smp=4)
    start = vm.mark()
    wait_halted(vm, ["dbg", "other"], start)
    text = vm.since(start)
    check_guest(vm, "dbg", 7, text)
    check_guest(vm, "other", 1, text)
    # both CPUs' comparators as QEMU gives them (DBGDIDR 0x3515f021, 0x3515f005)
    want = {"cortex-a15": (6, 4), "cortex-a7": (6, 4)}[cpu]
    assert "[dbg] debug: v7.1, %d breakpoints, %d watchpoints" % want in text, text
    assert "[other] debug: 0 debug events in 20 rounds" in text, text
    check_hypervisor_clean(vm, text)


def test_debug_registers_on_a_shared_cpu(qemu, image):
    vm = qemu(kernel=image("debugshared"), smp=4)
    start = vm.mark()
    wait_halted(vm, ["dbga", "dbgb", "dbgc"], start)
    text = vm.since(start)
    for g in ("dbga", "dbgb", "dbgc"):
        check_guest(vm, g, 1, text)
    assert "[dbga] debug: 40 debug events in 20 rounds" in text, text
    assert re.search(r"sched: CPU 1 shared by dbga/vcpu0 .*dbgc/vcpu0 .*dbgb/vcpu0", text), text
    check_hypervisor_clean(vm, text)
