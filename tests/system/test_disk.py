"""Disks: virtio block devices of frontends, served by a driver
partition that never maps their memory.

  test_disk_frontends   tests/system/configs/disk.dts: 'one' and 'two'
      (guests/test/blkrw.c) write 512 KiB of pseudo-random data to their
      own disks and read it back, four rounds, checksums compared; reads
      and writes past the capacity are I/O errors; 'ro' finds its disk
      read-only and a write refused.  The frontends start first and wait
      (nothing times out): 10 s of silence, then the test starts the
      driver partition 'store' (guests/test/blkserve.c); its first life
      crashes in the middle of the write loops with requests in its
      slots, it is restarted, and its second life gets them again: no
      frontend sees an error, every checksum matches.  The monitor's `stats` then counts
      every request of the rounds, its bytes, and the requests given
      again to the driver's second life.
  test_disk_hostile_partners   tests/system/configs/diskhostile.dts: the driver
      partition answers every third request wrongly and marks slots it was
      never given done; 'vandal' writes random descriptors, indices,
      sectors and registers into its own device.  The honest frontends
      see those requests fail (I/O errors, tried again) and their data
      intact; Partita reports each wrong answer, stops only the vandal's
      device, and its monitor still answers; `stats` counts each wrong
      answer to an honest frontend as the request it retried.
  test_disk_frontend_ends_mid_request   tests/system/configs/diskstop.dts:
      the driver partition 'store' holds every request until told; 'one'
      puts a read into a canary buffer in flight and is stopped by the
      monitor, then started again; 'three' resets its own device with
      such a read in flight.  Told to serve, 'store' answers those reads
      too: Partita drops the answers (counted), the canaries stay intact
      after each frontend's rounds, 'two' writes and reads back its disk
      meanwhile, and 'store' and Partita go on.
  test_linux_vda   tests/system/configs/linuxdisk.dts: Debian's unmodified
      kernel with its own virtio_mmio and virtio_blk finds its disk as
      /dev/vda, of the configured size; 256 KiB written through it, the
      page cache dropped, read back the same.
  test_linux_driver_partition   tests/system/configs/linuxblkd.dts: Debian's
      kernel as the driver partition, partita-blkd serving from files in
      its RAM a bare-metal frontend (four blkrw rounds, checksums equal)
      and a second Debian kernel's /dev/vda (written, read back the same).
  test_linux_driver_restart   tests/system/configs/linuxblkdrestart.dts:
      the Linux driver partition owns QEMU's virtio-blk-device and serves
      the Linux frontend's disk from it; the frontend makes an ext2
      filesystem on its /dev/vda, writes a file, then files in a loop
      (sync after each) while the monitor restarts the driver partition
      in the middle; after the loop a file more, a remount, and every file
      reads back the same; no hung task, I/O error or filesystem error in
      the frontend's kernel log.
  test_disk_demo   guests/demo/diskdemo.dts (make run-disk): the README's
      walk-through - the bare-metal rt's rounds, and at linux's shell
      mkfs, mount and a file written and read back.
"""
import re

import pytest

from conftest import check, command
from helpers import (CTRL_A3, READY, boot_image, check_guest, check_hypervisor_clean, shell,
                     wait_for, wait_halted)

WAIT_FIRST = 10     # seconds the frontends wait for a driver partition
# blkrw's rounds (guests/test/blkrw.c): per round, 512 KiB in 32 KiB
# writes, a flush and 32 KiB reads; then three requests past the capacity,
# answered at once with IOERR
ROUND_REQUESTS = 16 + 1 + 16
ROUND_BYTES = 512 * 1024
PAST_CAPACITY = 3


def disk_stats(vm, guest):
    """The monitor's `stats NAME` lines of its disks: {disk: {counter: n}}
    ("read 4096 bytes": {"read": 4096}), a disk it drives as "DISK (driver)"."""
    out = {}
    for line in command(vm, "stats %s" % guest):
        m = re.match(r"\s+disk '(\w+)'( \(its driver\))?: (.*)$", line)
        if m:
            items = (re.match(r"(.*?) (\d+)( bytes)?$", x) for x in m.group(3).split(", "))
            out[m.group(1) + (" (driver)" if m.group(2) else "")] = {
                x.group(1): int(x.group(2)) for x in items}
    return out


