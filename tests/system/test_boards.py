"""Partita off QEMU's virt board: the Versatile Express, Orange Pi PC
(Allwinner H3), i.MX7D SABRE, i.MX6UL EVK and ASPEED AST2600 EVB models with
the device trees Debian ships for them, and CPUs started without PSCI.

vexpress-a15 (QEMU 7.2): RAM at 0x80000000, GIC at 0x2c001000 (GICH
0x2c004000, GICV 0x2c006000), PL011 at 0x1c090000 behind the motherboard's
interrupt-map, 2 CPUs in Debian's vexpress-v2p-ca15-tc1.dtb (unmodified,
extracted from the same linux-image-*-armmp package as the Linux guest;
`make images` puts it in build/dtbs).  The DT has no PSCI and no
enable-method: the second CPU starts through the vexpress system flags.
QEMU starts the board in the secure world by default (secure=on: Partita is
the firmware) or in non-secure HYP with secure=off; both are tested.  QEMU
parks the secondary in its own boot code, waiting in WFI on SYS_FLAGS, as
the board's boot monitor does.

Guests see the virtual board of virt on both (RAM at IPA 0x40000000, GIC at
0x08000000, PL011 at 0x09000000): the same guest binaries run unchanged.

Spin-table: QEMU has no board whose firmware parks CPUs on a spin table, so
the test uses virt in the secure world with QEMU's own device tree given
enable-method = "spin-table" and cpu-release-addr per CPU (fdtput, dtc).
Partita's secure code plays the firmware (a secondary it drops to
non-secure HYP waits on its release address); the hypervisor then starts
the CPU by the spin-table protocol: the DT parse, the store of the entry to
the right address (64-bit for two cells, 32-bit for one), the cache clean
and SEV, and an entry that finds its index without context.
"""
import os
import re
import subprocess
import time

import pytest

from conftest import (BUILD, PROMPT, QEMU_BIN, boot_to_prompt, check, command, machine_takes_cpu,
                      run_info)
from helpers import IMAGES, check_guest, check_hypervisor_clean, wait_for, wait_halted

VEXPRESS_DTB = os.path.join(BUILD, "dtbs", "vexpress-v2p-ca15-tc1.dtb")
VEXPRESS_RAM = 0x80000000
VEXPRESS = {
    "ram_base": VEXPRESS_RAM,
    "lines": [r"gic: GICD 0x2c001000 GICC 0x2c002000 GICH 0x2c004000 GICV 0x2c006000, "
              r"maintenance IRQ 25, \d+ IRQs\r\n",
              r"timer: \d+ Hz, virtual IRQ 27, hypervisor IRQ 26\r\n",
              r"console: /bus@8000000/motherboard-bus@8000000/iofpga-bus@300000000/"
              r"serial@90000 \(arm,pl011\), IRQ 37, no stdout-path: /aliases/serial0\r\n"],
}
# secure=on is QEMU's default for vexpress: Partita starts as the firmware
VEXPRESS_STARTS = {"secure": "vexpress-a15,virtualization=on",
                   "nonsecure-hyp": "vexpress-a15,virtualization=on,secure=off"}
VEXPRESS_SMP, VEXPRESS_MEM = 2, "1G"


def linux_ready(vm, start, board, cpus):
    """Linux's ready line (with `cpus` CPUs), then its shell on the console"""
    t0 = time.monotonic()
    m = wait_for(vm, r"PARTITA-LINUX-READY (\S+) cpus=(\d+)", start, 300)
    print("Linux on %s under Partita: ready after %.1f s" % (board, time.monotonic() - t0))
    check(vm, m.group(2) == str(cpus), "Linux sees %s CPUs, configured %d" % (m.group(2), cpus))
    vm.send("\x01\x01\x01")
    vm.expect(r"input now goes to guest 'linux'")
    vm.sendline("")


@pytest.fixture(scope="session")
def vexpress_dtb():
    if not os.path.exists(VEXPRESS_DTB):
        pytest.fail("%s is missing: run `make images`" % VEXPRESS_DTB)
    return VEXPRESS_DTB


