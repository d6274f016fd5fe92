"""Partita's boot in QEMU, checked from the serial console alone.

The matrix: CPU model x CPU count x how Partita is started (the zImage-style
partita.bin or partita.elf in non-secure HYP, partita.elf in the secure
world).  Then the monitor commands, and the platforms Partita must refuse:
no HYP mode, and a host device tree whose GIC has no virtualization
extensions.
"""
import re
import subprocess

import pytest

from conftest import BOOT_TIMEOUT, PROMPT, QEMU_BIN, boot_to_prompt, check, command, run_info

HYP_MACHINE = "virt,virtualization=on"
SECURE_MACHINE = "virt,virtualization=on,secure=on"

# how Partita is started: (image fixture, machine, start mode, PSCI line)
STARTS = {
    "bin-hyp": ("partita_bin", HYP_MACHINE, "nonsecure-hyp", "smc"),
    "elf-hyp": ("partita_elf", HYP_MACHINE, "nonsecure-hyp", "smc"),
    "elf-secure": ("partita_elf", SECURE_MACHINE, "secure", "none"),
}
CPUS = ["cortex-a15", "cortex-a7"]
# -smp and the -m that goes with it (the memory line is checked against -m)
SMP_MEM = [(1, "256M"), (4, "1G")]
# where QEMU's -kernel puts each image: a zImage 0x10000 into RAM, the ELF
# at its physical address
LOAD = {"partita_bin": 0x40010000, "partita_elf": 0x40200000}


# ---- the boot matrix --------------------------------------------------------
@pytest.mark.parametrize("smp,mem", SMP_MEM, ids=lambda v: "smp%d" % v if isinstance(v, int) else v)
@pytest.mark.parametrize("cpu", CPUS)
@pytest.mark.parametrize("start", list(STARTS))
def test_boot(qemu, request, start, cpu, smp, mem):
    image, machine, mode, psci = STARTS[start]
    vm = qemu(kernel=request.getfixturevalue(image), machine=machine, cpu=cpu, smp=smp, mem=mem)
    boot_to_prompt(vm, smp, mode, psci, mem, load=LOAD[image])
    run_info(vm, smp, mode, mem)


@pytest.mark.parametrize("smp,mem", [(2, "128M"), (2, "3G"), (8, "1G")],
                         ids=["smp2-128M", "smp2-3G", "smp8-1G"])
def test_boot_sizes(qemu, partita_bin, smp, mem):
    """Little RAM, the most a 32-bit virt has below 4 GiB (3G), and the GICv2 limit of 8 CPUs."""
    vm = qemu(kernel=partita_bin, smp=smp, mem=mem)
    boot_to_prompt(vm, smp, "nonsecure-hyp", "smc", mem, load=LOAD["partita_bin"])
    run_info(vm, smp, "nonsecure-hyp", mem)


# ---- the monitor --------------------------------------------------------------
@pytest.fixture
def monitor(qemu, partita_bin):
    """Partita at its prompt (partita.bin, non-secure HYP, 4 CPUs)."""
    vm = qemu(kernel=partita_bin, smp=4)
    boot_to_prompt(vm, 4, "nonsecure-hyp", "smc", "1G")
    return vm


def test_help(monitor):
    out = command(monitor, "help")
    names = [l.split()[0] for l in out if l.strip()]
    # these three at least (later commands may join them), each once
    for name in ("help", "info", "version"):
        check(monitor, names.count(name) == 1, "help lists %s, not %s once" % (names, name))
    for l in out:
        check(monitor, len(l.split(None, 1)) == 2, "help line %r has no description" % l)


def test_version(monitor):
    out = command(monitor, "version")
    check(monitor, len(out) == 1 and re.fullmatch(r"Partita \S+ \(built .+\)", out[0]),
          "version printed %r" % out)
    banner = re.search(r"Partita (\S+) - ARMv7-A", monitor.output).group(1)
    check(monitor, out[0].split()[1] == banner, "version %r, banner %r" % (out[0], banner))


def test_info(monitor):
    run_info(monitor, 4, "nonsecure-hyp", "1G")


def test_unknown_command(monitor):
    out = command(monitor, "foo")
    check(monitor, out == ["unknown command 'foo' (try 'help')"], "foo printed %r" % out)
    out = command(monitor, "frobnicate now please")
    check(monitor, out == ["unknown command 'frobnicate' (try 'help')"],
          "frobnicate printed %r" % out)
    # the monitor still works after errors
    check(monitor, command(monitor, "help")[0].split()[0] == "help", "help after errors")


