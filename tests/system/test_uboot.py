"""Partita booted by a real bootloader: Debian's U-Boot for QEMU (qemu_arm).

QEMU starts U-Boot (-bios) in the most privileged mode it has: with
`virtualization=on` and no `secure=on` that is non-secure HYP.  U-Boot's
armv7 reset code (arch/arm/cpu/armv7/start.S) switches to SVC "except if in
HYP mode already", and Debian's qemu_arm is built without
CONFIG_ARMV7_NONSEC/CONFIG_ARMV7_VIRT, so `bootz` neither drops nor raises
the mode: it jumps to the kernel in HYP, and Partita starts as
nonsecure-hyp.

partita.bin is put in RAM by QEMU's generic loader at addresses that are
4 KiB aligned but not 2 MiB aligned: Partita is position independent and
must run wherever a bootloader drops a zImage.  0x403ff000 also makes the
image straddle a 2 MiB boundary (0x40400000); 0x7d001000 is near the top of
the 1 GiB, just below U-Boot's relocated copy, heap and device tree.

`bootz` needs the device tree argument: without one this U-Boot prints
"FDT and ATAGS support not compiled in" and resets the board.
"""
import os

import pytest

from conftest import BOOT_TIMEOUT, boot_to_prompt, check, command, run_info

UBOOT = "/usr/lib/u-boot/qemu_arm/u-boot.bin"
UBOOT_PROMPT = r"=> "

pytestmark = pytest.mark.skipif(not os.path.exists(UBOOT),
                                reason="%s missing (apt-get install u-boot-qemu)" % UBOOT)


def uboot_prompt(vm):
    """Stop U-Boot's autoboot and wait for its prompt."""
    vm.expect(r"U-Boot 20\d\d", BOOT_TIMEOUT)
    vm.expect(r"Hit any key to stop autoboot", BOOT_TIMEOUT)
    vm.send(" ")
    vm.expect(UBOOT_PROMPT, BOOT_TIMEOUT)


@pytest.mark.deadline(120)
@pytest.mark.parametrize("addr", [0x40201000, 0x403ff000, 0x7d001000],
                         ids=lambda a: "0x%08x" % a)
@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
def test_bootz(qemu, partita_bin, cpu, addr):
    vm = qemu(machine="virt,virtualization=on", cpu=cpu, smp=4, mem="1G",
              bios=UBOOT,
              extra=["-device", "loader,file=%s,addr=0x%x,force-raw=on" % (partita_bin, addr)])
    uboot_prompt(vm)
    vm.sendline("bootz 0x%x - ${fdtcontroladdr}" % addr)
    # U-Boot checks the zImage header (magic, start/end) and boots it in place
    m = vm.expect(r"Kernel image @ (0x[0-9a-f]+) \[ 0x0+ - (0x[0-9a-f]+) \]\r\n", BOOT_TIMEOUT)
    check(vm, int(m.group(1), 16) == addr, "U-Boot: %r" % m.group(0))
    vm.expect(r"Starting kernel \.\.\.\r\n", BOOT_TIMEOUT)
    start = vm.mark()
    boot_to_prompt(vm, 4, "nonsecure-hyp", "smc", "1G", start=start, load=addr)
    run_info(vm, 4, "nonsecure-hyp", "1G")
    out = command(vm, "version")
    check(vm, out[0].startswith("Partita "), "version after U-Boot: %r" % out)
    out = command(vm, "nosuch")
    check(vm, out == ["unknown command 'nosuch' (try 'help')"], "nosuch: %r" % out)
    vm.expect_not(r"\*\*\* cpu", within=0)
