"""The monitor console, driven like a user over the serial port:
list, start, stop, restart, stats, focus switching with Ctrl-A three times
(typed input reaching only the focused guest), a guest restarted 50 times
without losing hypervisor memory, and a configuration with errors."""
import os
import re
import subprocess

import pytest

from conftest import ROOT, Qemu, command
from helpers import free_kib, wait_until

CTRL_A3 = "\x01\x01\x01"


def boot_monitor(qemu, image, cpu="cortex-a15"):
    vm = qemu(kernel=image("monitor"), cpu=cpu, smp=4)
    # the two start on their own CPUs: either may be ready first
    either = r"\[alpha\] echo 0 ready|\[beta\] echo 1 ready"
    first = vm.expect(either, timeout=60).group(0)
    second = vm.expect(either, timeout=60).group(0)
    assert first != second, vm.output
    vm.settle(0.3)
    return vm


def list_states(vm):
    rows = {}
    for line in command(vm, "list")[1:]:
        f = line.split()
        rows[f[0]] = f[1]
    return rows


def test_list_and_lifecycle(qemu, image):
    vm = boot_monitor(qemu, image)
    assert list_states(vm) == {"alpha": "running", "beta": "running", "gamma": "stopped"}
    vm.sendline("start gamma")
    wait_until(vm, lambda: "guest 'gamma' halted (PSCI SYSTEM_OFF)\r\n" in vm.output)
    assert "guest 'gamma' started" in vm.output
    assert "[gamma] hello from guest 2" in vm.output
    assert list_states(vm)["gamma"] == "halted"
    assert "guest 'alpha' stopped" in command(vm, "stop alpha")
    assert list_states(vm)["alpha"] == "stopped"
    assert "stop: guest 'alpha' is not running" in command(vm, "stop alpha")
    assert "start: guest 'beta' is already running" in command(vm, "start beta")
    vm.sendline("start alpha")
    wait_until(vm, lambda: vm.output.count("[alpha] echo 0 ready") == 2)
    assert "guest 'alpha' started" in vm.output
    assert command(vm, "start nosuch") == ["start: no guest 'nosuch' (try 'list')"]
    assert command(vm, "stop") == ["stop: which guest? (try 'list')"]


def test_stats(qemu, image):
    vm = boot_monitor(qemu, image)
    out = command(vm, "stats alpha")
    assert out[0].startswith("guest 'alpha': running, started 1 times")
    m = re.match(r"\s+vcpu0 exits (\d+): wfi (\d+) cp15 \d+ cp14 \d+ hvc (\d+) .* mmio (\d+)", out[1])
    assert m, out
    assert int(m.group(3)) >= 1 and int(m.group(4)) > 10   # its hypercall, its UART
    assert "interrupts injected" in out[2]
    everything = command(vm, "stats")
    assert any(l.startswith("guest 'beta'") for l in everything)
    assert any(l.startswith("guest 'gamma'") for l in everything)


def test_focus_switching(qemu, image):
    vm = boot_monitor(qemu, image)
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'alpha'")
    vm.sendline("hello alpha")
    vm.expect(r"echo 0 got: hello alpha")
    vm.expect_not(r"echo 1 got", within=0.5)
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'beta'")
    vm.sendline("hi beta")
    vm.expect(r"echo 1 got: hi beta")
    assert "echo 0 got: hi beta" not in vm.output
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'gamma'")
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to the monitor")
    # a lone Ctrl-A is passed on, not an escape: the monitor ignores it
    vm.send("\x01")
    assert "help" in " ".join(command(vm, "help"))
    assert list_states(vm)["alpha"] == "running"


def test_console_command_and_guest_output(qemu, image):
    vm = boot_monitor(qemu, image)
    vm.sendline("console beta")
    vm.expect(r"input now goes to guest 'beta'")
    vm.sendline("exit")
    vm.expect(r"echo 1 got: exit")
    vm.expect(r"guest 'beta' halted")
    vm.send(CTRL_A3)        # beta -> gamma
    vm.send(CTRL_A3)        # gamma -> monitor
    vm.expect(r"input now goes to the monitor")
    assert list_states(vm)["beta"] == "halted"


def test_guest_reset_from_its_console(qemu, image):
    vm = boot_monitor(qemu, image)
    vm.send(CTRL_A3)
    vm.sendline("reset")
    vm.expect(r"guest 'alpha' asked for a reset \(PSCI SYSTEM_RESET\)")
    vm.expect(r"guest 'alpha': restarting")
    vm.expect(r"echo 0 ready", timeout=60)


@pytest.mark.deadline(240)
def test_restart_50_times_keeps_memory(qemu, image):
    vm = boot_monitor(qemu, image)
    before = free_kib(vm)
    for i in range(50):
        vm.sendline("restart beta")
        # the banner must be out before the next command is typed, or the
        # two interleave on the one console
        wait_until(vm, lambda: vm.output.count("guest 'beta' restarted") == i + 1 and
                 vm.output.count("[beta] echo 1 ready") == i + 2)
    assert free_kib(vm) == before
    assert list_states(vm)["beta"] == "running"
    assert command(vm, "stats beta")[0].startswith("guest 'beta': running, started 51 times")


