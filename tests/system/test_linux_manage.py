"""The demo's Linux as the control partition: the `partita` tool
in its shell lists the guests as the monitor does, stops, starts and
restarts rt and echo (seen on the console and in the monitor), reads and
writes echo's console, loads a new bare-metal image into a stopped echo
that then prints its own banner, and is refused - with a clear message, an
exit status of 1 and nothing changed - a load that does not fit, a load
into a running guest and an act on itself.  Then 100 stop/load/start
cycles from the shell leave the hypervisor's free memory unchanged."""
import re
import time

import pytest

from conftest import command
from helpers import CTRL_A3, FREE_RE, READY, hypervisor_lines, shell, wait_for
from test_linux import LINUX_BOOT


def to_monitor(vm):
    for _ in range(3):      # linux -> rt -> echo -> monitor
        vm.send(CTRL_A3)
    vm.expect(r"input now goes to the monitor")
    vm.settle(0.3)


def to_linux(vm):
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'linux'")
    vm.sendline("")


def rows(lines):
    """NAME -> (STATE, VCPU->PCPU, MEMORY, image size, its CRC[, (loaded)]) of
    a list's table (uptime and exits move on)"""
    return {f[0]: tuple(f[1:4] + f[6:7] + f[9:]) for f in (l.split() for l in lines[1:]) if f}


def info_now(vm):
    """`info` at the monitor (rt's lines may come in between): the free
    hypervisor memory and the whole text up to it and the images after it"""
    mark = vm.mark()
    vm.sendline("info")
    free = int(wait_for(vm, FREE_RE, mark, 10).group(1))
    wait_for(vm, r"image: guest 'echo': [^\r\n]*\r\n", mark, 60)
    vm.expect(r"image: guest 'echo': [^\r\n]*\r\n")    # expect() reads on after it
    return free, vm.since(mark)


def ok(vm, cmd, timeout=60, ignore=None):
    out, rc = shell(vm, cmd, timeout, ignore)
    assert rc == 0, (cmd, out)
    return out


def refused(vm, cmd, why):
    out, rc = shell(vm, cmd + " 2>&1")
    assert rc == 1 and any(re.search(why, l) for l in out), (cmd, rc, out)
    return out


