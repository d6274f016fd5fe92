"""System-test harness: boot Partita in QEMU and talk to its serial console.

A test asks the `qemu` fixture for a running QEMU and then drives the serial
console pexpect-style:

    def test_prompt(qemu, partita_bin):
        vm = qemu(kernel=partita_bin, smp=2)
        vm.expect(r"smp: 2 of 2 CPUs online")
        vm.expect(PROMPT)
        vm.sendline("version")

Nothing here can hang: every QEMU runs under `timeout`, every wait has a
timeout, and each test has a whole-test deadline (SIGALRM; default
DEFAULT_DEADLINE seconds, `@pytest.mark.deadline(SECONDS)` to change it).
Every QEMU a test started is killed when the test ends.  When something
fails, the exception carries the command line and the whole captured
console output.
"""
import codecs
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pytest

sys.dont_write_bytecode = True      # keep the work tree free of __pycache__

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("BUILD", os.path.join(ROOT, "build"))
QEMU_BIN = os.environ.get("QEMU", "qemu-system-arm")

PROMPT = r"partita> "               # Partita's monitor prompt
DEFAULT_DEADLINE = 90               # seconds for a whole test
QEMU_LIFETIME = 120                 # `timeout` kills any QEMU after this
BOOT_TIMEOUT = 30                   # generous: 2 cores, -smp 4 under TCG
# the longest a test waits for an event it caused (a command's answer, a
# halt): only to end a hang.  A CI run beside a second one kept gdb's halt
# on vexpress-a15 from its line for over 10 s, how long this was.
EVENT_TIMEOUT = 60

# `make coverage` (scripts/coverage/coverage.py): every QEMU logs the
# translation blocks it translates in the hypervisor's text (ADDR..ADDR in
# PARTITA_COVERAGE_RANGE) into the folder PARTITA_COVERAGE names, one file
# per QEMU process.  A block is translated once, when it first runs, so the
# log is small and the tests' timing hardly changes.  Unset: nothing logged.
COVERAGE_DIR = os.environ.get("PARTITA_COVERAGE")
COVERAGE_RANGE = os.environ.get("PARTITA_COVERAGE_RANGE", "0xf0000000..0xf01fffff")


def coverage_args(argv):
    """The logging options for a QEMU command line, when coverage is on."""
    if not COVERAGE_DIR or not argv or "qemu-system" not in os.path.basename(argv[0]):
        return []
    os.makedirs(COVERAGE_DIR, exist_ok=True)
    return ["-d", "in_asm", "-dfilter", COVERAGE_RANGE,
            "-D", os.path.join(COVERAGE_DIR, "qemu-%d.log")]


class Timeout(AssertionError):
    """An expect() that did not match in time (carries the whole output)."""


class DeadlineExceeded(Exception):
    """A whole test ran past its deadline."""


def _search_ignoring(rx, text, pos, ignore):
    """rx.search(text, pos), but in text with the matches of `ignore` cut
    out.  Returns (match, end): end is the match's end in `text`."""
    if ignore is None:
        m = rx.search(text, pos)
        return m, (m.end() if m else None)
    kept, starts, at = [], [], pos     # the pieces left, and where each began
    for cut in re.finditer(ignore, text[pos:]):
        kept.append(text[at:pos + cut.start()])
        starts.append(at)
        at = pos + cut.end()
    kept.append(text[at:])
    starts.append(at)
    m = rx.search("".join(kept))
    if not m:
        return None, None
    off = m.end()                       # map the end back into text
    for piece, start in zip(kept, starts):
        if off <= len(piece):
            return m, start + off
        off -= len(piece)
    return m, len(text)