def test_invalid_configuration(qemu, image):
    vm = qemu(kernel=image("badconfig"), smp=4)
    vm.expect(r"partita> ", timeout=60)
    out = vm.output
    want = [
        r"config: error: guest 'one': property 'memory': overlaps the memory of guest|"
        r"config: error: guest 'two': property 'memory': overlaps the memory of guest 'one'",
        r"config: error: guest 'two': property 'cpus': CPU 7 does not exist",
        r"config: error: guest 'two': property 'cpus': CPU 1 is already given to guest 'one'",
        r"config: error: guest 'two': property 'kernel-format': \"elf\"",
        r"config: warning: guest 'two': property 'colour': unknown property",
        r"config: error: guest 'one': property 'chat/ipa': 0x40000000-0x40011000 collides "
        r"with the guest's own RAM",
        r"config: error: guest 'two': property 'chat/access': \"wo\": use \"rw\" or \"ro\"",
        r"error: configuration has \d+ errors: no guest started",
    ]
    for w in want:
        assert re.search(w, out), (w, out)
    assert "[one]" not in out and "[two]" not in out
    assert command(vm, "list") == ["(no guests configured)"] or "NAME" in command(vm, "list")[0]
    assert "help" in " ".join(command(vm, "help"))


def make_run(*args):
    """`make run ARGS...` as a user types it.  Its console is read like any
    QEMU's and waited on for what it prints; the caller kills it (QEMU gets
    no fixed run time: the machine may be slow)."""
    return Qemu(["env", "MAKEFLAGS=", "make", "--no-print-directory", "-C", ROOT, "run"] +
                list(args), lifetime=280, name="make-run")


@pytest.mark.deadline(300)
def test_make_run_image(tmp_path):
    """`make run IMAGE=...` wraps any raw image in a one-guest system and boots it,
    with its initrd loaded and announced in /chosen as for Linux."""
    initrd = tmp_path / "initrd.txt"
    initrd.write_bytes(b"PARTITA-RAW-INITRD line one\nsecond line\n" + bytes(range(256)) * 20)
    vm = make_run("IMAGE=build/guests/hello.bin", "VCPUS=2", "INITRD=%s" % initrd)
    try:
        vm.expect(r"guest 'guest' halted \(PSCI SYSTEM_OFF\)", timeout=270)
    finally:
        vm.kill()
    out = vm.output
    assert "guest 'guest': 2 vCPUs, 64 MiB at 0x50000000, raw image" in out, out[-3000:]
    assert "[guest] hello from guest 0 (2 vCPUs)" in out, out[-3000:]
    m = re.search(r"\[guest\] initrd: (\d+) bytes at 0x([0-9a-f]{8}): (.*)\r\n", out)
    assert m, out[-3000:]
    assert int(m.group(1)) == initrd.stat().st_size and m.group(3) == "PARTITA-RAW-INITRD line one"
    assert int(m.group(2), 16) % 4096 == 0          # page aligned
    # and a bad IMAGE is refused before anything is built
    p = subprocess.run(["make", "--no-print-directory", "-C", ROOT, "IMAGE=/nonexistent.bin"],
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=120,
                       env=dict(os.environ, MAKEFLAGS=""))
    assert "IMAGE=/nonexistent.bin: no such file" in p.stdout.decode(errors="replace")
    assert p.returncode != 0


@pytest.mark.deadline(400)
def test_make_run_image_with_passthrough_by_path():
    """`make run IMAGE=... PASSTHROUGH=/path` gives the guest that host node:
    the rtc guest finds QEMU's PL031 at its page, the real device, and its
    interrupt behaves as a GIC's (the checks of kvm-unit-tests' pl031
    test): pending in GICD_ISPENDR while asserted and disabled, taken at
    once when enabled, not pending after the handler; not taken once its
    line dropped, while disabled, or after GICD_ICPENDR.  A path the host
    DT does not have is refused with the guest and property."""
    def run(passthrough, until):
        vm = make_run("IMAGE=build/guests/rtc.bin", "BOOTARGS=rtc=0x09010000",
                      "PASSTHROUGH=" + passthrough)
        try:
            vm.expect(until, timeout=120)
        finally:
            vm.kill()
        return vm.output

    out = run("/pl031@9010000", r"guest 'guest' halted \(PSCI SYSTEM_OFF\)")
    assert "[guest] RESULT: 11 passed, 0 failed" in out, out[-3000:]
    assert "FAIL" not in out, out[-3000:]
    # without it the page is not the guest's: its read aborts
    out = run("", r"\[guest\] RESULT: ")
    assert "[guest] TEST rtc_mapped: FAIL" in out, out[-3000:]
    out = run("/pl031@9999999", r"partita> ")
    assert ("error: guest 'guest': property 'passthrough path': dev0: no node "
            "/pl031@9999999 in the host device tree") in out, out[-3000:]