def vexpress(qemu, kernel, dtb, mode, cpu="cortex-a15", lifetime=120, extra=()):
    # the board's audio codec gets no host backend: conftest's `-audio none`
    return qemu(kernel=kernel, machine=VEXPRESS_STARTS[mode], cpu=cpu, smp=VEXPRESS_SMP,
                mem=VEXPRESS_MEM, dtb=dtb, lifetime=lifetime, extra=list(extra))


def vexpress_boot(vm, mode):
    start = vm.mark()
    lines = boot_to_prompt(vm, VEXPRESS_SMP, mode, r"none", VEXPRESS_MEM,
                           load=VEXPRESS_RAM + 0x10000, board=VEXPRESS)
    if mode == "nonsecure-hyp":
        # the second CPU came through the system flags; a secure start
        # sends it from QEMU's boot code into Partita's own pen instead
        check(vm, "cpu1: released through vexpress-sysflags at 0x1c010030" in lines,
              "cpu1 was not started through the vexpress system flags")
    return start


@pytest.mark.parametrize("mode", list(VEXPRESS_STARTS))
@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
def test_vexpress_boot(qemu, partita_bin, vexpress_dtb, cpu, mode):
    if not machine_takes_cpu(VEXPRESS_STARTS[mode], cpu):
        # QEMU 10's vexpress-a15 is the board as built, with Cortex-A15s
        # only; 7.2 took any CPU.  A7s boot on the i.MX and Allwinner boards
        pytest.skip("this QEMU's vexpress-a15 takes no %s" % cpu)
    vm = vexpress(qemu, partita_bin, vexpress_dtb, mode, cpu=cpu)
    vexpress_boot(vm, mode)
    run_info(vm, VEXPRESS_SMP, mode, VEXPRESS_MEM, ram_base=VEXPRESS_RAM)
    # console input by interrupt (SPI 5 through the motherboard's interrupt-map)
    out = command(vm, "version")
    check(vm, out[0].startswith("Partita "), "version: %r" % out)
    vm.expect_not(r"input is polled", within=0)


def test_an_alias_naming_itself(qemu, partita_bin, vexpress_dtb, tmp_path):
    """A host DT whose /aliases/serial0 is "serial0", not a full path (DT
    spec 3.3): refused as a path, never followed (libfdt 1.6 followed it as
    another alias until the hypervisor's stack ran out, before the console
    was up).  The console is then the first UART with a driver: the same
    PL011, and the monitor answers on it."""
    dtb = str(tmp_path / "vexpress-self-alias.dtb")
    subprocess.run(["cp", vexpress_dtb, dtb], check=True)
    subprocess.run(["fdtput", "-t", "s", dtb, "/aliases", "serial0", "serial0"], check=True)
    vm = vexpress(qemu, partita_bin, dtb, "secure")
    vm.expect(r"console: /bus@8000000/motherboard-bus@8000000/iofpga-bus@300000000/"
              r"serial@90000 \(arm,pl011\), IRQ 37, no stdout-path: "
              r"the first UART with a driver\r\n", timeout=60)
    vm.expect(PROMPT, timeout=60)
    out = command(vm, "version")
    check(vm, out[0].startswith("Partita "), "version: %r" % out)


# The traps guest only in the secure start: with secure=off QEMU removes
# the Security Extensions from the CPU, and then SMC is UNDEFINED and never
# reaches HCR.TSC's trap (QEMU target/arm pre_smc; ARM ARM B1.14.1) - a
# CPU no real Cortex-A15 board has.  On virt, QEMU keeps SMC trappable for
# its PSCI conduit, so test_guests covers the non-secure case there.
@pytest.mark.parametrize("mode,name,guest", [
    ("secure", "vexpress-smp", "smp"), ("nonsecure-hyp", "vexpress-smp", "smp"),
    ("secure", "vexpress-traps", "traps")])
