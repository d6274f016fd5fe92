"""Disks (issue 30): virtio block devices of frontends, served by a driver
partition that never maps their memory.

  test_disk_frontends   guests/configs/disk.dts: 'one' and 'two'
      (guests/test/blkrw.c) write 512 KiB of pseudo-random data to their
      own disks and read it back, four rounds, checksums compared; reads
      and writes past the capacity are I/O errors; 'ro' finds its disk
      read-only and a write refused.  The frontends start first and wait
      (nothing times out) until the test starts the driver partition
      'store' (guests/test/blkserve.c); its first life crashes in the
      middle of the write loops with requests in its slots, it is
      restarted, and its second life gets them again: no frontend sees an
      error, every checksum matches.
"""
import re

import pytest

from conftest import check, command
from helpers import boot_image, check_guest, wait_for, wait_halted

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