def test_echo_and_line_editing(monitor):
    vm = monitor
    vm.send("hel")
    vm.expect(r"hel")                       # echoed as typed, before Enter
    vm.send("px")
    vm.expect(r"px")
    vm.send("\x7f\x7f")                     # DEL twice erases "px"
    vm.expect(r"\x08 \x08\x08 \x08")
    vm.send("\x08\x08")                     # backspace too; then retype
    vm.expect(r"\x08 \x08\x08 \x08")
    vm.send("elp")
    vm.expect(r"elp")
    vm.send("\r")
    vm.expect(r"\r\n  help ")
    vm.expect(PROMPT)
    # an empty line and a line of spaces: just a new prompt
    start = vm.mark()
    vm.send("\r")
    vm.expect(PROMPT)
    check(vm, vm.since(start) == "\r\n" + PROMPT, "empty line printed %r" % vm.since(start))
    start = vm.mark()
    vm.send("   \r")
    vm.expect(PROMPT)
    check(vm, vm.since(start) == "   \r\n" + PROMPT, "blank line printed %r" % vm.since(start))
    out = command(vm, "  version  ")
    check(vm, out and out[0].startswith("Partita "), "'  version  ' printed %r" % out)
    start = vm.mark()
    vm.send("version\n")                   # a bare LF ends a line too
    vm.expect(PROMPT)
    check(vm, vm.since(start).startswith("version\r\nPartita "),
          "'version\\n' printed %r" % vm.since(start))
    # a long line arrives whole, even pasted at full speed (16-deep FIFO)
    long_cmd = "x" * 100
    start = vm.mark()
    vm.send(long_cmd + "\r", delay=0)
    vm.expect(PROMPT)
    check(vm, vm.since(start) == "%s\r\nunknown command '%s' (try 'help')\r\n%s"
          % (long_cmd, long_cmd, PROMPT), "pasted line: %r" % vm.since(start))
    # the line editor keeps 127 characters and drops the rest
    start = vm.mark()
    vm.sendline("y" * 140)
    vm.expect(PROMPT)
    check(vm, vm.since(start) == "%s\r\nunknown command '%s' (try 'help')\r\n%s"
          % ("y" * 127, "y" * 127, PROMPT), "over-long line: %r" % vm.since(start))


# ---- platforms Partita must refuse ---------------------------------------------
@pytest.mark.parametrize("image", ["partita_bin", "partita_elf"])
@pytest.mark.parametrize("cpu", CPUS)
def test_no_hyp_mode(qemu, request, image, cpu):
    """Plain -M virt has no virtualization extensions: Partita starts in
    non-secure SVC, says why it cannot run, and stops."""
    vm = qemu(kernel=request.getfixturevalue(image), machine="virt", cpu=cpu, smp=2)
    vm.expect(r"error: Partita started in non-secure SVC mode: the bootloader did not "
              r"enter it in HYP mode[^\r\n]*\r\n", BOOT_TIMEOUT)
    vm.expect(r"error: [^\r\n]*Stopping\.\r\n")
    vm.expect_not(PROMPT, within=1.5)
    vm.expect_not(r"micro-hypervisor|CPUs online|\*\*\*", within=0)
    check(vm, vm.alive(), "QEMU exited: Partita should halt, not reset")


def _dtb_without_gich(tmp_path, machine, smp):
    dtb = str(tmp_path / "virt.dtb")
    r = subprocess.run(["timeout", "30", QEMU_BIN, "-M", "%s,dumpdtb=%s" % (machine, dtb),
                        "-cpu", "cortex-a15", "-smp", str(smp), "-m", "1G", "-nographic",
                        "-monitor", "none"], capture_output=True, text=True)
    assert r.returncode == 0, "dumpdtb failed: %s" % r.stderr
    path = subprocess.run(["fdtget", dtb, "/chosen", "stdout-path"], capture_output=True,
                          text=True, check=True)
    assert path.stdout.strip() == "/pl011@9000000"
    gic = "/intc@8000000"
    reg = subprocess.run(["fdtget", "-t", "x", dtb, gic, "reg"], capture_output=True,
                         text=True, check=True).stdout.split()
    assert len(reg) == 16, "GIC reg %s: expected GICD, GICC, GICH, GICV" % reg
    subprocess.run(["fdtput", "-t", "x", dtb, gic, "reg"] + reg[:8], check=True)
    after = subprocess.run(["fdtget", "-t", "x", dtb, gic, "reg"], capture_output=True,
                           text=True, check=True).stdout.split()
    assert after == reg[:8]
    return dtb


@pytest.mark.parametrize("start", ["bin-hyp", "elf-secure"])
def test_dt_gic_without_virtualization(qemu, request, tmp_path, start):
    """The host DT's GIC reg lists only GICD and GICC: Partita names the
    missing GICH/GICV and stops."""
    image, machine, mode, psci = STARTS[start]
    dtb = _dtb_without_gich(tmp_path, machine, 2)
    vm = qemu(kernel=request.getfixturevalue(image), machine=machine, smp=2, dtb=dtb)
    m = vm.expect(r"error: ([^\r\n]*)\r\n", BOOT_TIMEOUT)
    check(vm, "GICH" in m.group(1) and "intc@8000000" in m.group(1),
          "the first error line %r does not name GICH and the GIC node" % m.group(0))
    vm.expect(r"error: Partita cannot run on this platform; stopping\.\r\n")
    vm.expect_not(PROMPT, within=1.5)
    vm.expect_not(r"CPUs online|\*\*\*", within=0)
