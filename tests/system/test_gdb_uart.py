"""gdb on a UART of its own: /chosen/partita,debug-uart.

The Versatile Express (QEMU -M vexpress-a15) has four PL011s; Debian's
unmodified vexpress-v2p-ca15-tc1.dtb, given /chosen/partita,debug-uart =
"serial1" with fdtput, hands uart@a0000 to the debugger.  QEMU puts that
UART on a local TCP port, where real `gdb-multiarch` connects directly -
no relay, as it would to /dev/ttyUSB1 on a board.  `gdb dbg` at the
monitor halts the guest and the debug UART speaks gdb's remote protocol,
while the console stays the monitor's: commands are answered and rt's
heartbeat is printed (nothing is held) during the session.  Checked
through gdb: threads, a breakpoint hit, a backtrace, a variable read and
set, the breakpoint removed, detach; the guest runs on with gdb's value.
"""
import os
import re
import shutil
import socket
import subprocess
from types import SimpleNamespace

import pytest

from conftest import PROMPT, check, command
from helpers import check_hypervisor_clean
from test_boards import VEXPRESS_DTB, vexpress, vexpress_boot
from test_gdb import ELF, run_gdb

DEBUG_UART = "/bus@8000000/motherboard-bus@8000000/iofpga-bus@300000000/serial@a0000"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def debug_uart_dtb(tmp_path, value, polled=False):
    """Debian's vexpress DT with /chosen/partita,debug-uart = value (polled:
    and uart@a0000 without its interrupt)"""
    if not os.path.exists(VEXPRESS_DTB):
        pytest.fail("%s is missing: run `make images`" % VEXPRESS_DTB)
    dtb = str(tmp_path / "vexpress-debug-uart.dtb")
    shutil.copy(VEXPRESS_DTB, dtb)
    subprocess.run(["fdtput", "-t", "s", dtb, "/chosen", "partita,debug-uart", value],
                   check=True)
    if polled:
        subprocess.run(["fdtput", "-d", dtb, DEBUG_UART, "interrupts"], check=True)
    return dtb


def boot(qemu, image, tmp_path, value="serial1", polled=False):
    """vexpress with the debug UART on a TCP port; returns (vm, port, start)"""
    if not os.path.exists(ELF):
        pytest.fail("%s is missing: run `make images` first" % ELF)
    port = free_port()
    # serial 0 (the console) on stdio as the harness reads it, serial 1
    # (uart@a0000) a TCP server gdb connects to
    vm = vexpress(qemu, image("vexpress-gdb"), debug_uart_dtb(tmp_path, value, polled),
                  "secure", lifetime=180,
                  extra=["-serial", "stdio", "-serial",
                         "tcp:127.0.0.1:%d,server=on,wait=off" % port])
    if polled:      # a warning at boot, which vexpress_boot refuses
        start = vm.mark()
        vm.expect(r"warning: debug UART has no interrupt in the DT: input is polled\r\n", 60)
        vm.expect(PROMPT, 60)
    else:
        start = vexpress_boot(vm, "secure")
    return vm, port, start


@pytest.mark.deadline(180)
@pytest.mark.parametrize("polled", [False, True], ids=["irq", "polled"])
def test_gdb_on_its_own_uart(qemu, image, tmp_path, polled):
    """polled: the UART has no interrupt in the DT; rt on the boot CPU must
    still make way for gdb's bytes, as for console input"""
    vm, port, start = boot(qemu, image, tmp_path, polled=polled)
    text = vm.since(start)
    check(vm, "debug: gdb on %s (arm,pl011), IRQ %d\r\n" % (DEBUG_UART, 0 if polled else 38)
          in text, "the debug UART's boot line")
    vm.expect(r"\[dbg\] gdbtarget: round 2 value 7", timeout=60)
    vm.expect_seen(r"\[rt\] tick \d+", timeout=30)
    vm.sendline("gdb dbg")
    vm.expect(r"\[partita: guest 'dbg' halted for gdb: the debug UART %s speaks gdb's remote "
              r"protocol until it detaches\]" % re.escape(DEBUG_UART), timeout=10)
    held = vm.mark()
    # the console is still the monitor's: a command is answered, a second
    # session refused, and rt's lines come as it prints them
    out = command(vm, "list")
    check(vm, any(re.match(r"\s*dbg\s+running", l) for l in out), "list: %r" % out)
    out = command(vm, "gdb rt")
    check(vm, out == ["gdb: a session is on %s: one at a time" % DEBUG_UART], "gdb rt: %r" % out)
    # nor may the operator stop the guest from under gdb
    out = command(vm, "stop dbg")
    check(vm, out == ["guest 'dbg' is held by gdb on %s: detach gdb first (or Ctrl-A three "
                      "times on that line)" % DEBUG_UART], "stop dbg: %r" % out)
    vm.expect_seen(r"\[partita: guest 'dbg' halted for gdb[^\r\n]*\r\n(?:.|\r\n)*\[rt\] tick \d+",
                   timeout=30)
    # gdb straight on QEMU's socket for the UART: no relay, only its port
    # (and nothing relaying gdb's bytes for run_gdb to wait on)
    out = run_gdb(SimpleNamespace(port=port, drained=lambda: None), [
        "info threads", "break gdb_tick", "continue", "bt", "print round", "print gdb_value",
        "set var gdb_value = 4321", "delete", "detach"])
    vm.expect(r"\[partita: gdb detached from guest 'dbg'\]", timeout=60)
    vm.expect(PROMPT, timeout=60)     # the monitor's, after the session
    check(vm, re.search(r"Thread 1 .*vcpu0 on cpu1", out), "info threads:\n" + out)
    hit = re.search(r"Breakpoint 1, gdb_tick \(round=round@entry=(\d+)\)", out)
    check(vm, hit, "the breakpoint:\n" + out)
    check(vm, re.search(r"#1 .* in guest_main", out), "backtrace:\n" + out)
    check(vm, re.search(r"^\$1 = %s$" % hit.group(1), out, re.M), "round:\n" + out)
    check(vm, re.search(r"^\$2 = 7$", out, re.M), "gdb_value:\n" + out)
    check(vm, re.search(r"\[Inferior 1 \(Remote target\) detached\]", out), "detach:\n" + out)
    # none of gdb's packets reached the console
    check(vm, not re.search(r"\$[^\r\n]*#[0-9a-f]{2}", vm.since(held)), "packets on the console")
    vm.expect_seen(r"\[dbg\] gdbtarget: round %d value 4321" % (int(hit.group(1)) + 1),
                   timeout=60)
    check_hypervisor_clean(vm, vm.since(start).replace("warning: debug UART has no interrupt", ""))


def test_a_debug_uart_that_is_the_console_is_refused(qemu, image, tmp_path):
    """A debug UART that is the console is refused with the property named
    (the property is never read and then ignored); Partita does not start."""
    port = free_port()
    vm = vexpress(qemu, image("vexpress-gdb"), debug_uart_dtb(tmp_path, "serial0"), "secure",
                  extra=["-serial", "stdio", "-serial",
                         "tcp:127.0.0.1:%d,server=on,wait=off" % port])
    vm.expect(r"error: /chosen/partita,debug-uart: 'serial0' is the console: the debugger "
              r"needs a UART of its own\r\n", timeout=60)
    vm.expect(r"Partita cannot run on this platform; stopping\.", timeout=60)