def test_vexpress_guests(qemu, image, vexpress_dtb, name, guest, mode):
    """The smp guest with a vCPU on both CPUs (the one started through the
    flags included) and the trap-handling guest, unchanged from virt."""
    vm = vexpress(qemu, image(name), vexpress_dtb, mode)
    start = vexpress_boot(vm, mode)
    wait_halted(vm, [guest], start)
    text = vm.since(start)
    check_guest(vm, guest, IMAGES[guest][guest], text)
    check_hypervisor_clean(vm, text)
    if guest == "traps":    # the guest's DT describes virt's board, not vexpress
        check(vm, re.search(r"\[traps\] dt: memory 0x40000000\+0x01000000 cpus 1 ", text),
              "the guest did not see RAM at IPA 0x40000000")
    run_info(vm, VEXPRESS_SMP, mode, VEXPRESS_MEM, ram_base=VEXPRESS_RAM)


@pytest.mark.deadline(420)
def test_vexpress_linux(qemu, image, vexpress_dtb):
    """Debian's kernel as a guest on vexpress: boots to its shell, which
    answers through Partita's console (Ctrl-A three times), beside the echo
    guest; its DT is virt's (a PL011 at 0x09000000, 1 CPU)."""
    vm = vexpress(qemu, image("vexpress-linux"), vexpress_dtb, "nonsecure-hyp", lifetime=400)
    start = vexpress_boot(vm, "nonsecure-hyp")
    linux_ready(vm, start, "vexpress", 1)
    vm.sendline("echo B; cat /proc/device-tree/pl011@9000000/compatible; echo; echo E")
    m = vm.expect(r"\r\nB\r\n(.*?)\r\nE\r\n", 30)
    check(vm, m.group(1).startswith("arm,pl011"), "Linux's UART node: %r" % m.group(1))
    text = vm.since(start)
    check(vm, "guest 'linux' crashed" not in text and "\r\nerror:" not in text,
          "errors while Linux ran")


# ---- orangepi-pc: Allwinner H3, 4 x Cortex-A7, a DesignWare 16550 console --------
# QEMU's orangepi-pc with Debian's unmodified sun8i-h3-orangepi-pc.dtb: RAM
# at 0x40000000 (as on virt, so virt's guest configurations run unchanged),
# the GIC at 0x01c81000 with its virtualization interface, the console a
# snps,dw-apb-uart (reg-shift 2, reg-io-width 4: hyp/drivers/uart/ns16550.c), and PSCI:
# QEMU answers PSCI over SMC for this board and adds the /psci node U-Boot
# would add on the real one.  Partita starts in non-secure HYP.
ORANGEPI_DTB = os.path.join(BUILD, "dtbs", "sun8i-h3-orangepi-pc.dtb")
ORANGEPI = {
    "ram_base": 0x40000000,
    "lines": [r"gic: GICD 0x01c81000 GICC 0x01c82000 GICH 0x01c84000 GICV 0x01c86000, "
              r"maintenance IRQ 25, \d+ IRQs\r\n",
              r"timer: \d+ Hz, virtual IRQ 27, hypervisor IRQ 26\r\n",
              r"console: /soc/serial@1c28000 \(snps,dw-apb-uart\), IRQ 32\r\n"],
}


@pytest.fixture(scope="session")
def orangepi_dtb():
    if not os.path.exists(ORANGEPI_DTB):
        pytest.fail("%s is missing: run `make images`" % ORANGEPI_DTB)
    return ORANGEPI_DTB


def orangepi(qemu, kernel, dtb, lifetime=120):
    vm = qemu(kernel=kernel, machine="orangepi-pc", cpu="cortex-a7", smp=4, mem="1G",
              dtb=dtb, lifetime=lifetime)
    start = vm.mark()
    boot_to_prompt(vm, 4, "nonsecure-hyp", "smc", "1G", load=0x40010000, board=ORANGEPI)
    return vm, start


def test_orangepi_boot(qemu, partita_bin, orangepi_dtb):
    """The 16550 driver carries the whole console: output, and input by
    interrupt (SPI 0), line editing included."""
    vm, _ = orangepi(qemu, partita_bin, orangepi_dtb)
    run_info(vm, 4, "nonsecure-hyp", "1G")
    out = command(vm, "version")
    check(vm, out[0].startswith("Partita "), "version: %r" % out)
    vm.send("hel")
    vm.send("px\x7f\x7f")                  # DEL twice erases "px"
    vm.sendline("p")
    vm.expect(r"\r\n  help ")
    vm.expect(PROMPT)
    vm.expect_not(r"input is polled", within=0)


