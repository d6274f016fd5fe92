"""The system tests' shared helpers (conftest.py has the QEMU wrapper and
the fixtures): test guests' TEST/RESULT lines and the hypervisor's own,
waiting for lines of guests that run in parallel, the Linux shell behind
Partita's console, and watching a system under attack - the heartbeat of
the 'rt' guest (guests/test/rt.c, one line a second with its 1 kHz tick
count and the worst lateness of its timer interrupt) and the monitor's
response time."""
import math
import re
import time

from conftest import (EVENT_TIMEOUT, PROMPT, Timeout, boot_to_prompt, check, command,
                      qemu_version, run_info)

# ---- test guests (guests/test/*.c): TEST and RESULT lines ----------------------
SMP, MEM = 4, "1G"

GUEST_TIMEOUT = 30          # seconds from the prompt to a guest's RESULT line

# image -> {guest: number of TEST lines it prints}
IMAGES = {
    "traps": {"traps": 32},
    "isolation": {"probe": 5, "victim": 3},
    "smp": {"smp": 9},
}

TEST_RE = r"\[%s\] TEST (\S+): (PASS|FAIL)(.*?)\r\n"

RESULT_RE = r"\[%s\] RESULT: (\d+) passed, (\d+) failed\r\n"

# The irq test guest (guests/test/irq.c): a USR read of CNTPCT
# (CNTKCTL.PL0PCTEN set) reads the counter from QEMU 10.0 on, as on a real
# CPU; QEMU 7.2 traps it to Partita, which makes it undefined
# (docs/qemu-versions.md).  Versions between were not tried.
USR_CNTPCT = (10, 0)
USR_CNTPCT_FAIL = ("physical_counter_from_usr",
                   "a CNTPCT read from USR was undefined (CNTKCTL.PL0PCTEN set)")


def check_irq_guest(vm, name, vcpus, timeout=60):
    """The irq guest `name` (vcpus vCPUs) reports every test passed, but for
    what this QEMU does not model; returns the failures allowed that were
    seen.  It runs 10 tests, 13 with the IPI and SGI-filter ones of two vCPUs
    or more."""
    m = vm.expect_seen(RESULT_RE % name, timeout=timeout)
    fails = [(t, why.rstrip("\r")) for t, why in
             re.findall(r"\[%s\] TEST (\S+): FAIL (.*)" % name, vm.output)]
    allowed = [USR_CNTPCT_FAIL] if qemu_version() < USR_CNTPCT else []
    check(vm, fails in ([], allowed), "guest %s: failing interrupt tests: %s" % (name, fails))
    tests = 13 if vcpus > 1 else 10
    check(vm, (int(m.group(1)), int(m.group(2))) == (tests - len(fails), len(fails)),
          "guest %s: RESULT %s passed, %s failed of %d tests"
          % (name, m.group(1), m.group(2), tests))
    return fails


def guest_results(vm, name, text):
    """The TEST lines and the RESULT line of guest `name` in `text`
    (the monitor prompt may precede a guest line: search, not match)."""
    tests = re.findall(TEST_RE % re.escape(name), text)
    results = re.findall(RESULT_RE % re.escape(name), text)
    check(vm, len(results) == 1, "guest %s printed %d RESULT lines" % (name, len(results)))
    return tests, (int(results[0][0]), int(results[0][1]))


def check_guest(vm, name, want, text):
    """No FAIL, `want` tests each once, and a RESULT line that agrees."""
    tests, (passed, failed) = guest_results(vm, name, text)
    fails = ["%s:%s" % (t, why) for t, res, why in tests if res == "FAIL"]
    check(vm, not fails, "guest %s: failed tests: %s" % (name, "; ".join(fails)))
    names = [t for t, _, _ in tests]
    check(vm, len(names) == len(set(names)), "guest %s: a test reported twice: %s"
          % (name, names))
    check(vm, (passed, failed) == (want, 0) and len(names) == want,
          "guest %s: RESULT %d passed, %d failed, %d TEST lines; expected %d tests"
          % (name, passed, failed, len(names), want))
    return names


def check_hypervisor_clean(vm, text):
    """No guest crashed, no hypervisor error, fatal exception or warning,
    and Partita booted once (no reset of the machine)."""
    lines = text.replace("\r\n", "\n").split("\n")
    bad = [l for l in lines if re.search(r"crashed|fatal|panic|\*\*\*|^error:|^warning:|"
                                         r"did not leave", l)]
    check(vm, not bad, "unexpected hypervisor lines: %s" % bad)
    banners = [l for l in lines if re.match(r"Partita \S+ - ARMv7-A", l)]
    check(vm, len(banners) <= 1, "Partita booted %d times" % len(banners))


def boot_image(qemu, image, name, cpu):
    vm = qemu(kernel=image(name), cpu=cpu, smp=SMP, mem=MEM, name="%s-%s" % (name, cpu))
    start = vm.mark()
    boot_to_prompt(vm, SMP, "nonsecure-hyp", "smc", MEM)
    return vm, start