@pytest.mark.deadline(240)
def test_disk_frontends(qemu, image):
    vm, start = boot_image(qemu, image, "disk", "cortex-a15")
    check(vm, "disk 'vd': driver store, queue 0x40800000+0x81000 (SPI 60): one at 0x0a000000 "
              "(SPI 48), two at 0x0a000000 (SPI 48), ro at 0x0a000200 (SPI 49) read-only"
          in vm.output, "no boot line for the disk")
    for g in ("one", "two", "ro"):
        wait_for(vm, r"\[%s\] blkrw: disk of \d+ sectors" % g, start, 30)
    # the frontends wait: nothing answered while the driver is stopped
    vm.settle(quiet=WAIT_FIRST, timeout=WAIT_FIRST + 10)
    text = vm.since(start)
    check(vm, "RESULT" not in text and "round 0" not in text,
          "a frontend went on without its driver partition")
    command(vm, "start store")
    wait_for(vm, r"\[store\] blkserve: generation 1,", start, 30)
    wait_for(vm, r"\[store\] blkserve: crashing with requests in its slots", start, 60)
    wait_for(vm, r"\[store\] blkserve: generation 2,", start, 60)
    wait_halted(vm, ["one", "two", "ro"], start)
    text = vm.since(start)
    check_guest(vm, "one", 3, text)
    check_guest(vm, "two", 3, text)
    check_guest(vm, "ro", 3, text)
    for g in ("one", "two"):
        rounds = re.findall(r"\[%s\] blkrw: round \d+: 512 KiB written and read back, "
                            r"checksums (0x[0-9a-f]+) (0x[0-9a-f]+)" % g, text)
        check(vm, len(rounds) == 4 and all(a == b for a, b in rounds),
              "guest %s: rounds %s" % (g, rounds))
    check(vm, "device needs reset" not in text, "a frontend's device was stopped")
    # the one crash is the driver partition's first life, on purpose
    crashes = re.findall(r"guest '(\w+)' crashed", text)
    check(vm, crashes == ["store"], "crashes: %s" % crashes)
    check_hypervisor_clean(vm, text.replace("guest 'store' crashed", "guest 'store' stopped"))
    check_counters(vm)


def check_counters(vm):
    """The counters after test_disk_frontends' workload: every request of
    4 rounds, answered once; the driver's second life got again what its
    first held."""
    rounds = 4
    for g in ("one", "two"):
        fe = disk_stats(vm, g).get("vd")
        want = {"requests": rounds * ROUND_REQUESTS + PAST_CAPACITY,
                "completed": rounds * ROUND_REQUESTS, "read": rounds * ROUND_BYTES,
                "written": rounds * ROUND_BYTES, "I/O errors": PAST_CAPACITY,
                "wrong answers": 0, "dropped": 0, "malformed rings": 0}
        check(vm, fe == want, "guest %s: disk counters %s, not %s" % (g, fe, want))
    # 'ro': a write refused, a 512-byte read, three past the capacity
    fe = disk_stats(vm, "ro").get("vd")
    want = {"requests": 2 + PAST_CAPACITY, "completed": 1, "read": 512, "written": 0,
            "I/O errors": 1 + PAST_CAPACITY, "wrong answers": 0, "dropped": 0,
            "malformed rings": 0}
    check(vm, fe == want, "guest ro: disk counters %s, not %s" % (fe, want))
    be = disk_stats(vm, "store").get("vd (driver)")
    answered = 2 * rounds * ROUND_REQUESTS + 1
    check(vm, be and be["answers"] == answered and be["wrong answers"] == 0 and
          be["given again to a next life"] > 0 and be["waiting"] == 0 and
          be["requests given"] == answered + be["given again to a next life"],
          "the driver's counters: %s (%d requests answered)" % (be, answered))