@pytest.mark.parametrize("name", ["smp", "traps"])
def test_orangepi_guests(qemu, image, orangepi_dtb, name):
    """virt's test images, unchanged: same RAM base, same virtual board."""
    vm, start = orangepi(qemu, image(name), orangepi_dtb)
    wait_halted(vm, [name], start)
    text = vm.since(start)
    check_guest(vm, name, IMAGES[name][name], text)
    check_hypervisor_clean(vm, text)
    run_info(vm, 4, "nonsecure-hyp", "1G")


@pytest.mark.deadline(420)
def test_orangepi_demo_linux(qemu, image, orangepi_dtb):
    """The demo partition: Debian's kernel on 2 vCPUs beside the real-time
    and echo guests; its shell answers through the 16550 console."""
    vm, start = orangepi(qemu, image("demo"), orangepi_dtb, lifetime=400)
    linux_ready(vm, start, "orangepi-pc", 2)
    vm.sendline("echo B; grep -c processor /proc/cpuinfo; echo E")
    # (other guests' lines, "[rt] tick ...", may come in between)
    m = vm.expect(r"\r\nB\r\n(?:\[[\w-]+\] [^\r\n]*\r\n)*(\d+)\r\n", 30)
    check(vm, m.group(1) == "2", "/proc/cpuinfo lists %s CPUs" % m.group(1))
    wait_for(vm, r"\[rt\] tick \d+", start, 30)


# ---- i.MX7D and i.MX6UL: the i.MX UART console ---------------------------------------
# QEMU's mcimx7d-sabre (2 x Cortex-A7) and mcimx6ul-evk (1 x Cortex-A7) with
# Debian's unmodified imx7d-sdb.dtb and imx6ul-14x14-evk.dtb: RAM at
# 0x80000000, the console an fsl,imx6q-uart-compatible UART (hyp/drivers/uart/imx_uart.c)
# whose interrupt goes through the GPC to the GIC, PSCI over SMC (QEMU's,
# with the /psci node it adds).  The vexpress configurations fit their RAM.
IMX = {
    "mcimx7d-sabre": ("imx7d-sdb", 2, "0x31001000 GICC 0x31002000 GICH 0x31004000 "
                      "GICV 0x31006000",
                      "/soc/bus@30800000/spba-bus@30800000/serial@30860000 "
                      r"\(fsl,imx7d-uart\)"),
    "mcimx6ul-evk": ("imx6ul-14x14-evk", 1, "0x00a01000 GICC 0x00a02000 GICH 0x00a04000 "
                     "GICV 0x00a06000",
                     r"/soc/bus@2000000/spba-bus@2000000/serial@2020000 \(fsl,imx6ul-uart\)"),
}


def imx(qemu, machine, kernel):
    dtb, smp, gic, console = IMX[machine]
    path = os.path.join(BUILD, "dtbs", dtb + ".dtb")
    if not os.path.exists(path):
        pytest.fail("%s is missing: run `make images`" % path)
    board = {"ram_base": 0x80000000,
             "lines": [r"gic: GICD %s, maintenance IRQ 25, \d+ IRQs\r\n" % gic,
                       r"timer: \d+ Hz, virtual IRQ 27, hypervisor IRQ 26\r\n",
                       r"console: %s, IRQ 58\r\n" % console]}
    vm = qemu(kernel=kernel, machine=machine, cpu="cortex-a7", smp=smp, mem="1G", dtb=path)
    start = vm.mark()
    boot_to_prompt(vm, smp, "nonsecure-hyp", "smc", "1G", load=0x80010000, board=board)
    return vm, start, smp


@pytest.mark.parametrize("machine", list(IMX))
def test_imx_boot(qemu, partita_bin, machine):
    """The i.MX UART carries the console: output, input by interrupt."""
    vm, _, smp = imx(qemu, machine, partita_bin)
    run_info(vm, smp, "nonsecure-hyp", "1G", ram_base=0x80000000)
    vm.send("hel")
    vm.send("px\x7f\x7f")
    vm.sendline("p")
    vm.expect(r"\r\n  help ")
    vm.expect(PROMPT)
    vm.expect_not(r"input is polled", within=0)


