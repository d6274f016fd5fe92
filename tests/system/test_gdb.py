"""gdb debugs a partition over the board's one console.

Real `gdb-multiarch` in batch mode, with the symbols of
guests/test/gdbtarget.c, talks to Partita's gdb stub through the console:
`gdb dbg` at the monitor turns the console over to gdb's remote protocol,
and a relay here carries the bytes between a local TCP socket, where gdb
connects (`target remote`), and QEMU's serial port.  Checked: threads are
vCPUs, registers, backtrace, a variable read, changed (the guest prints the
new value once it runs on) and read again through another virtual address of
the guest's own stage 1, an unmapped address refused, continue and Ctrl-C
(SIGINT to gdb, which sends 0x03), detach; the guest beside it (rt) keeps
its heartbeat all along (its lines, held while gdb owned the console, come
afterwards, none missing).
"""
import os
import re
import signal
import socket
import subprocess
import threading
import time

import pytest

from conftest import BUILD, PROMPT, check
from helpers import check_guest, check_hypervisor_clean, rt_ticks, wait_halted

GDB = "gdb-multiarch"
ELF = os.path.join(BUILD, "guests", "gdbtarget.elf")


class Relay:
    """gdb's socket <-> the QEMU console (vm), both ways, from vm.mark() on."""

    def __init__(self, vm):
        self.vm = vm
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]
        self.sent = ""          # what gdb sent, for waiting on a packet
        self._from = vm.mark()
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self):
        self.listener.settimeout(60)
        try:
            conn, _ = self.listener.accept()
        except OSError:         # closed, or no gdb came: nothing to relay
            return
        conn.settimeout(0.05)
        pos = self._from
        while not self._stop:
            out = self.vm.output
            if len(out) > pos:
                conn.sendall(out[pos:].encode("latin-1", "replace"))
                pos = len(out)
            try:
                data = conn.recv(4096)
            except socket.timeout:
                continue
            except OSError:
                break
            if not data:
                break
            self.sent += data.decode("latin-1")
            for b in data:      # raw bytes, no per-character delay
                self.vm.proc.stdin.write(bytes([b]))
            self.vm.proc.stdin.flush()
        conn.close()

    def wait_sent(self, pattern, timeout=30):
        deadline = time.monotonic() + timeout
        while not re.search(pattern, self.sent):
            if time.monotonic() > deadline:
                raise AssertionError("gdb never sent /%s/; it sent: %r" % (pattern, self.sent))
            time.sleep(0.05)

    def drained(self, timeout=30):
        """Wait until gdb has closed its connection and every byte it sent
        is on the console: its last `+` (the ack of detach's OK) must not
        land inside a command the test types after it."""
        self._thread.join(timeout)
        if self._thread.is_alive():
            raise AssertionError("gdb's connection did not end")

    def close(self):
        self._stop = True
        self.listener.close()


def run_gdb(relay, commands, interrupt_after=None, elf=ELF):
    """gdb-multiarch -batch with COMMANDS (and elf's symbols, if any); with
    interrupt_after (a regex of a packet gdb sends, e.g. the continue),
    SIGINT to gdb once it was sent and the guest ran a while, as Ctrl-C at
    gdb's prompt would."""
    argv = [GDB, "-batch", "-nx"] + ([elf] if elf else []) + ["-ex", "set pagination off",
            "-ex", "target remote 127.0.0.1:%d" % relay.port]
    for c in commands:
        argv += ["-ex", c]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        if interrupt_after:
            relay.wait_sent(interrupt_after)
            time.sleep(1.0)
            proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    relay.drained()
    return out.decode(errors="replace")


def console_gdb(vm, name):
    vm.sendline("gdb " + name)
    vm.expect(r"guest '%s' halted for gdb" % name, timeout=60)