@pytest.mark.deadline(1200)
def test_linux_control_partition(qemu, image):
    vm = qemu(kernel=image("demo"), smp=4, lifetime=1150)
    vm.expect(READY, timeout=LINUX_BOOT)
    vm.settle(0.3)
    monitor_list = rows(command(vm, "list"))
    to_linux(vm)

    out = ok(vm, "partita --help")
    assert any(l.startswith("usage: partita") for l in out), out
    out, rc = shell(vm, "partita frobnicate rt 2>&1")
    assert rc == 2 and "unknown command" in out[0], out

    # list: the monitor's table (state, vCPUs, memory), with images
    out = ok(vm, "partita list")
    assert rows(out) == monitor_list, (out, monitor_list)
    assert all(re.search(r"\d+ bytes crc32 0x[0-9a-f]{8}$", l) for l in out[1:]), out

    # stop, start, restart: on the console, in the state
    # (the hypervisor's console line and the tool's own, in some order)
    mark = vm.mark()
    assert "guest 'rt' stopped" in ok(vm, "partita stop rt")
    assert vm.since(mark).count("guest 'rt' stopped") == 2
    assert rows(ok(vm, "partita list"))["rt"][0] == "stopped"
    refused(vm, "partita stop rt", r"^partita: stop: guest 'rt' is not running$")
    mark = vm.mark()
    ok(vm, "partita start rt")
    assert rows(ok(vm, "partita list"))["rt"][0] == "running"
    deadline = time.monotonic() + 30
    while not re.search(r"\[rt\] ", vm.since(mark)):
        assert time.monotonic() < deadline, "rt printed nothing after its start"
        time.sleep(0.2)
    mark = vm.mark()
    ok(vm, "partita restart echo")
    wait_for(vm, r"\[echo\] echo \d+ ready", mark, 30)
    out = ok(vm, "partita stats rt")
    assert re.match(r"guest 'rt': started 2 times", out[0]), out
    assert re.match(r"  vcpu0 on cpu3 exits \d+: wfi", out[1]), out
    out = ok(vm, "partita stats echo")     # a member of the channel to linux
    assert any(re.match(r"  channel 0: doorbells rung \d+, raised here \d+$", l)
               for l in out), out

    # its console: input sent, the answer read back from the hypervisor's ring
    ok(vm, "partita console echo --send from-linux")
    deadline = time.monotonic() + 30
    while True:
        out = ok(vm, "partita console echo --dump")
        if any("got: from-linux" in l for l in out):
            break
        assert time.monotonic() < deadline, out
        time.sleep(0.5)

    # typed lines reach it too (the interactive form; ends at end of input)
    ok(vm, "printf 'via-stdin\\n' | partita console echo > /dev/null")
    deadline = time.monotonic() + 30
    while not any("got: via-stdin" in l for l in ok(vm, "partita console echo --dump")):
        assert time.monotonic() < deadline, "typed input did not reach echo"
        time.sleep(0.5)

    # refusals: nothing changes
    refused(vm, "partita load echo /usr/share/partita/hello.bin",
            r"^partita: load: guest 'echo' is running: stop it first$")
    refused(vm, "partita stop linux", r"^partita: stop: not allowed")
    ok(vm, "partita stop echo")
    ok(vm, "dd if=/dev/zero of=/tmp/big bs=1M count=17 2>/dev/null")
    refused(vm, "partita load echo /tmp/big", r"does not fit guest 'echo'")
    assert "(loaded)" not in rows(ok(vm, "partita list"))["echo"][-1]
    refused(vm, "partita start nobody", r"no guest 'nobody'")

    # a new image: it boots, and the list says which
    out = ok(vm, "partita load echo /usr/share/partita/hello.bin")
    assert re.match(r"guest 'echo': loaded \d+ bytes", out[-1]), out
    mark = vm.mark()
    # hello halts by itself at once: the hypervisor's "halted" line may come
    # inside this command's own end marker ("E" ... "00fe4643 0")
    ok(vm, "partita start echo", ignore=hypervisor_lines("echo"))
    wait_for(vm, r"\[echo\] hello from guest 2 ", mark, 30)
    wait_for(vm, r"guest 'echo' halted", mark, 30)     # hello is done: nothing comes now
    line = [l for l in ok(vm, "partita list") if l.startswith("echo ")][0]
    assert line.endswith("(loaded)"), line

    # 100 stop/load/start cycles: the hypervisor's memory is what it was
    to_monitor(vm)
    before, _ = info_now(vm)
    to_linux(vm)
    # hello halts by itself, so the hypervisor's lines about echo come at
    # any moment, inside the loop's own answer too ("c" ... "ycles 100")
    mark = vm.mark()
    out = ok(vm, "n=0; for i in $(seq 100); do partita stop echo >/dev/null 2>&1; "
                 "partita load echo /usr/share/partita/hello.bin >/dev/null && "
                 "partita start echo >/dev/null && n=$((n+1)); done; echo cycles $n",
             timeout=600, ignore=hypervisor_lines("echo"))
    assert out[-1] == "cycles 100", out
    # the last start has halted before the lists below are compared
    deadline = time.monotonic() + 60
    while True:
        text = vm.since(mark)
        last = text.rfind("guest 'echo' started")
        if last >= 0 and "guest 'echo' halted" in text[last:]:
            break
        assert time.monotonic() < deadline, "the last start of echo did not halt"
        time.sleep(0.2)
    to_monitor(vm)
    after, info = info_now(vm)
    assert after == before, (before, after)
    # the monitor agrees with the tool
    to_linux(vm)
    tool = rows(ok(vm, "partita list"))
    to_monitor(vm)
    monitor = rows(command(vm, "list"))
    assert monitor == tool and monitor["echo"][-1] == "(loaded)", (monitor, tool)
    assert re.search(r"image: guest 'echo': loaded, \d+ bytes, crc32 0x", info), info
    assert "crashed on vCPU" not in vm.output