@pytest.mark.parametrize("name,guest", [("vexpress-smp", "smp"), ("vexpress-traps", "traps")])
def test_imx7d_guests(qemu, image, name, guest):
    vm, start, smp = imx(qemu, "mcimx7d-sabre", image(name))
    wait_halted(vm, [guest], start)
    text = vm.since(start)
    check_guest(vm, guest, IMAGES[guest][guest], text)
    check_hypervisor_clean(vm, text)


# ---- console input polled: a console UART the DT gives no interrupt ---------------
# The same boards with their DTs' console node stripped of `interrupts`
# (fdtput): Partita warns and polls the UART (hyp/lib/console.c rx_poll,
# through the driver's getc) instead of taking its interrupt, and typing at
# the console works as before, line editing included.
POLLED = {
    "orangepi-pc": (ORANGEPI_DTB, "/soc/serial@1c28000", 4),
    "mcimx7d-sabre": (os.path.join(BUILD, "dtbs", "imx7d-sdb.dtb"),
                      "/soc/bus@30800000/spba-bus@30800000/serial@30860000", 2),
}


@pytest.mark.parametrize("machine", list(POLLED))
def test_console_input_polled(qemu, partita_bin, tmp_path, machine):
    """16550 (orangepi-pc) and i.MX (mcimx7d-sabre) console input, polled"""
    src, uart, smp = POLLED[machine]
    if not os.path.exists(src):
        pytest.fail("%s is missing: run `make images`" % src)
    dtb = str(tmp_path / "polled.dtb")
    subprocess.run(["cp", src, dtb], check=True)
    subprocess.run(["fdtput", "-d", dtb, uart, "interrupts"], check=True)
    vm = qemu(kernel=partita_bin, machine=machine, cpu="cortex-a7", smp=smp, mem="1G", dtb=dtb)
    vm.expect(r"warning: console UART has no interrupt in the DT: input is polled\r\n", 60)
    vm.expect(PROMPT, 60)
    vm.send("hel")
    vm.send("px\x7f\x7f")                  # DEL twice erases "px"
    vm.sendline("p")
    vm.expect(r"\r\n  help ")
    vm.expect(PROMPT)
    out = command(vm, "version")
    check(vm, out[0].startswith("Partita "), "version: %r" % out)


# ---- ASPEED AST2600: the second CPU by the SoC's own method -----------------------
# QEMU's ast2600-evb (2 x Cortex-A7, RAM at 0x80000000) with Debian's
# unmodified aspeed-ast2600-evb.dtb: no PSCI; enable-method
# "aspeed,ast2600-smp" on /cpus.  QEMU parks the second CPU in a boot stub
# that polls the SCU's SMP mailbox as ASPEED's U-Boot does (0xABBAAB00 | CPU
# in BOOT_SIG, the entry in BOOT_ADDR): Partita starts it the way Linux's
# mach-aspeed/platsmp.c does (hyp/platform/soc_smp_aspeed.c), in non-secure
# HYP.  The DT has no stdout-path and no serial0 alias: the console is the
# first 16550 (UART5, QEMU's first serial port).  The vexpress
# configurations fit its RAM.
AST2600_DTB = os.path.join(BUILD, "dtbs", "aspeed-ast2600-evb.dtb")
AST2600 = {
    "ram_base": 0x80000000,
    "lines": [r"gic: GICD 0x40461000 GICC 0x40462000 GICH 0x40464000 GICV 0x40466000, "
              r"maintenance IRQ 25, \d+ IRQs\r\n",
              r"timer: \d+ Hz, virtual IRQ 27, hypervisor IRQ 26\r\n",
              r"console: /ahb/apb/serial@1e784000 \(snps,dw-apb-uart\), IRQ 40, "
              r"no stdout-path: the first UART with a driver\r\n"],
}