def start_session(qemu, image):
    """Boot the gdb configuration, wait for both guests, `gdb dbg`; returns
    (vm, its start mark, the relay gdb connects to, gdb_value's alias)."""
    if not os.path.exists(ELF):
        pytest.fail("%s is missing: run `make images` first" % ELF)
    vm = qemu(kernel=image("gdb"), smp=4)
    start = vm.mark()
    m = vm.expect(r"\[dbg\] gdbtarget: ready, gdb_value at (0x[0-9a-f]+) \(alias (0x[0-9a-f]+)\)",
                  timeout=30)
    vm.expect(r"\[dbg\] gdbtarget: round 2 value 7", timeout=30)
    vm.expect_seen(r"\[rt\] tick \d+", timeout=30)
    vm.expect_seen(PROMPT, timeout=30)
    relay = Relay(vm)
    console_gdb(vm, "dbg")
    return vm, start, relay, m.group(2)


@pytest.mark.deadline(150)
def test_gdb_debugs_a_guest(qemu, image):
    vm, start, relay, alias = start_session(qemu, image)
    out = run_gdb(relay, [
        "info threads",
        "thread 2",
        "bt",
        "thread 1",
        "print/x $cpsr",
        "print $pc",
        "bt",
        "print gdb_value",
        "set var gdb_value = 1234",
        "print gdb_value",
        "x/wx %s" % alias,
        "x/wx 0xa0000000",
        "continue",
        "print gdb_rounds > 2",
        "detach",
    ], interrupt_after=r"\$c#63")
    relay.close()
    after = vm.mark()
    vm.expect(r"\[partita: gdb detached from guest 'dbg'\]", timeout=60)
    check(vm, re.search(r"Thread 1 .*vcpu0 on cpu1", out) and
          re.search(r"Thread 2 .*vcpu1 on cpu3", out), "info threads:\n" + out)
    second = out[out.find("Switching to thread 2"):out.find("Switching to thread 1")]
    check(vm, re.search(r"#\d+ .*gdb_second \(\)", second), "vCPU 1's backtrace:\n" + out)
    cpsr = re.search(r"\$1 = (0x[0-9a-f]+)", out)
    check(vm, cpsr and int(cpsr.group(1), 16) & 0x1f in (0x13, 0x1f), "SVC/SYS CPSR:\n" + out)
    check(vm, re.search(r"#\d+ .*guest_main", out), "a backtrace to guest_main:\n" + out)
    check(vm, re.search(r"\$\d+ = 7\n", out), "gdb_value read:\n" + out)
    check(vm, re.search(r"\$\d+ = 1234\n", out), "gdb_value written:\n" + out)
    check(vm, re.search(r"%s.*:\s+0x000004d2" % alias, out), "read through the alias:\n" + out)
    check(vm, "Cannot access memory at address 0xa0000000" in out, "unmapped:\n" + out)
    check(vm, "received signal SIGINT" in out, "Ctrl-C stopped it:\n" + out)
    check(vm, re.search(r"\$\d+ = 1\n", out), "it ran after continue:\n" + out)
    check(vm, re.search(r"\[Inferior 1 \(Remote target\) detached\]", out), "detach:\n" + out)
    # the guest runs on with the value gdb gave it; the monitor is back
    vm.expect(r"\[dbg\] gdbtarget: round \d+ value 1234", timeout=60)
    vm.sendline("list")
    vm.expect(r"dbg\s+running", timeout=60)
    # rt's heartbeat goes on, a tick line every 1000 ticks with none missing
    # (those of the session were held, then printed)
    last = [t for t, _ in rt_ticks(vm.since(start))][-1]
    vm.expect(r"\[rt\] tick %d:" % (last + 1000), timeout=60)
    ticks = [t for t, _ in rt_ticks(vm.since(start))]
    check(vm, ticks == list(range(ticks[0], ticks[0] + 1000 * len(ticks), 1000)),
          "rt ticks: %s" % ticks)
    check_hypervisor_clean(vm, vm.since(start))


