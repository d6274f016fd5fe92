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

test_sd_card boots as a user would from an SD card: no key pressed, U-Boot's
own distro boot finds the first partition of a disk image (an MBR and an
ext2 file system made by mke2fs -d, no root needed) and boots what it finds
there: extlinux/extlinux.conf naming partita.uImage (legacy image), or a
boot.scr (mkimage -T script) that loads partita.itb (FIT) and runs bootm.
test_orangepi_sd_card does the same with a real board's U-Boot (Debian's
u-boot-sunxi, SPL included) on QEMU's Allwinner H3 board.
"""
import os
import struct
import subprocess

import pytest

from conftest import BOOT_TIMEOUT, boot_to_prompt, check, command, run_info
from helpers import IMAGES, check_guest, check_hypervisor_clean, wait_halted

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
    start = vm.matched()
    boot_to_prompt(vm, 4, "nonsecure-hyp", "smc", "1G", start=start, load=addr)
    run_info(vm, 4, "nonsecure-hyp", "1G")
    out = command(vm, "version")
    check(vm, out[0].startswith("Partita "), "version after U-Boot: %r" % out)
    out = command(vm, "nosuch")
    check(vm, out == ["unknown command 'nosuch' (try 'help')"], "nosuch: %r" % out)
    vm.expect_not(r"\*\*\* cpu", within=0)


# ---- from a disk, as from an SD card --------------------------------------------
SECTOR = 512
PART_START = 2048                   # the first partition at 1 MiB, as fdisk does


def make_disk(path, files, size_mib=16, spl=None):
    """A disk image with one bootable Linux partition holding `files`
    ({path in the file system: bytes}) in an ext2 file system; `spl`: a
    boot loader written at 8 KiB, where Allwinner's boot ROM reads it."""
    root = path + ".d"
    for name, data in files.items():
        dst = os.path.join(root, name)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
    nsect = size_mib * 2048 - PART_START
    with open(path, "wb") as f:
        f.truncate(size_mib << 20)
    subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", "-d", root,
                    "-E", "offset=%d" % (PART_START * SECTOR), path, "%dk" % (nsect // 2)],
                   check=True, capture_output=True)
    # MBR: one entry, bootable (0x80), type 0x83 (Linux), LBA start and size
    entry = struct.pack("<B3sB3sII", 0x80, b"\xfe\xff\xff", 0x83, b"\xfe\xff\xff",
                        PART_START, nsect)
    with open(path, "r+b") as f:
        f.seek(446)
        f.write(entry)
        f.seek(510)
        f.write(b"\x55\xaa")
        if spl:
            assert 8192 + len(spl) <= PART_START * SECTOR, "the SPL runs into the partition"
            f.seek(8192)
            f.write(spl)
    return path


# U-Boot finding a boot file on the disk: Debian 12's qemu_arm build (and
# Debian 13's sunxi one) runs the distro boot scripts ("Found FILE");
# Debian 13's qemu_arm (2025.01) the standard boot's bootflow scan, which
# lists the file on a bootflow's line ("extlinux ready ... FILE")
def found_line(path):
    return r"(?:Found (?:U-Boot script )?%s|(?:extlinux|script) +ready .*%s)" % (path, path)


def boot_script(text, tmp_path):
    """A U-Boot script image (boot.scr) made with mkimage."""
    src, out = tmp_path / "boot.cmd", tmp_path / "boot.scr"
    src.write_text(text)
    subprocess.run(["mkimage", "-A", "arm", "-O", "linux", "-T", "script", "-C", "none",
                    "-d", str(src), str(out)], check=True, capture_output=True)
    return out.read_bytes()


EXTLINUX = """# Partita from an SD card: U-Boot's distro boot reads this file
default partita
label partita
    kernel /partita.uImage
"""
BOOT_CMD = """load ${devtype} ${devnum}:${distro_bootpart} ${kernel_addr_r} partita.itb
bootm ${kernel_addr_r}#board-dt - ${fdt_addr}
"""
# U-Boot's kernel_addr_r on qemu_arm; both images put Partita 4 KiB after it
KERNEL_ADDR_R = 0x40400000


def boot_files(kind, image, tmp_path, extlinux, boot_cmd):
    """The files of a boot partition with the smp image, as `kind` wants
    them, and what U-Boot prints on finding and on loading them"""
    if kind == "extlinux-uImage":
        files = {"extlinux/extlinux.conf": extlinux.encode(),
                 "partita.uImage": open(image("smp", "uImage"), "rb").read()}
        return files, found_line(r"/extlinux/extlinux\.conf"), r"## Booting kernel from Legacy Image"
    files = {"boot.scr": boot_script(boot_cmd, tmp_path),
             "partita.itb": open(image("smp", "itb"), "rb").read()}
    return files, found_line(r"/boot\.scr"), r"## Loading kernel from FIT Image"


def sd_card(kind, image, tmp_path):
    files, found, loaded = boot_files(kind, image, tmp_path, EXTLINUX, BOOT_CMD)
    return make_disk(str(tmp_path / "sd.img"), files), found, loaded


