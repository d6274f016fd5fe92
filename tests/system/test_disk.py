"""Disks: virtio block devices of frontends, served by a driver
partition that never maps their memory.

  test_disk_frontends   tests/system/configs/disk.dts: 'one' and 'two'
      (guests/test/blkrw.c) write 512 KiB of pseudo-random data to their
      own disks and read it back, four rounds, checksums compared; reads
      and writes past the capacity are I/O errors; 'ro' finds its disk
      read-only and a write refused.  The frontends start first and wait
      (nothing times out) until the test starts the driver partition
      'store' (guests/test/blkserve.c); its first life crashes in the
      middle of the write loops with requests in its slots, it is
      restarted, and its second life gets them again: no frontend sees an
      error, every checksum matches.
  test_disk_hostile_partners   tests/system/configs/diskhostile.dts: the driver
      partition answers every third request wrongly and marks slots it was
      never given done; 'vandal' writes random descriptors, indices,
      sectors and registers into its own device.  The honest frontends
      see those requests fail (I/O errors, tried again) and their data
      intact; Partita reports each wrong answer, stops only the vandal's
      device, and its monitor still answers.
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

WAIT_FIRST = 3      # seconds the frontends wait for a driver partition


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
    check_hypervisor_clean(vm, text)
    # the driver partition serves on, and the monitor answers
    check(vm, any(line.split()[:2] == ["store", "running"] for line in command(vm, "list")),
          "the monitor does not answer, or the driver partition stopped")


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
    vm.expect_seen(r"\[one\] RESULT: (\d+) passed, 0 failed", 120)
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
    vm.expect_seen(r"\[rt\] RESULT: ", 400)
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