@pytest.mark.deadline(150)
def test_gdb_breakpoints(qemu, image):
    """Z0 software breakpoints (BKPT, trapped with HDCR.TDE while gdb is
    attached): break on a function, hit it twice (gdb steps over the first
    by moving its breakpoint), read its argument, change a variable, remove
    the breakpoint and detach; the guest runs on with the new value, and
    its code is its own again (no BKPT left)."""
    vm, start, relay, _ = start_session(qemu, image)
    out = run_gdb(relay, [
        "break gdb_tick",
        "continue",
        "bt",
        "print round",
        "continue",
        "print round",
        "set var gdb_value = 99",
        "x/wx gdb_tick",
        "delete",
        "x/wx gdb_tick",
        "detach",
    ])
    relay.close()
    vm.expect(r"\[partita: gdb detached from guest 'dbg'\]", timeout=60)
    hits = re.findall(r"Breakpoint 1, gdb_tick \(round=round@entry=(\d+)\)", out)
    check(vm, len(hits) == 2 and int(hits[1]) == int(hits[0]) + 1, "two hits:\n" + out)
    check(vm, re.search(r"#1 .* in guest_main", out), "backtrace:\n" + out)
    check(vm, re.findall(r"^\$\d+ = (\d+)$", out, re.M) == hits, "round:\n" + out)
    # gdb shows its own memory without its breakpoints: the same word twice
    words = re.findall(r"<gdb_tick>:\s+(0x[0-9a-f]+)", out)
    check(vm, len(words) == 2 and words[0] == words[1] and words[0] != "0xe1200070",
          "gdb_tick's first word:\n" + out)
    vm.expect(r"\[dbg\] gdbtarget: round %d value 99" % (int(hits[1]) + 1), timeout=60)
    vm.expect(r"\[dbg\] gdbtarget: round \d+ value 99", timeout=60)
    check_hypervisor_clean(vm, vm.since(start))


@pytest.mark.deadline(150)
def test_gdb_kill(qemu, image):
    """gdb's kill applies the guest's on-crash policy (dbg's is the
    default, stop): the monitor comes back, the guest is stopped, rt runs
    on, and `start` gives the guest a fresh life."""
    vm, start, relay, _ = start_session(qemu, image)
    out = run_gdb(relay, ["kill"])
    relay.close()
    check(vm, "killed" in out, "gdb's kill:\n" + out)
    vm.expect(r"\[partita: gdb killed guest 'dbg'\]", timeout=60)
    vm.expect(r"guest 'dbg' stopped", timeout=60)
    vm.sendline("list")
    vm.expect(r"dbg\s+stopped", timeout=60)
    vm.sendline("start dbg")
    vm.expect(r"\[dbg\] gdbtarget: round 1 value 7", timeout=30)
    vm.expect(r"\[rt\] tick \d+", timeout=60)
    check_hypervisor_clean(vm, vm.since(start))


@pytest.mark.deadline(150)
def test_guest_breakpoints_under_gdb(qemu, image):
    """A guest's own breakpoint and watchpoint while gdb is attached to it
    (guests/test/debug.c dbg=1 gdb=1): their hits come to Partita (HDCR.TDE),
    which hands each back to the guest as the prefetch or data abort with
    the debug status it would take without gdb (trap_debug), and none
    stops gdb; gdb's own breakpoint (on tests_finish) does.  Every test of
    the guest passes as in test_debug.py."""
    elf = os.path.join(BUILD, "guests", "debug.elf")
    vm = qemu(kernel=image("gdbdebug"), smp=4)
    start = vm.mark()
    vm.expect(r"\[dbg\] debug: waiting for gdb", timeout=30)
    vm.expect_seen(PROMPT, timeout=30)
    relay = Relay(vm)
    console_gdb(vm, "dbg")
    out = run_gdb(relay, [
        "set var gdb_wait = 0",
        "break tests_finish",
        "continue",
        "detach",
    ], elf=elf)
    relay.close()
    vm.expect(r"\[partita: gdb detached from guest 'dbg'\]", timeout=60)
    check(vm, re.search(r"Breakpoint 1, .*tests_finish", out), "gdb's breakpoint:\n" + out)
    check(vm, "received signal" not in out and "watchpoint" not in out.lower(),
          "a hit of the guest's own came to gdb:\n" + out)
    wait_halted(vm, ["dbg"], start)
    text = vm.since(start)
    check_guest(vm, "dbg", 7, text)
    check_hypervisor_clean(vm, text)