@pytest.mark.deadline(240)
def test_disk_hostile_partners(qemu, image):
    vm, start = boot_image(qemu, image, "diskhostile", "cortex-a15")
    wait_halted(vm, ["one", "two"], start, settle=False)
    wait_for(vm, r"\[vandal\] blkrw: hostile: 3000 rounds, \d+ resets", start, 120)
    text = vm.since(start)
    for g in ("one", "two"):
        check_guest(vm, g, 3, text)
        rounds = re.findall(r"\[%s\] blkrw: round \d+: 512 KiB written and read back, "
                            r"checksums (0x[0-9a-f]+) (0x[0-9a-f]+)" % g, text)
        check(vm, len(rounds) == 3 and all(a == b for a, b in rounds),
              "guest %s: rounds %s" % (g, rounds))
        m = re.search(r"\[%s\] blkrw: (\d+) I/O errors retried" % g, text)
        check(vm, m and int(m.group(1)) > 0, "guest %s: no failed request retried" % g)
    # each kind of wrong answer reported, on the driver partition's name
    for why in ("an answer in a slot that holds no request",
                "an answer with a wrong tag, length or status"):
        check(vm, "guest 'store': disk 'vd': %s" % why in text, "not reported: %s" % why)
    stopped = set(re.findall(r"guest '(\w+)': disk 'vd': device needs reset: ", text))
    check(vm, stopped <= {"vandal"}, "devices stopped: %s" % stopped)
    # the counters: every request an honest frontend saw fail was a wrong
    # answer (it retried each), all of them counted on the driver too
    wrong = 0
    for g in ("one", "two"):
        fe = disk_stats(vm, g).get("vd")
        retried = int(re.search(r"\[%s\] blkrw: (\d+) I/O errors retried" % g, text).group(1))
        check(vm, fe and fe["wrong answers"] == retried and
              fe["I/O errors"] == retried + PAST_CAPACITY and fe["malformed rings"] == 0 and
              fe["written"] == 3 * ROUND_BYTES and fe["read"] == 3 * ROUND_BYTES,
              "guest %s: disk counters %s, %d retried" % (g, fe, retried))
        wrong += fe["wrong answers"]
    be = disk_stats(vm, "store").get("vd (driver)")
    check(vm, be and be["wrong answers"] > wrong and be["given again to a next life"] == 0,
          "the driver's counters %s, %d wrong answers to the honest frontends" % (be, wrong))
    vandal = disk_stats(vm, "vandal").get("vd")
    check(vm, vandal and vandal["malformed rings"] > 0, "the vandal's counters %s" % vandal)
    check_hypervisor_clean(vm, text)
    # the driver partition serves on, and the monitor answers
    check(vm, any(line.split()[:2] == ["store", "running"] for line in command(vm, "list")),
          "the monitor does not answer, or the driver partition stopped")


def focus(vm, guest):
    """Give a guest the console's input."""
    vm.sendline("console %s" % guest)
    vm.expect(r"input now goes to guest '%s'" % guest)


def unfocus(vm):
    """Give the console back to the monitor: Ctrl-A x3 goes on to the next
    guest, then the monitor.  A guest with the input prints its lines
    without its name, so every guest passed on the way must be quiet then
    (waiting on a held request, or halted)."""
    for _ in range(8):
        vm.send(CTRL_A3)
        if vm.expect(r"input now goes to (the monitor|guest '\w+')").group(1) == "the monitor":
            return
    raise AssertionError("the console did not come back to the monitor")


def tell(vm, guest, text, until=None):
    """Type text on a guest's console, wait for `until` (another guest's
    line), then give the console back to the monitor."""
    focus(vm, guest)
    vm.send(text)
    if until:
        vm.expect(until, timeout=30)
    unfocus(vm)


@pytest.mark.deadline(240)
def test_disk_frontend_ends_mid_request(qemu, image):
    vm, start = boot_image(qemu, image, "diskstop", "cortex-a15")
    # frontend indices in the disk: one 0, two 1, three 2.  The console's
    # input moves only while every frontend it passes is quiet: 'two'
    # waits on its first write, 'three' on its first write after the
    # reset, 'one' on its console or its read (a frontend with the input
    # would print its lines without its name).
    wait_for(vm, r"\[one\] blkrw: canary set", start, 30)
    wait_for(vm, r"\[three\] blkrw: device reset with a read in flight\r\n", start, 30)
    wait_for(vm, r"\[store\] blkserve: holding a request of frontend 1 ", start, 30)
    wait_for(vm, r"(?s)(\[store\] blkserve: holding a request of frontend 2 .*){2}", start, 30)
    tell(vm, "one", "b", r"\[store\] blkserve: holding a request of frontend 0 ")
    # 'one' stopped with its read in the driver's slot, and started again
    command(vm, "stop one")
    wait_for(vm, r"guest 'one' stopped", start, 30)
    again = vm.mark()
    command(vm, "start one")
    wait_for(vm, r"\[one\] blkrw: canary set", again, 30)
    # its first write waits for a free slot: the four hold the others'
    # requests and the stopped life's read
    tell(vm, "one", "r")
    # the driver answers what it held: the dropped reads' answers too.
    # The input stays the driver's (it prints nothing more) until the
    # frontends have halted, however slowly QEMU runs.
    focus(vm, "store")
    vm.send("g")
    for g in ("one", "two", "three"):
        wait_for(vm, r"guest '%s' halted \(PSCI SYSTEM_OFF\)\r\n" % g, start, 180)
    unfocus(vm)
    wait_halted(vm, ["one", "two", "three"], start)
    text = vm.since(start)
    check_guest(vm, "one", 4, vm.since(again))
    check_guest(vm, "two", 3, text)
    check_guest(vm, "three", 4, text)
    for g in ("one", "three"):
        check(vm, "[%s] blkrw: canary intact" % g in text, "guest %s: canary overwritten" % g)
    check(vm, "came back" not in text, "the stopped life's read was answered")
    rounds = re.findall(r"\[two\] blkrw: round \d+: 128 KiB written and read back, "
                        r"checksums (0x[0-9a-f]+) (0x[0-9a-f]+)", text)
    check(vm, len(rounds) == 2 and all(a == b for a, b in rounds), "guest two: %s" % rounds)
    check(vm, "device needs reset" not in text, "a device was stopped")
    check_hypervisor_clean(vm, text)
    # each read given up was dropped, and its answer taken as no wrong one
    for g, dropped in (("one", 1), ("two", 0), ("three", 1)):
        fe = disk_stats(vm, g).get("vd")
        check(vm, fe and fe["dropped"] == dropped and fe["wrong answers"] == 0,
              "guest %s: disk counters %s" % (g, fe))
    be = disk_stats(vm, "store").get("vd (driver)")
    check(vm, be and be["wrong answers"] == 0 and be["waiting"] == 0 and
          be["answers"] == be["requests given"], "the driver's counters %s" % be)
    check(vm, any(line.split()[:2] == ["store", "running"] for line in command(vm, "list")),
          "the driver partition stopped")