def wait_for(vm, pattern, start, timeout):
    """Wait until `pattern` shows up anywhere after `start` (guests run in
    parallel: their lines come in any order).  Returns the match."""
    rx = re.compile(pattern)
    deadline = time.monotonic() + timeout
    while True:
        m = rx.search(vm.since(start))
        if m:
            return m
        if time.monotonic() > deadline or not vm.alive():
            raise Timeout(vm.describe("%s: no /%s/ within %d s" % (vm.name, pattern, timeout)))
        time.sleep(0.05)


def wait_halted(vm, guests, start, settle=True, timeout=GUEST_TIMEOUT):
    """Each guest's RESULT line (within timeout s of the last) and its
    `halted (PSCI SYSTEM_OFF)` line, then (settle) until the console is
    quiet."""
    for g in guests:
        wait_for(vm, RESULT_RE % re.escape(g), start, timeout)
        wait_for(vm, r"guest '%s' halted \(PSCI SYSTEM_OFF\)\r\n" % re.escape(g), start, EVENT_TIMEOUT)
    if settle:
        vm.settle(quiet=0.3, timeout=10)


def monitor_answers(vm):
    """The monitor prompt still works: `help`, and `info` lists every
    physical CPU online."""
    vm.sendline("")
    vm.expect(PROMPT, 10)
    out = command(vm, "help")
    check(vm, any(l.split()[:1] == ["help"] for l in out), "help printed %r" % out)
    run_info(vm, SMP, "nonsecure-hyp", MEM)


# ---- the monitor ----------------------------------------------------------------


def wait_until(vm, cond, timeout=EVENT_TIMEOUT):
    """Wait until cond() holds (polling), then for the console to settle."""
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, vm.output[-2000:]
        time.sleep(0.02)
    vm.settle(0.1)

# the monitor's `info` line on the hypervisor's page pool
FREE_RE = r"hypervisor memory: (\d+) KiB free of (\d+) KiB"


def free_kib(vm):
    """The hypervisor's free memory, from the monitor's `info`."""
    for line in command(vm, "info"):
        m = re.match(FREE_RE, line)
        if m:
            return int(m.group(1))
    raise AssertionError("info shows no free memory line")


# ---- Linux behind Partita's console -----------------------------------------------
CTRL_A3 = "\x01\x01\x01"

READY = r"PARTITA-LINUX-READY (\S+) cpus=(\d+)"

# a whole line of another guest than the focused Linux, as Partita prints it
OTHER_CONSOLES = r"\[(?!linux\])[A-Za-z][\w-]*\] [^\r\n]*\r\n"


def hypervisor_lines(guest):
    """The hypervisor's own lines about one guest ("guest 'echo' halted
    (PSCI SYSTEM_OFF)"): a guest that halts by itself has them printed at
    any moment, in the middle of a line of the focused Linux too."""
    return r"guest '%s'[^\r\n]*\r\n" % re.escape(guest)


def shell_cuts(ignore=None):
    """What shell() cuts out of the focused console's output."""
    return OTHER_CONSOLES if ignore is None else "%s|%s" % (OTHER_CONSOLES, ignore)


def shell(vm, cmd, timeout=60, ignore=None):
    """Run a command at the focused Linux shell; returns its output lines.
    `ignore`: a regex for more lines to cut out wherever they come (the
    hypervisor's lines about a guest that changes state on its own)."""
    tag = "%08x" % (int(time.monotonic() * 1000) & 0xffffffff)
    vm.sendline("echo B%s; %s; echo E%s $?" % (tag, cmd, tag))
    # the other guests' lines ("[rt] tick ...") come in between, even in
    # the middle of one of Linux's: cut them out before matching
    m = vm.expect(r"(?s)\r\nB%s\r\n(.*?)E%s (\d+)\r\n" % (tag, tag), timeout=timeout,
                  ignore=shell_cuts(ignore))
    return m.group(1).replace("\r", "").splitlines(), int(m.group(2))


def rt_ticks(text):
    """The real-time guest's (ticks, worst jitter us) lines so far.  While rt
    has the input focus its lines are passed through without "[rt] " (README.md,
    "The console"): a test that walks the focus past rt sees one."""
    return [(int(a), int(b)) for a, b in
            re.findall(r"(?:\[rt\] |^)tick (\d+): jitter avg \d+ us, worst (\d+) us",
                       text, re.M)]


# ---- a system under attack: rt's heartbeat, the monitor's response time --------
# us: the worst lateness of rt's 1 kHz timer interrupt that a system test
# accepts.  The virtual counter follows the host's clock, so a vCPU thread
# the host does not run for a while sees its timer late by that much: 261 ms
# was seen with the hostile guest on a 2-core host at load 5 (other QEMUs
# running), 1.4 s with a second whole test suite running beside it.  A
# hypervisor that stops serving rt shows as ticks lost, which Heartbeat.check
# counts, or as a silence longer than its max_gap; this bound only catches a
# timer served far too late, and is no measure of speed.
RT_LATENESS_BOUND = 5000000