@pytest.mark.deadline(150)
def test_gdb_on_the_boot_cpu_and_a_shared_cpu(qemu, image):
    """The stub runs on the boot CPU: a guest there (dbg) is halted between
    the monitor's turns; a guest on a shared CPU (sa) is halted while its
    partner there (sb) keeps its turns.  Each: a breakpoint hit, its VFP
    registers read and written (the guest sees gdb's d8), a variable set,
    detach, and it runs on with the new value."""
    vm = qemu(kernel=image("gdbshared"), smp=4)
    start = vm.mark()
    vm.expect(r"\[sb\] gdbtarget: round 2 value 7", timeout=40)
    vm.expect_seen(r"\[dbg\] gdbtarget: round 2 value 7", timeout=40)
    vm.expect_seen(PROMPT, timeout=30)
    for name in ("dbg", "sa"):
        relay = Relay(vm)
        console_gdb(vm, name)
        out = run_gdb(relay, ["break gdb_tick", "continue", "print round",
                              "print $d7", "set var $d8 = 2.5", "continue", "continue",
                              "print/x gdb_d8", "set var gdb_value = 55", "delete", "detach"])
        relay.close()
        check(vm, re.search(r"Breakpoint 1, gdb_tick", out), "%s's breakpoint:\n%s" % (name, out))
        # its VFP registers: read, and written back into the vCPU (on the
        # shared CPU through the lazy switch's save area)
        check(vm, re.search(r"^\$\d+ = 3\.14159265358979", out, re.M), "%s's d7:\n%s" % (name, out))
        check(vm, re.search(r"^\$\d+ = 0x4004000000000000$", out, re.M),
              "%s's d8 as the guest saw it:\n%s" % (name, out))
        vm.expect(r"\[partita: gdb detached from guest '%s'\]" % name, timeout=60)
        vm.expect(r"\[%s\] gdbtarget: round \d+ value 55" % name, timeout=30)
    rounds = [int(r) for r in re.findall(r"\[sb\] gdbtarget: round (\d+) value 7", vm.since(start))]
    check(vm, rounds == list(range(rounds[0], rounds[0] + len(rounds))), "sb's rounds: %s" % rounds)
    vm.expect(r"\[sb\] gdbtarget: round %d value 7" % (rounds[-1] + 1), timeout=30)
    check_hypervisor_clean(vm, vm.since(start))


@pytest.mark.deadline(120)
def test_gdb_on_a_cyclic_cpu(qemu, image):
    """gdb on a guest of a cyclic schedule's CPU (ca, beside cb in the
    other window): a breakpoint hit, its VFP registers read and written
    while the CPU may still hold them (the schedule's loop saves them for
    the boot CPU: sched_share_vfp_service), a variable set, detach; ca
    runs on with gdb's values, and cb keeps its rounds throughout."""
    vm = qemu(kernel=image("gdbcyclic"), smp=4)
    start = vm.mark()
    vm.expect(r"\[ca\] gdbtarget: round 2 value 7", timeout=60)
    vm.expect_seen(r"\[cb\] gdbtarget: round 2 value 7", timeout=60)
    vm.expect_seen(PROMPT, timeout=30)
    relay = Relay(vm)
    console_gdb(vm, "ca")
    out = run_gdb(relay, ["break gdb_tick", "continue", "print $d7", "set var $d8 = 2.5",
                          "continue", "continue", "print/x gdb_d8", "set var gdb_value = 55",
                          "delete", "detach"])
    relay.close()
    check(vm, re.search(r"Breakpoint 1, gdb_tick", out), "ca's breakpoint:\n" + out)
    check(vm, re.search(r"^\$\d+ = 3\.14159265358979", out, re.M), "ca's d7:\n" + out)
    check(vm, re.search(r"^\$\d+ = 0x4004000000000000$", out, re.M),
          "ca's d8 as the guest saw it:\n" + out)
    vm.expect(r"\[partita: gdb detached from guest 'ca'\]", timeout=60)
    vm.expect(r"\[ca\] gdbtarget: round \d+ value 55", timeout=60)
    rounds = [int(r) for r in re.findall(r"\[cb\] gdbtarget: round (\d+) value 7", vm.since(start))]
    check(vm, rounds == list(range(rounds[0], rounds[0] + len(rounds))), "cb's rounds: %s" % rounds)
    vm.expect(r"\[cb\] gdbtarget: round %d value 7" % (rounds[-1] + 1), timeout=60)
    check_hypervisor_clean(vm, vm.since(start))


