"""Channels (issue 10): shared memory between guests with doorbells.

  test_flood_and_read_only   guests/configs/channel.dts: chanflood.c three
      times on one channel.  The sender puts 20000 messages in the ring and
      rings after each (hypercall and doorbell page in turn); the receiver
      must see every message once, in order, Partita must have raised one
      doorbell per ring, and the receiver may have taken fewer interrupts
      (doorbells coalesce while pending) but at least one.  The third member
      maps the channel read-only: it sees the sender's data, and its write
      is refused with a data abort that Partita reports.
  test_linux_round_trip      guests/configs/linuxchan.dts: the Debian kernel
      runs partita-chan (guests/linux/partita-chan.c) against chanpeer.c:
      the channel found in the DT, messages sent through /dev/mem and the
      doorbell page, replies woken by the doorbell interrupt (gpio-keys
      key events), 500 round trips each checked.
"""
import re

import pytest

from conftest import check, command
from helpers import (boot_image, check_guest, check_hypervisor_clean, monitor_answers,
                    wait_for, wait_halted)

FLOOD = {"sender": 3, "receiver": 1, "reader": 2}
COUNT = 20000
LINUX_BOOT = 240


@pytest.mark.deadline(180)
@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
def test_flood_and_read_only(qemu, image, cpu):
    vm, start = boot_image(qemu, image, "channel", cpu)
    wait_for(vm, r"\[sender\] RESULT", start, 120)
    wait_halted(vm, list(FLOOD), start)
    text = vm.since(start)
    check(vm, "channel 'flood': 64 KiB at 0x4f000000: sender at 0x60000000 (SPI 40), receiver "
              "at 0x70000000 (SPI 41), reader at 0x60100000 (SPI 50, read-only)" in vm.output,
          "no boot line for the channel")
    for g, n in FLOOD.items():
        check_guest(vm, g, n, text)
    m = re.search(r"\[receiver\] chanflood: received (\d+) messages; (\d+) doorbells raised, "
                  r"(\d+) interrupts taken", text)
    check(vm, m, "no receiver summary")
    got, raised, taken = (int(x) for x in m.groups())
    check(vm, got == COUNT and raised == COUNT and 1 <= taken <= raised,
          "received %d, raised %d, taken %d" % (got, raised, taken))
    print("flood: %d messages, %d doorbells, %d interrupts" % (got, raised, taken))
    # exactly one abort, reported as a write to the read-only channel
    aborts = re.findall(r"guest '(\w+)' vCPU \d: (.*?) at PC .*abort injected", text)
    check(vm, aborts == [("reader", "write to read-only channel 'flood'")],
          "abort lines: %s" % aborts)
    check_hypervisor_clean(vm, text.replace("abort injected", ""))
    monitor_answers(vm)
    check(vm, re.search(r"  channel    0x4f000000-0x4f010000  64 KiB  'flood'", vm.output),
          "info shows no channel in the memory map")
    # stats: the counters the guests read from their doorbell pages
    out = "\n".join(command(vm, "stats"))
    # (the receiver rings twice: its hello and its summary)
    for name, member, rung, raised in (("sender", 0, COUNT, 2), ("receiver", 1, 2, COUNT)):
        check(vm, "  channel 'flood': member %d at 0x%s, doorbells rung %d, raised here %d"
              % (member, "60000000" if name == "sender" else "70000000", rung, raised) in out,
              "stats for %s: %s" % (name, out))
    # the reader's count stops when it halts (a stopped guest's doorbells are dropped)
    check(vm, re.search(r"  channel 'flood': member 2 at 0x60100000 \(read-only\), doorbells "
                        r"rung 0, raised here \d+ \(SPI 50\)", out),
          "stats for the reader: %s" % out)


@pytest.mark.deadline(420)
def test_linux_round_trip(qemu, image):
    vm = qemu(kernel=image("linuxchan"), smp=4, lifetime=400)
    vm.expect(r"\[peer\] chanpeer: channel 0 member 1 of 2 at 0x60000000, doorbell 40: ready",
              timeout=30)
    vm.expect(r"PARTITA-LINUX-READY", timeout=LINUX_BOOT)
    m = vm.expect(r"PARTITA-CMD-EXIT (\d+)", timeout=120)
    out = vm.output
    check(vm, re.search(r"channel 0 'link': memory 0x70000000\+0x10000, doorbell page "
                        r"0x70010000, irq 48, member 0", out), "partita-chan list")
    check(vm, re.search(r"reply \d+: HELLO", out) and re.search(r"reply \d+: PARTITA", out),
          "no replies to send")
    check(vm, re.search(r"\[peer\] chanpeer: channel 0 message \d+: 'hello'", out),
          "the peer did not print the message")
    check(vm, "input: partita-doorbells as /devices/platform/partita-doorbells" in out,
          "gpio-keys did not register the doorbells")
    p = re.search(r"ping: (\d+) of (\d+) replies correct, (\d+) us per round trip "
                  r"\(worst (\d+) us\), doorbells by (\w+)", out)
    check(vm, p, "no ping summary")
    check(vm, p.group(1) == p.group(2) == "500", "ping: %s" % p.group(0))
    check(vm, p.group(5) == "interrupt", "doorbells by %s, not the interrupt" % p.group(5))
    print(p.group(0))
    check(vm, m.group(1) == "0", "partita-chan exited %s" % m.group(1))
    vm.expect(r"guest 'linux' halted \(PSCI SYSTEM_OFF\)", timeout=60)
    check(vm, "crashed" not in vm.output and "abort injected" not in vm.output,
          "a guest crashed or faulted")