def ast2600(qemu, kernel):
    if not os.path.exists(AST2600_DTB):
        pytest.fail("%s is missing: run `make images`" % AST2600_DTB)
    vm = qemu(kernel=kernel, machine="ast2600-evb", cpu="cortex-a7", smp=2, mem="1G",
              dtb=AST2600_DTB)
    start = vm.mark()
    lines = boot_to_prompt(vm, 2, "nonsecure-hyp", "none", "1G", load=0x80010000,
                           board=AST2600)
    check(vm, any(l.startswith("cpu1: started by ASPEED SCU SMP mailbox") for l in lines),
          "cpu1 was not started by the AST2600 mailbox")
    return vm, start


def test_ast2600_boot(qemu, partita_bin):
    """Both CPUs online, the second through the SCU mailbox; console input."""
    vm, _ = ast2600(qemu, partita_bin)
    run_info(vm, 2, "nonsecure-hyp", "1G", ram_base=0x80000000)
    out = command(vm, "version")
    check(vm, out[0].startswith("Partita "), "version: %r" % out)


def test_ast2600_smp_guest(qemu, image):
    """The smp guest with a vCPU on each CPU, the mailbox-started one included."""
    vm, start = ast2600(qemu, image("vexpress-smp"))
    wait_halted(vm, ["smp"], start)
    text = vm.since(start)
    check_guest(vm, "smp", IMAGES["smp"]["smp"], text)
    check_hypervisor_clean(vm, text)


# ---- spin-table, on virt in the secure world ----------------------------------------
SPIN_BASE = 0x4ff00000      # release addresses: RAM no guest or Partita uses, reserved


def spin_table_dtb(tmp_path, smp, mem):
    """QEMU virt's own DT (secure=on: no PSCI node) with every CPU on a spin
    table: CPU n waits on SPIN_BASE + 8n, two cells, but the last CPU's one
    cell; the page is a /memreserve/."""
    raw, dts, out = tmp_path / "virt.dtb", tmp_path / "spin.dts", tmp_path / "spin.dtb"
    subprocess.run([QEMU_BIN, "-M", "virt,virtualization=on,secure=on,dumpdtb=%s" % raw,
                    "-cpu", "cortex-a15", "-smp", str(smp), "-m", mem, "-nographic"],
                   check=True, capture_output=True)
    text = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(raw)], check=True,
                          capture_output=True, text=True).stdout
    check_psci = "arm,psci" in text
    assert not check_psci, "QEMU's secure virt DT unexpectedly has PSCI"
    text = text.replace("/dts-v1/;", "/dts-v1/;\n/memreserve/ 0x%08x 0x1000;" % SPIN_BASE, 1)
    dts.write_text(text)
    subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(out), str(dts)],
                   check=True, capture_output=True)
    for n in range(smp):
        cpu = "/cpus/cpu@%d" % n
        addr = SPIN_BASE + 8 * n
        cells = ["0x%x" % addr] if n == smp - 1 else ["0", "0x%x" % addr]
        subprocess.run(["fdtput", "-t", "s", str(out), cpu, "enable-method", "spin-table"],
                       check=True)
        subprocess.run(["fdtput", "-t", "x", str(out), cpu, "cpu-release-addr"] + cells,
                       check=True)
    return str(out)


@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
def test_spin_table(qemu, image, tmp_path, cpu):
    """Every secondary started by the spin-table protocol, then the smp
    guest's vCPUs on all four CPUs (CPU_ON, spinlocks, SYSTEM_OFF)."""
    smp, mem = 4, "1G"
    dtb = spin_table_dtb(tmp_path, smp, mem)
    vm = qemu(kernel=image("smp", "elf"), machine="virt,virtualization=on,secure=on",
              cpu=cpu, smp=smp, mem=mem, dtb=dtb)
    start = vm.mark()
    # the secondaries enter the hypervisor from the spin table, in
    # non-secure HYP, where the firmware (Partita's secure code) left them
    lines = boot_to_prompt(vm, smp, "secure", "none", mem, load=0x40200000,
                           secondary_mode="nonsecure-hyp")
    for n in range(1, smp):
        want = "cpu%d: released through spin-table at 0x%08x" % (n, SPIN_BASE + 8 * n)
        check(vm, want in lines, "no line %r" % want)
    wait_halted(vm, ["smp"], start)
    text = vm.since(start)
    check_guest(vm, "smp", IMAGES["smp"]["smp"], text)
    check_hypervisor_clean(vm, text)