def test_gdb_session_left_with_ctrl_a(qemu, image):
    """gdb went away without detaching: Ctrl-A three times between packets
    detaches for it; the guest runs on and the monitor answers."""
    vm, start, relay, _ = start_session(qemu, image)
    relay.close()
    vm.send("\x01\x01\x01")
    vm.expect(r"\[partita: gdb detached \(Ctrl-A x3\) from guest 'dbg'\]", timeout=60)
    vm.expect(r"\[dbg\] gdbtarget: round \d+ value 7", timeout=30)
    vm.sendline("list")
    vm.expect(r"dbg\s+running", timeout=60)
    check_hypervisor_clean(vm, vm.since(start))


# where each stepi lands: gdb_cond (ARM) and gdb_it (Thumb) in gdbtarget.c
COND_STEPS = [4, 8, 12, 16, 24, 28]      # addne skipped, bne not taken, beq taken
IT_STEPS = [2, 4, 6, 8, 10, 12, 16, 18]  # ite ne: addne skipped, addeq; it eq: beq taken
# gdb's own software step goes past an IT block's instructions whose
# condition fails (its thumb_get_next_pcs); the stub stops on them, as the
# hardware's step would (they execute as NOPs)
IT_STEPS_GDB = [2, 4, 8, 10, 12, 16, 18]


def step_commands(func, steps):
    return (["break *%s" % func, "continue", "display/i $pc"] + ["stepi"] * (len(steps) + 1)
            + ["undisplay", "delete"])


def step_offsets(out, func):
    """the offsets in func after each stepi (display/i shows the PC after
    each), then where its return went"""
    out = out[out.find("in %s ()" % func):]
    at = re.findall(r"=> 0x[0-9a-f]+ <(%s|guest_main)\+?(\d*)>" % func, out)
    return [int(o or 0) if f == func else f for f, o in at]


@pytest.mark.deadline(180)
def test_gdb_single_step(qemu, image):
    """Single step over conditional ARM instructions (a skipped ADD, a
    branch not taken and one taken) and a Thumb IT block (a skipped ADD,
    an executed one, a branch made conditional by IT), then the return to
    the caller.  With `set osabi none` gdb has no software single step of
    its own and sends `s`: the stub's step (arm_next.c, a BKPT on the next
    instruction, only that vCPU resumed); with gdb's default (GNU/Linux)
    ABI gdb steps itself with Z0 breakpoints (and goes past the skipped
    instruction of the IT block)."""
    vm, start, relay, _ = start_session(qemu, image)
    for osabi in ("none", "default"):
        if osabi == "default":
            relay = Relay(vm)
            console_gdb(vm, "dbg")
        out = run_gdb(relay, ["set osabi %s" % ("none" if osabi == "none" else "auto")]
                      + step_commands("gdb_cond", COND_STEPS)
                      + step_commands("gdb_it", IT_STEPS) + ["detach"])
        relay.close()
        vm.expect(r"\[partita: gdb detached from guest 'dbg'\]", timeout=60)
        if osabi == "none":
            check(vm, "$s#73" in relay.sent, "gdb sent no step:\n" + relay.sent[-2000:])
        cond = step_offsets(out, "gdb_cond")
        check(vm, cond[:len(COND_STEPS) + 1] == COND_STEPS + ["guest_main"],
              "%s: ARM steps %s:\n%s" % (osabi, cond, out))
        it = step_offsets(out, "gdb_it")
        want = IT_STEPS if osabi == "none" else IT_STEPS_GDB
        check(vm, it[:len(want) + 1] == want + ["guest_main"],
              "%s: Thumb steps %s:\n%s" % (osabi, it, out))
        vm.expect(r"\[dbg\] gdbtarget: round \d+ value 7", timeout=60)
    check_hypervisor_clean(vm, vm.since(start))


