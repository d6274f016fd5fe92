"""gdb on the Linux guest of the demo partition: Debian ships no
vmlinux with symbols, so gdb-multiarch runs without any - it attaches,
reads the registers of both vCPUs and kernel memory, breaks on the address
of a kernel function read from /proc/kallsyms at the Linux shell, hits it,
continues and detaches.  rt and echo run on all along (rt's heartbeat,
held while gdb had the console, comes afterwards with no tick missing),
and Linux's shell answers afterwards."""
import re

import pytest

from conftest import PROMPT, check
from helpers import CTRL_A3, READY, check_hypervisor_clean, rt_ticks, shell
from test_gdb import Relay, console_gdb, run_gdb

LINUX_BOOT = 240        # seconds: TCG on a slow 2-core machine, four vCPUs busy


@pytest.mark.deadline(900)
def test_gdb_on_linux(qemu, image):
    vm = qemu(kernel=image("demo"), smp=4, lifetime=850)
    start = vm.mark()
    vm.expect(READY, timeout=LINUX_BOOT)
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'linux'")
    vm.sendline("")
    # kallsyms is long: a slow read under TCG on a busy host
    out, rc = shell(vm, "grep -w ktime_get /proc/kallsyms", timeout=240)
    m = re.search(r"^([0-9a-f]{8}) [Tt] ktime_get$", "\n".join(out), re.M)
    check(vm, rc == 0 and m and int(m.group(1), 16) >= 0xc0000000, "kallsyms: %s" % out)
    addr = int(m.group(1), 16)
    for _ in range(3):      # linux -> rt -> echo -> monitor
        vm.send(CTRL_A3)
    vm.expect(r"input now goes to the monitor")
    vm.sendline("")
    vm.expect(PROMPT, timeout=60)
    session = vm.mark()
    relay = Relay(vm)
    console_gdb(vm, "linux")
    out = run_gdb(relay, [
        "set arm fallback-mode arm",    # no symbols; Debian's armmp kernel is ARM code
        "info threads",
        "info registers pc cpsr sp",
        "thread 2",
        "info registers pc cpsr",
        "thread 1",
        "x/2wx 0x%x" % addr,
        "break *0x%x" % addr,
        "continue",
        "info registers pc",
        "continue",
        "info registers pc",
        "delete",
        "x/2wx 0x%x" % addr,
        "detach",
    ], elf=None)
    relay.close()
    vm.expect(r"\[partita: gdb detached from guest 'linux'\]", timeout=30)
    check(vm, re.search(r"Thread 1 .*vcpu0 on cpu1", out) and
          re.search(r"Thread 2 .*vcpu1 on cpu2", out), "two vCPUs:\n" + out)
    # each vCPU in a kernel mode (SVC, or IRQ/ABT/UND in a handler) at a
    # kernel address
    cpsrs = [int(c, 16) for c in re.findall(r"^cpsr\s+(0x[0-9a-f]+)", out, re.M)]
    pcs = [int(p, 16) for p in re.findall(r"^pc\s+(0x[0-9a-f]+)", out, re.M)]
    check(vm, len(cpsrs) == 2 and all(c & 0x1f in (0x12, 0x13, 0x17, 0x1b) for c in cpsrs),
          "kernel modes:\n" + out)
    check(vm, len(pcs) == 4 and all(p >= 0xc0000000 for p in pcs[:2]), "kernel PCs:\n" + out)
    check(vm, pcs[2] == addr and pcs[3] == addr, "stopped twice at ktime_get:\n" + out)
    hits = re.findall(r"Breakpoint 1, 0x([0-9a-f]+) in \?\? \(\)", out)
    check(vm, len(hits) == 2, "two hits:\n" + out)
    words = re.findall(r"0x%x:\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)" % addr, out)
    check(vm, len(words) == 2 and words[0] == words[1] and words[0][0] != "0xe1200070",
          "the kernel's own code, read twice:\n" + out)
    # rt ran all along: its ticks, held while gdb had the console, none missing
    last = [t for t, _ in rt_ticks(vm.since(start))][-1]
    vm.expect(r"\[rt\] tick %d:" % (last + 1000), timeout=30)
    ticks = [t for t, _ in rt_ticks(vm.since(start))]
    check(vm, ticks == list(range(ticks[0], ticks[0] + 1000 * len(ticks), 1000)),
          "rt ticks: %s" % ticks)
    # Linux runs on: its shell answers
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'linux'")
    vm.sendline("")
    out, rc = shell(vm, "echo alive; cat /proc/uptime")
    check(vm, rc == 0 and out[0] == "alive", "Linux after gdb: %s" % out)
    check_hypervisor_clean(vm, vm.since(session))