TICK = re.compile(r"\[(\w+)\] tick (\d+): jitter avg (\d+) us, worst (\d+) us\r\n")


class Heartbeat:
    """The tick lines of one guest, with the wall time each was first seen.
    Call poll() often (every few tenths of a second)."""

    def __init__(self, vm, guest="rt"):
        self.vm, self.guest = vm, guest
        self.pos = vm.mark()
        self.beats = []             # (seen at, tick, worst us)
        self.at = []                # where each beat is in the output
        self.started = time.monotonic()

    def poll(self):
        text = self.vm.since(self.pos)
        last = 0
        for m in TICK.finditer(text):
            if m.group(1) == self.guest:
                self.beats.append((time.monotonic(), int(m.group(2)), int(m.group(4))))
                self.at.append(self.pos + m.start())
            last = m.end()
        self.pos += last

    def check(self, max_gap, max_worst_us, min_beats=2, pace=None):
        """Ticks counted on without a gap, lines at most max_gap s apart (and
        the last one no older than that), timer lateness within bound.  An
        attack shorter than min_beats seconds (the hypervisor got faster)
        waits for the beats still to come: the guest must be ticking on.
        pace = (REGEX, MOST): between two beats another guest's periodic
        line comes at most MOST times - the guest keeps pace with the rest
        of the machine, however slowly QEMU runs it all."""
        self.poll()
        end = time.monotonic() + max_gap * min_beats
        while len(self.beats) < min_beats and time.monotonic() < end:
            time.sleep(0.2)
            self.poll()
        vm, b = self.vm, self.beats
        check(vm, len(b) >= min_beats, "%d heartbeats of '%s', want %d"
              % (len(b), self.guest, min_beats))
        for (t0, n0, _), (t1, n1, _) in zip(b, b[1:]):
            check(vm, n1 == n0 + 1000, "'%s' ticked from %d to %d between two lines"
                  % (self.guest, n0, n1))
            check(vm, t1 - t0 <= max_gap, "'%s' stalled: %.1f s between tick %d and %d"
                  % (self.guest, t1 - t0, n0, n1))
        for (p0, p1), (_, n0, _) in zip(zip(self.at, self.at[1:]), b):
            if pace:
                others = len(re.findall(pace[0], vm.output[p0:p1]))
                check(vm, others <= pace[1], "'%s' fell behind: %d of %r between its tick %d "
                      "and the next (at most %d)" % (self.guest, others, pace[0], n0, pace[1]))
        age = time.monotonic() - max(b[-1][0], self.started)
        check(vm, age <= max_gap, "'%s' silent for the last %.1f s" % (self.guest, age))
        worst = max(w for _, _, w in b)
        check(vm, worst <= max_worst_us, "'%s' timer interrupt up to %d us late (bound %d us)"
              % (self.guest, worst, max_worst_us))
        return worst


MONITOR_HANG = 120.0        # s: an answer that never comes, however busy the host
# The heartbeat guest's seconds per second of the bound before the monitor
# is late: rt runs on a QEMU thread of its own, which a loaded host may run
# ahead of the boot CPU's and of the thread that feeds the typed input (CI:
# 5 of rt's seconds for 3 s of 'stats hostile', with four QEMUs on two
# cores) - the hypervisor starving its monitor shows as many more.
MONITOR_BEATS_PER_S = 3


def monitor_rtt(vm, cmd, pattern, bound, hb=None):
    """Type a monitor command and time until `pattern` answers it.  With a
    heartbeat `hb` (polled meanwhile) the bound is in the system's own
    time: it fails once `bound` seconds have passed and the heartbeat guest
    has printed MONITOR_BEATS_PER_S times as many second lines since the
    command was typed (at least 2) - the hypervisor served it and not the
    monitor.  A host too busy to run QEMU stalls both and fails nothing.
    Without one, `bound` is wall clock."""
    start = vm.mark()
    t0 = time.monotonic()
    beats0 = len(hb.beats) if hb else 0
    vm.sendline(cmd)
    rx = re.compile(pattern)
    while not rx.search(vm.since(start)):
        elapsed = time.monotonic() - t0
        if hb:
            hb.poll()
            beats = len(hb.beats) - beats0
            late = max(2, MONITOR_BEATS_PER_S * math.ceil(bound))
            check(vm, (elapsed <= bound or beats < late) and
                  elapsed <= MONITOR_HANG and vm.alive(),
                  "the monitor did not answer %r within %.1f s (%d heartbeats of '%s' "
                  "meanwhile)" % (cmd, bound, beats, hb.guest))
        else:
            check(vm, elapsed <= bound and vm.alive(),
                  "the monitor did not answer %r within %.1f s" % (cmd, bound))
        time.sleep(0.05)
    return time.monotonic() - t0