class Qemu:
    """One qemu-system-arm process with the serial console on stdio.

    `-nographic -monitor none` puts the first serial port straight on
    stdio: there is no monitor multiplexer, so no Ctrl-A escape to trip
    over.  stdout (the console) and stderr (QEMU's own messages) are read
    by background threads.
    """

    CHAR_DELAY = 0.003              # seconds between input characters

    def __init__(self, argv, lifetime=QEMU_LIFETIME, name="qemu"):
        self.name = name
        self.qemu_argv = list(argv) + coverage_args(argv)
        self.argv = ["timeout", "-s", "TERM", "-k", "5", str(lifetime)] + self.qemu_argv
        self._buf = ""
        self._err = ""
        self._pos = 0               # expect() searches from here
        self._cond = threading.Condition()
        self._eof = False
        self.proc = subprocess.Popen(
            self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, bufsize=0, start_new_session=True)
        self._threads = [
            threading.Thread(target=self._reader, args=(self.proc.stdout, False),
                             daemon=True),
            threading.Thread(target=self._reader, args=(self.proc.stderr, True),
                             daemon=True),
        ]
        for t in self._threads:
            t.start()

    # ---- reading -------------------------------------------------------
    def _reader(self, pipe, is_err):
        fd = pipe.fileno()
        dec = codecs.getincrementaldecoder("utf-8")(errors="replace")
        while True:
            try:
                data = os.read(fd, 4096)
            except OSError:
                data = b""
            with self._cond:
                if not data:
                    if not is_err:
                        self._eof = True
                    self._cond.notify_all()
                    return
                text = dec.decode(data)
                if is_err:
                    self._err += text
                else:
                    self._buf += text
                self._cond.notify_all()

    @property
    def output(self):
        """Everything the console printed so far."""
        with self._cond:
            return self._buf

    @property
    def stderr(self):
        with self._cond:
            return self._err

    def lines(self):
        """The console output split into lines (\\r\\n or \\n)."""
        return self.output.replace("\r\n", "\n").split("\n")

    def describe(self, why):
        """A readable failure report: why, the command, the whole output."""
        out = self.output
        msg = [why, "", "command: " + " ".join(shlex.quote(a) for a in self.qemu_argv)]
        rc = self.proc.poll()
        if rc is not None:
            msg.append("qemu exited with status %d" % rc)
        msg += ["", "---- console output (%d chars) ----" % len(out),
                out.replace("\r\n", "\n"), "---- end of console output ----"]
        if self.stderr.strip():
            msg += ["---- qemu stderr ----", self.stderr.rstrip(), "---- end ----"]
        return "\n".join(msg)

    def _search(self, pattern, pos, timeout, ignore=None):
        """Wait up to `timeout` s for `pattern` (a regex) in the output from
        `pos` on.  Returns (match, end, None), end being the match's end in
        the output, or (None, None, why) when it did not show up or QEMU's
        output ended first.  With `ignore` (a regex), its matches are cut
        out of the output before `pattern` is looked for: another console's
        whole lines, which may come in the middle of a line of this one."""
        rx = re.compile(pattern) if isinstance(pattern, str) else pattern
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                m, end = _search_ignoring(rx, self._buf, pos, ignore)
                if m:
                    return m, end, None
                left = deadline - time.monotonic()
                if self._eof:
                    return None, None, "QEMU's output ended"
                if left <= 0:
                    return None, None, "timed out after %.1f s" % timeout
                self._cond.wait(min(left, 0.5))

    def expect(self, pattern, timeout=EVENT_TIMEOUT, ignore=None):
        """Wait for `pattern` (a regex) in the output after the last match.

        Returns the re.Match; the next expect() searches after its end.
        Raises Timeout, with the whole output, when it does not show up
        in `timeout` seconds or QEMU's output ends first.  `ignore`: text
        to cut out first (see _search); the match is then one of the
        output without it.
        """
        m, end, why = self._search(pattern, self._pos, timeout, ignore)
        if not m:
            raise Timeout(self.describe("%s: %s waiting for /%s/"
                                        % (self.name, why, getattr(pattern, "pattern", pattern))))
        self._pos = end
        return m

    def expect_seen(self, pattern, timeout=EVENT_TIMEOUT):
        """Wait for `pattern` anywhere in the output, before or after the last
        match (for lines of other CPUs that race with the one expected last).
        Does not move expect()'s position."""
        m, _, why = self._search(pattern, 0, timeout)
        if not m:
            raise Timeout(self.describe("%s: %s waiting for /%s/ anywhere"
                                        % (self.name, why, getattr(pattern, "pattern", pattern))))
        return m

    def expect_not(self, pattern, within=1.0):
        """Assert that `pattern` does not appear (anywhere) for `within` s."""
        m, _, _ = self._search(pattern, 0, within)
        if m:
            raise AssertionError(self.describe(
                "%s: unexpected /%s/ in the output: %r"
                % (self.name, m.re.pattern, m.group(0))))

    def settle(self, quiet=0.5, timeout=10):
        """Wait until the output has been silent for `quiet` seconds."""
        end = time.monotonic() + timeout
        with self._cond:
            n = len(self._buf)
            last = time.monotonic()
            while time.monotonic() < end and not self._eof:
                self._cond.wait(0.1)
                if len(self._buf) != n:
                    n, last = len(self._buf), time.monotonic()
                elif time.monotonic() - last >= quiet:
                    return
        if not self._eof:
            raise Timeout(self.describe("%s: output did not settle in %.1f s"
                                        % (self.name, timeout)))

    def matched(self):
        """Where the last expect()'s match ended: what follows it, however
        much more output arrived before the test looks (mark() is the end of
        the output so far, which may already hold the next lines)."""
        with self._cond:
            return self._pos

    def mark(self):
        """The current end of the output (for slicing what follows)."""
        with self._cond:
            return len(self._buf)

    def since(self, mark):
        with self._cond:
            return self._buf[mark:]

    # ---- writing -------------------------------------------------------
    def send(self, text, delay=None):
        """Type `text` on the serial input one character at a time.

        A PL011 receive FIFO holds 16 characters and the guest empties it
        by interrupt: typing slowly never overruns it.
        """
        delay = self.CHAR_DELAY if delay is None else delay
        if self.proc.poll() is not None:
            raise AssertionError(self.describe("%s: cannot send %r: QEMU has exited"
                                               % (self.name, text)))
        for ch in text.encode():
            try:
                self.proc.stdin.write(bytes([ch]))
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError) as e:
                raise AssertionError(self.describe("%s: writing to QEMU failed: %s"
                                                   % (self.name, e)))
            time.sleep(delay)

    def sendline(self, cmd=""):
        """Type a command and Enter (a carriage return, as a terminal sends)."""
        self.send(cmd + "\r")

    # ---- ending --------------------------------------------------------
    def alive(self):
        return self.proc.poll() is None

    def wait_exit(self, timeout=EVENT_TIMEOUT):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise Timeout(self.describe("%s: QEMU did not exit in %.1f s"
                                        % (self.name, timeout)))

    def kill(self):
        """Stop QEMU (and the `timeout` wrapping it): its own process group."""
        if self.proc.poll() is None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    self.proc.wait(3)
                    break
                except subprocess.TimeoutExpired:
                    continue
        for f in (self.proc.stdin,):
            try:
                f.close()
            except OSError:
                pass
        for t in self._threads:
            t.join(2)
        for f in (self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except OSError:
                pass


def qemu_argv(kernel=None, machine="virt,virtualization=on", cpu="cortex-a15", smp=4,
              mem="1G", bios=None, dtb=None, extra=()):
    argv = [QEMU_BIN, "-M", machine, "-cpu", cpu, "-smp", str(smp), "-m", str(mem),
            "-nographic", "-monitor", "none"] + no_audio()
    if bios:
        argv += ["-bios", bios]
    if kernel:
        argv += ["-kernel", kernel]
    if dtb:
        argv += ["-dtb", dtb]
    return argv + list(extra)


_NO_AUDIO = []


def no_audio():
    """QEMU's options for no host audio.  QEMU 10 refuses a board with sound
    hardware (vexpress) when it finds no default audio driver, as on a
    headless machine, unless told `-audio none`; QEMU 7.2's -audio wants a
    sound card model too and refuses the plain form, and takes the first
    -audiodev as every sound device's backend instead.  Asked once: build a
    board with it and dump its DT, which exits at once."""
    if not _NO_AUDIO:
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run(["timeout", "30", QEMU_BIN, "-M", "virt,dumpdtb=%s/x.dtb" % d,
                                "-nographic", "-monitor", "none", "-audio", "none"],
                               capture_output=True, text=True)
        _NO_AUDIO.append(["-audio", "none"] if r.returncode == 0 else
                         ["-audiodev", "none,id=noaudio"])
    return list(_NO_AUDIO[0])


_VERSION = []


def qemu_version():
    """This QEMU's version as a tuple, (7, 2, 22) or (10, 0, 13), for the
    tests that hold an older QEMU to what it models (docs/qemu-versions.md).
    Asked once: `--version` prints it and exits."""
    if not _VERSION:
        r = subprocess.run(["timeout", "30", QEMU_BIN, "--version"], capture_output=True,
                           text=True)
        m = re.search(r"version (\d+)\.(\d+)\.(\d+)", r.stdout)
        assert m, "%s --version: %r %r" % (QEMU_BIN, r.stdout, r.stderr)
        _VERSION.append(tuple(int(x) for x in m.groups()))
    return _VERSION[0]


_TAKES_CPU = {}


def machine_takes_cpu(machine, cpu):
    """Does this QEMU build `machine` with `cpu`?  (QEMU 10 gives some boards
    their CPU only: vexpress-a15 refuses a Cortex-A7.)  Asked once per pair:
    QEMU builds the board, then waits stopped (-S), or refuses at once; not
    every board can dump a DT and exit."""
    key = (machine, cpu)
    if key not in _TAKES_CPU:
        r = subprocess.run(["timeout", "5", QEMU_BIN, "-M", machine, "-cpu", cpu, "-S",
                            "-display", "none", "-monitor", "none", "-serial", "none"]
                           + no_audio(), capture_output=True, text=True)
        _TAKES_CPU[key] = "Invalid CPU model" not in r.stderr
    return _TAKES_CPU[key]


# ---- Partita's console, checked ---------------------------------------------
CPU_LINE = re.compile(r"^cpu(\d+): MPIDR (0x[0-9a-f]{8}) online \(start mode ([\w-]+)\)$")
INFO_CPU_LINE = re.compile(r"^  cpu(\d+)  MPIDR (0x[0-9a-f]{8})  start mode ([\w-]+)\s+(\S.*)$")
RAM_BASE = 0x40000000


def mem_mib(mem):
    n, unit = int(mem[:-1]), mem[-1].upper()
    return n * {"M": 1, "G": 1024}[unit]


def check(vm, cond, why):
    """assert with the whole console output in the message."""
    if not cond:
        raise AssertionError(vm.describe(why))


# What Partita's boot lines say about each board it is tested on: RAM base,
# then the gic:, timer: and console: lines (regexes)
VIRT = {
    "ram_base": RAM_BASE,
    "lines": [r"gic: GICD 0x08000000 GICC 0x08010000 GICH 0x08030000 GICV 0x08040000, "
              r"maintenance IRQ 25, \d+ IRQs\r\n",
              r"timer: \d+ Hz, virtual IRQ 27, hypervisor IRQ 26\r\n",
              r"console: /pl011@9000000 \(arm,pl011\), IRQ 33\r\n"],
}


def boot_to_prompt(vm, smp, mode, psci, mem, start=0, load=None, board=VIRT,
                   secondary_mode=None):
    """Follow a boot to the monitor prompt, checking every line on the way:
    the boot CPU's start mode, the DT's CPU count and memory against -smp and
    -m, the GIC, timer, console and PSCI lines, one `cpuN:` line per CPU with
    the start mode `mode`, `smp: N of N CPUs online`, no error, the prompt.
    `start`: where Partita's output begins (after a bootloader's); `load`:
    the address Partita was loaded at, where its footprint must begin;
    `board`: the expected RAM base and platform lines (VIRT by default);
    `secondary_mode`: the secondaries' start mode when it is not `mode`.
    Returns Partita's output up to the prompt, as a list of lines."""
    if mode == "secure":
        vm.expect(r"partita: secure start: [^\r\n]*\r\n", BOOT_TIMEOUT)
    vm.expect(r"\r\nPartita \S+ - ARMv7-A micro-hypervisor\r\n", BOOT_TIMEOUT)
    m = vm.expect(r"boot: start mode ([\w-]+), model \"([^\"]*)\", (\d+) CPUs in the "
                  r"device tree\r\n")
    check(vm, m.group(1) == mode, "boot CPU start mode %r, expected %r" % (m.group(1), mode))
    check(vm, int(m.group(3)) == smp, "%s CPUs in the DT, -smp %d" % (m.group(3), smp))
    m = vm.expect(r"memory: 0x([0-9a-f]{8})-0x([0-9a-f]{8,}) \((\d+) MiB\)\r\n")
    base, end, mib = int(m.group(1), 16), int(m.group(2), 16), int(m.group(3))
    check(vm, base == board["ram_base"] and mib == mem_mib(mem) and end - base == mib << 20,
          "memory line %r does not match -m %s" % (m.group(0).strip(), mem))
    m = vm.expect(r"hypervisor: 0x([0-9a-f]{8})-0x([0-9a-f]{8}) \((\d+) KiB\)\r\n")
    hs, he = int(m.group(1), 16), int(m.group(2), 16)
    check(vm, he > hs and (he - hs) >> 10 == int(m.group(3)) and (load is None or hs == load),
          "hypervisor line %r (loaded at %s)" % (m.group(0).strip(),
                                                 load if load is None else hex(load)))
    for line in board["lines"]:
        vm.expect(line)
    vm.expect(r"psci: %s\r\n" % psci)
    m = vm.expect(r"smp: (\d+) of (\d+) CPUs online\r\n", BOOT_TIMEOUT)
    check(vm, (int(m.group(1)), int(m.group(2))) == (smp, smp),
          "%r, expected %d of %d (-smp %d)" % (m.group(0).strip(), smp, smp, smp))
    vm.expect(PROMPT, BOOT_TIMEOUT)

    lines = vm.since(start).split("\r\n")
    cpus = [CPU_LINE.match(l) for l in lines]
    cpus = [c for c in cpus if c]
    idx = sorted(int(c.group(1)) for c in cpus)
    check(vm, idx == list(range(smp)),
          "cpuN lines for CPUs %s, expected each of 0..%d exactly once" % (idx, smp - 1))
    for c in cpus:
        want = mode if c.group(1) == "0" else (secondary_mode or mode)
        check(vm, c.group(3) == want,
              "cpu%s: start mode %s, expected %s" % (c.group(1), c.group(3), want))
    mpidrs = [c.group(2) for c in cpus]
    check(vm, len(set(mpidrs)) == smp, "duplicate MPIDRs: %s" % mpidrs)
    bad = [l for l in lines if l.startswith("error:") or l.startswith("warning:")
           or "***" in l]
    check(vm, not bad, "errors during boot: %s" % bad)
    return lines


def run_info(vm, smp, mode, mem, ram_base=RAM_BASE):
    """`info`: the online count, each CPU's start mode, the RAM."""
    start = vm.mark()
    vm.sendline("info")
    vm.expect(r"info\r\n")
    m = vm.expect(r"cpus: (\d+) in the device tree, (\d+) online\r\n")
    check(vm, (int(m.group(1)), int(m.group(2))) == (smp, smp),
          "info says %r with -smp %d" % (m.group(0).strip(), smp))
    vm.expect(r"uptime: \d+ s\r\n")
    vm.expect(PROMPT)
    text = vm.since(start).split("\r\n")
    rows = [INFO_CPU_LINE.match(l) for l in text]
    rows = [r for r in rows if r]
    check(vm, sorted(int(r.group(1)) for r in rows) == list(range(smp)),
          "info lists CPUs %s" % [r.group(1) for r in rows])
    for r in rows:
        check(vm, r.group(3) == mode and r.group(4).strip() == "online",
              "info: %r, expected start mode %s online" % (r.group(0), mode))
    ram = [l for l in text if l.startswith("  RAM ")]
    want = "0x%08x-0x%08x  %d MiB" % (ram_base, ram_base + (mem_mib(mem) << 20), mem_mib(mem))
    check(vm, len(ram) == 1 and want in ram[0], "info RAM lines %s, expected %s" % (ram, want))
    check(vm, any(l.startswith("platform: ") for l in text), "info has no platform line")
    check(vm, any(l.startswith("gic: ") for l in text), "info has no gic line")
    check(vm, any(l.startswith("timer: ") for l in text), "info has no timer line")
    check(vm, any(l.startswith("footprint: ") for l in text), "info has no footprint line")


# a whole line of a guest's console as Partita prints it, behind the
# guest's name: it comes whenever the guest prints, between a command's
# lines and in the middle of its echo too
GUEST_LINE = r"\[[A-Za-z][\w-]*\] [^\r\n]*\r\n"


def command(vm, cmd, timeout=EVENT_TIMEOUT):
    """Run a monitor command; returns its output lines (without echo or
    prompt, and without the guests' lines that came meanwhile)."""
    vm.sendline(cmd)
    m = vm.expect(r"(?s)%s\r\n(.*?)%s" % (re.escape(cmd), PROMPT), timeout=timeout,
                  ignore=GUEST_LINE)
    return m.group(1).split("\r\n")[:-1]


# ---- fixtures ------------------------------------------------------------
@pytest.fixture(scope="session")
def build_dir():
    return BUILD


def _artifact(name):
    path = os.path.join(BUILD, name)
    if not os.path.exists(path):
        pytest.fail("%s is missing: run `make` first" % path)
    return path


@pytest.fixture(scope="session")
def partita_bin():
    """The raw image (zImage header) with no guests configured: boot tests."""
    return _artifact("images/none.bin")


@pytest.fixture(scope="session")
def partita_elf():
    """The same as an ELF: loads at its physical address, 0x40200000."""
    return _artifact("images/none.elf")


@pytest.fixture(scope="session")
def image():
    """image("NAME") -> build/images/NAME.bin, built from NAME.dts in
    tests/system/configs/ or guests/demo/ (the Makefile's CONFIG_DIRS)."""
    return lambda name, ext="bin": _artifact("images/%s.%s" % (name, ext))


@pytest.fixture
def qemu(request):
    """A factory: qemu(kernel=..., machine=, cpu=, smp=, mem=, bios=, dtb=,
    extra=[...], lifetime=) starts a QEMU and returns its Qemu.  All are
    killed when the test ends; a failing test's report gets their output."""
    started = []

    def start(kernel=None, lifetime=QEMU_LIFETIME, name=None, **kw):
        vm = Qemu(qemu_argv(kernel=kernel, **kw), lifetime=lifetime,
                  name=name or "qemu#%d" % (len(started) + 1))
        started.append(vm)
        return vm

    request.node._partita_vms = started
    yield start
    for vm in started:
        vm.kill()


# ---- whole-test deadline ---------------------------------------------------
def pytest_configure(config):
    config.addinivalue_line(
        "markers", "deadline(seconds): whole-test timeout (default %d s)" % DEFAULT_DEADLINE)


def _on_deadline(signum, frame):
    raise DeadlineExceeded("test ran past its deadline")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Arm SIGALRM around setup+call+teardown: a stuck test fails, never hangs."""
    m = item.get_closest_marker("deadline")
    seconds = int(m.args[0]) if m else DEFAULT_DEADLINE
    old = signal.signal(signal.SIGALRM, _on_deadline)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's report shows each QEMU's console, unless the failure
    message (a Timeout, or an assertion built with Qemu.describe) has it."""
    outcome = yield
    rep = outcome.get_result()
    if rep.when != "call" or not rep.failed:
        return
    text = str(call.excinfo.value) if call.excinfo else ""
    if "---- console output" in text:
        return
    for vm in getattr(item, "_partita_vms", []):
        rep.sections.append(("%s console" % vm.name, "$ %s\n%s" % (
            " ".join(vm.qemu_argv), vm.output.replace("\r\n", "\n"))))