@pytest.mark.deadline(180)
def test_gdb_hardware_breakpoints_and_watchpoints(qemu, image):
    """Z1-Z4 on the CPU's debug registers (gdb takes the highest-numbered
    comparators; hits come to Partita through HDCR.TDE): a watchpoint on
    gdb_watched (a write every fifth round) stops twice with the old and
    new value, an rwatch on gdb_value stops in gdb_tick, an awatch on
    gdb_watched stops at its read, a hardware breakpoint on gdb_tick stops
    there; after detach the guest runs on
    and no comparator of gdb's fires in it."""
    vm, start, relay, _ = start_session(qemu, image)
    out = run_gdb(relay, [
        "watch gdb_watched",
        "continue",
        "continue",
        "delete",
        "rwatch gdb_value",
        "continue",
        "delete",
        "awatch gdb_watched",
        "continue",
        "delete",
        "hbreak gdb_tick",
        "continue",
        "print round",
        "delete",
        "detach",
    ])
    relay.close()
    vm.expect(r"\[partita: gdb detached from guest 'dbg'\]", timeout=60)
    check(vm, "Sending packet: $Z2" in out or "Hardware watchpoint 1: gdb_watched" in out,
          "a hardware watchpoint:\n" + out)
    old_new = re.findall(r"Old value = (\d+)\s+New value = (\d+)", out)
    check(vm, len(old_new) == 2 and all(int(n) == int(o) + 1 for o, n in old_new)
          and int(old_new[1][0]) == int(old_new[0][1]), "two writes seen:\n" + out)
    check(vm, re.search(r"Hardware read watchpoint 2: gdb_value\s+Value = 7", out),
          "the read watchpoint:\n" + out)
    check(vm, re.search(r"Hardware access \(read/write\) watchpoint 3: gdb_watched", out),
          "the access watchpoint:\n" + out)
    check(vm, re.search(r"Breakpoint 4, gdb_tick \(round=", out), "the hbreak:\n" + out)
    check(vm, all(z in relay.sent for z in ("Z1,", "Z2,", "Z3,", "Z4,")),
          "gdb used Z1-Z4:\n" + relay.sent[-3000:])
    # past a fifth round (a write of gdb_watched) and on: nothing of gdb's left
    r = int(vm.expect(r"\[dbg\] gdbtarget: round (\d+) value 7", timeout=60).group(1))
    vm.expect(r"\[dbg\] gdbtarget: round %d value 7" % (r + 6), timeout=30)
    vm.sendline("list")
    vm.expect(r"dbg\s+running", timeout=60)
    check_hypervisor_clean(vm, vm.since(start))


@pytest.mark.deadline(150)
def test_gdb_vfp_registers(qemu, image):
    """The VFP registers through the target description (org.gnu.gdb.arm.vfp:
    d0-d31, fpscr): gdbtarget put pi in d7 and d8; gdb reads d7, writes 2.5
    into d8, and the guest, running on, copies d8 into gdb_d8 - gdb's value,
    restored into the vCPU's VFP (saved when it left its CPU for gdb)."""
    vm, start, relay, _ = start_session(qemu, image)
    out = run_gdb(relay, [
        "print $d7",
        "print/x $fpscr",
        "set var $d8 = 2.5",
        "print $d8",
        "break gdb_tick",
        "continue",
        "continue",
        "print/x gdb_d8",
        "print $d8",
        "delete",
        "detach",
    ])
    relay.close()
    vm.expect(r"\[partita: gdb detached from guest 'dbg'\]", timeout=60)
    values = re.findall(r"^\$\d+ = (.*)$", out, re.M)
    check(vm, len(values) == 5, "five values:\n" + out)
    check(vm, values[0].startswith("3.14159265358979"), "pi in d7:\n" + out)
    check(vm, re.match(r"0x[0-9a-f]+$", values[1]), "fpscr:\n" + out)
    check(vm, values[2] == "2.5" and values[4] == "2.5", "d8 written:\n" + out)
    check(vm, values[3] == "0x4004000000000000", "the guest saw gdb's d8:\n" + out)
    vm.expect(r"\[dbg\] gdbtarget: round \d+ value 7", timeout=60)
    check_hypervisor_clean(vm, vm.since(start))