@pytest.mark.deadline(400)
def test_linux_vda(qemu, image):
    vm = qemu(kernel=image("linuxdisk"), smp=4, lifetime=400)
    m = vm.expect_seen(r"VDA(\d+)\r\n", 240)
    check(vm, m.group(1) == "4096", "/dev/vda has %s sectors" % m.group(1))
    m = vm.expect_seen(r"PARTITA-CMD-EXIT (\d+)", 120)
    check(vm, m.group(1) == "0", "the command exited %s" % m.group(1))
    check(vm, "VDA-SAME" in vm.output, "the data read back differs")
    check(vm, "needs reset" not in vm.output, "the device was stopped")
    check_hypervisor_clean(vm, vm.output)


@pytest.mark.deadline(600)
def test_linux_driver_partition(qemu, image):
    vm = qemu(kernel=image("linuxblkd"), smp=4, lifetime=600)
    # the daemon finds the disk in its device tree and opens both stores
    vm.expect_seen(r"partita-blkd: disk 'vd': generation 1, 15 slots, 2 frontends", 300)
    vm.expect_seen(r"partita-blkd: 1 disk, requests by interrupt", 60)
    rounds = []
    for _ in range(4):
        m = vm.expect(r"\[one\] blkrw: round \d+: 512 KiB written and read back, "
                      r"checksums (0x[0-9a-f]+) (0x[0-9a-f]+)\r\n", 300)
        rounds.append(m.groups())
    check(vm, all(a == b for a, b in rounds), "guest one: rounds %s" % rounds)
    # the whole line: check_guest reads it with its end
    vm.expect_seen(r"\[one\] RESULT: \d+ passed, \d+ failed\r\n", 120)
    check_guest(vm, "one", 3, vm.output)
    m = vm.expect_seen(r"VDA(\d+)\r\n", 300)
    check(vm, m.group(1) == "4096", "lx's /dev/vda has %s sectors" % m.group(1))
    m = vm.expect_seen(r"PARTITA-CMD-EXIT (\d+)", 300)
    check(vm, m.group(1) == "0", "lx's command exited %s" % m.group(1))
    check(vm, "VDA-SAME" in vm.output, "lx read back other data")
    for why in ("needs reset", "disk 'vd': an answer", "Unable to handle", "Oops"):
        check(vm, why not in vm.output, "seen: %s" % why)
    check_hypervisor_clean(vm, vm.output)


RESTART_FILES = 24      # files of 128 KiB the frontend writes, a sync after each
HUNG = "blocked for more than"


def with_disk_image(qemu, image, name, tmp_path, lifetime):
    """QEMU booting image `name` with a 64 MiB sparse disk image as its
    virtio-blk-device (the driver partition's, passed through)"""
    disk = tmp_path / "disk.img"
    with open(disk, "wb") as f:
        f.truncate(64 << 20)
    return qemu(kernel=image(name), smp=4, lifetime=lifetime,
                extra=["-drive", "file=%s,if=none,format=raw,id=d0" % disk,
                       "-device", "virtio-blk-device,drive=d0"])


def focus_linux(vm):
    """Input to guest 'linux', at its shell"""
    vm.sendline("console linux")
    vm.expect(r"input now goes to guest 'linux'", 30)
    vm.sendline("")