@pytest.mark.deadline(150)
@pytest.mark.parametrize("kind", ["extlinux-uImage", "bootscr-FIT"])
def test_sd_card(qemu, image, tmp_path, kind):
    """U-Boot's autoboot finds Partita on the disk; Partita comes up on all
    4 CPUs in HYP and runs the smp guest (every vCPU, every test) to its end."""
    disk, found, loaded = sd_card(kind, image, tmp_path)
    vm = qemu(machine="virt,virtualization=on", cpu="cortex-a15", smp=4, mem="1G",
              bios=UBOOT, lifetime=150,
              extra=["-drive", "if=none,file=%s,format=raw,id=sd" % disk,
                     "-device", "virtio-blk-device,drive=sd", "-nic", "none"])
    vm.expect(r"U-Boot 20\d\d", BOOT_TIMEOUT)
    vm.expect(r"Scanning (virtio 0:1\.\.\.|bootdev 'virtio-blk[^']*')", BOOT_TIMEOUT)
    vm.expect(found, BOOT_TIMEOUT)
    vm.expect(loaded, BOOT_TIMEOUT)
    vm.expect(r"Verifying (Checksum|Hash Integrity) \.\.\. (sha256\+ )?OK", BOOT_TIMEOUT)
    vm.expect(r"XIP Kernel Image \(no loading done\)", BOOT_TIMEOUT)
    vm.expect(r"Starting kernel \.\.\.\r\n", BOOT_TIMEOUT)
    start = vm.matched()
    boot_to_prompt(vm, 4, "nonsecure-hyp", "smc", "1G", start=start,
                   load=KERNEL_ADDR_R + 0x1000)
    wait_halted(vm, ["smp"], start)
    text = vm.since(start)
    check_guest(vm, "smp", IMAGES["smp"]["smp"], text)
    check_hypervisor_clean(vm, text)
    out = command(vm, "version")
    check(vm, out[0].startswith("Partita "), "version after U-Boot: %r" % out)


# ---- a real board's U-Boot: Debian's u-boot-sunxi on QEMU's orangepi-pc ---------
# QEMU's orangepi-pc (Allwinner H3) boots like the board: its boot ROM loads
# U-Boot's SPL from the SD card at 8 KiB, the SPL sets up DRAM and loads
# U-Boot.  Debian ships no orangepi_pc build; orangepi_plus is the same H3
# SoC and console.  This U-Boot is built with CONFIG_ARMV7_NONSEC/VIRT and
# CONFIG_ARMV7_PSCI: it enters Partita in non-secure HYP, sets CNTFRQ
# (24 MHz), and adds /psci and /memory to the board's DT (Debian's
# sun8i-h3-orangepi-pc.dtb, loaded from the card): the secondaries start
# through U-Boot's own PSCI code, not QEMU's.  No -kernel: QEMU adds nothing.
SUNXI_UBOOT = "/usr/lib/u-boot/orangepi_plus/u-boot-sunxi-with-spl.bin"
OPI_DTB = "sun8i-h3-orangepi-pc.dtb"
OPI_EXTLINUX = """default partita
label partita
    kernel /partita.uImage
    fdt /%s
""" % OPI_DTB
OPI_BOOT_CMD = """load ${devtype} ${devnum}:${distro_bootpart} ${kernel_addr_r} partita.itb
load ${devtype} ${devnum}:${distro_bootpart} ${fdt_addr_r} %s
bootm ${kernel_addr_r}#board-dt - ${fdt_addr_r}
""" % OPI_DTB
OPI_KERNEL_ADDR_R = 0x42000000      # sunxi's kernel_addr_r
OPI_BOARD = {
    "ram_base": 0x40000000,
    "lines": [r"gic: GICD 0x01c81000 GICC 0x01c82000 GICH 0x01c84000 GICV 0x01c86000, "
              r"maintenance IRQ 25, \d+ IRQs\r\n",
              r"timer: 24000000 Hz, virtual IRQ 27, hypervisor IRQ 26\r\n",
              r"console: /soc/serial@1c28000 \(snps,dw-apb-uart\), IRQ 32\r\n"],
}


@pytest.mark.skipif(not os.path.exists(SUNXI_UBOOT),
                    reason="%s missing (apt-get install u-boot-sunxi:armhf)" % SUNXI_UBOOT)
@pytest.mark.deadline(150)
@pytest.mark.parametrize("kind", ["extlinux-uImage", "bootscr-FIT"])
def test_orangepi_sd_card(qemu, image, build_dir, tmp_path, kind):
    dtb = open(os.path.join(build_dir, "dtbs", OPI_DTB), "rb").read()
    files, found, loaded = boot_files(kind, image, tmp_path, OPI_EXTLINUX, OPI_BOOT_CMD)
    files[OPI_DTB] = dtb
    disk = make_disk(str(tmp_path / "sd.img"), files, size_mib=32,
                     spl=open(SUNXI_UBOOT, "rb").read())
    vm = qemu(machine="orangepi-pc", cpu="cortex-a7", smp=4, mem="1G", lifetime=150,
              extra=["-drive", "if=sd,format=raw,file=%s" % disk, "-nic", "none"])
    vm.expect(r"U-Boot SPL 20\d\d", BOOT_TIMEOUT)
    vm.expect(r"CPU:\s+Allwinner H3", BOOT_TIMEOUT)
    vm.expect(r"Scanning mmc 0:1\.\.\.", 60)
    vm.expect(found, BOOT_TIMEOUT)
    vm.expect(loaded, BOOT_TIMEOUT)
    vm.expect(r"XIP Kernel Image \(no loading done\)", BOOT_TIMEOUT)
    vm.expect(r"Starting kernel \.\.\.\r\n", BOOT_TIMEOUT)
    start = vm.matched()
    boot_to_prompt(vm, 4, "nonsecure-hyp", "smc", "1G", start=start,
                   load=OPI_KERNEL_ADDR_R + 0x1000, board=OPI_BOARD)
    wait_halted(vm, ["smp"], start)
    text = vm.since(start)
    check_guest(vm, "smp", IMAGES["smp"]["smp"], text)
    check_hypervisor_clean(vm, text)