@pytest.mark.deadline(1200)
def test_linux_driver_restart(qemu, image, tmp_path):
    vm = with_disk_image(qemu, image, "linuxblkdrestart", tmp_path, 1200)
    vm.expect_seen(r"\[drv\] partita-blkd: disk 'vd': frontend 0: /dev/vda, 131072 sectors",
                   400)
    vm.expect_seen(r"\[linux\] " + READY, 400)
    focus_linux(vm)
    # a filesystem on the frontend's disk, a file in it before the restart
    out, rc = shell(vm, "mke2fs -q /dev/vda && mount /dev/vda /mnt && echo before >/mnt/before "
                        "&& sync && cat /mnt/before", timeout=300)
    check(vm, rc == 0 and out[-1:] == ["before"], "mkfs and mount: %s" % out)
    # the write loop, in the background; the driver restarted in its middle
    vm.sendline("(i=0; while [ $i -lt %d ]; do dd if=/bin/busybox of=/mnt/f$i bs=4k count=32 "
                "2>/dev/null; sync; i=$((i+1)); echo WROTE-$i; done; echo LOOP-DONE) &"
                % RESTART_FILES)
    vm.expect(r"WROTE-3\r\n", 300)
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'drv'", 30)
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to the monitor", 30)
    check(vm, not re.search(r"(?<!echo )LOOP-DONE", vm.output),
          "the loop ended before the restart")
    mark = vm.mark()
    command(vm, "restart drv", 30)
    wait_for(vm, r"\[drv\] partita-blkd: disk 'vd': generation 2,", mark, 400)
    wait_for(vm, r"\[linux\] LOOP-DONE", mark, 400)
    focus_linux(vm)
    # a file after it; every file read back from the disk after a remount
    # (short command lines: the console's input is typed in, not pasted)
    out, rc = shell(vm, "echo after >/mnt/after && umount /mnt && echo 3 >/proc/sys/vm/drop_caches"
                        " && mount /dev/vda /mnt && cat /mnt/before /mnt/after", timeout=300)
    check(vm, rc == 0 and out[-2:] == ["before", "after"], "after the restart: %s" % out)
    out, rc = shell(vm, "dd if=/bin/busybox of=/tmp/ref bs=4k count=32 2>/dev/null && "
                        "ls /mnt | grep -c '^f'", timeout=120)
    check(vm, rc == 0 and out[-1:] == [str(RESTART_FILES)], "files: %s" % out)
    out, rc = shell(vm, "i=0; while [ $i -lt %d ]; do cmp /tmp/ref /mnt/f$i || echo BAD-$i; "
                        "i=$((i+1)); done" % RESTART_FILES, timeout=300)
    check(vm, not any("BAD" in l or "differ" in l for l in out), "read back: %s" % out)
    out, rc = shell(vm, "dmesg | grep -ci -e '%s' -e 'I/O error' -e 'EXT4-fs error'" % HUNG,
                    timeout=120)
    check(vm, out[-1:] == ["0"], "the frontend's kernel log: %s" % out)
    # the kernel's own line (INFO: task NAME:PID blocked for more than N
    # seconds), not the command above that looks for it
    check(vm, not re.search(r"task \S+ %s|hung_task_timeout_secs" % HUNG, vm.output),
          "a hung task")
    check(vm, "needs reset" not in vm.output, "the device was stopped")


@pytest.mark.deadline(900)
def test_disk_demo(qemu, image, tmp_path):
    vm = with_disk_image(qemu, image, "diskdemo", tmp_path, 900)
    vm.expect_seen(r"\[drv\] partita-blkd: disk 'vd': frontend 1: /tmp/rt.img, 4096 sectors", 400)
    vm.expect_seen(r"\[rt\] RESULT: \d+ passed, \d+ failed\r\n", 400)
    rounds = re.findall(r"\[rt\] blkrw: round \d+: 512 KiB written and read back, "
                        r"checksums (0x[0-9a-f]+) (0x[0-9a-f]+)\r\n", vm.output)
    check(vm, len(rounds) == 4 and all(a == b for a, b in rounds), "rt's rounds: %s" % rounds)
    check_guest(vm, "rt", 3, vm.output)
    vm.expect_seen(r"\[linux\] " + READY, 400)
    focus_linux(vm)
    out, rc = shell(vm, "mke2fs -q /dev/vda && mount /dev/vda /mnt && echo hello >/mnt/hello "
                        "&& sync && cat /mnt/hello", timeout=300)
    check(vm, rc == 0 and out[-1:] == ["hello"], "the walk-through: %s" % out)
    check_hypervisor_clean(vm, vm.output)
