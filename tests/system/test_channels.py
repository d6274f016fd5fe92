"""Channels: shared memory between guests with doorbells.

  test_flood_and_read_only   tests/system/configs/channel.dts: chanflood.c three
      times on one channel.  The sender puts 20000 messages in the ring and
      rings after each (hypercall and doorbell page in turn); the receiver
      must see every message once, in order, Partita must have raised one
      doorbell per ring, and the receiver may have taken fewer interrupts
      (doorbells coalesce while pending) but at least one.  The third member
      maps the channel read-only: it sees the sender's data, and its write
      is refused with a data abort that Partita reports.
  test_linux_round_trip      tests/system/configs/linuxchan.dts: the Debian kernel
      runs partita-chan (guests/linux/tools/partita-chan.c) against chanpeer.c:
      the channel found in the DT, messages sent through /dev/mem and the
      doorbell page, replies woken by the doorbell interrupt (gpio-keys
      key events), 500 round trips each checked.
  test_hostile_member         tests/system/configs/chanhostile.dts: a
      hostile member (chanhostile.c) shares a second channel with the honest
      sender while the flood runs: it trashes that memory (indices, lengths
      out of range, changed while read), floods the sender with doorbells,
      rings channels it is no member of and every word of its doorbell page,
      halts mid-flood, is restarted and floods again, while the honest pair
      is restarted and runs again.  The flood's 20000 messages arrive intact
      and in order both times, nothing crashes, and the monitor answers
      list, stop and restart within HOSTILE_BOUND.
"""
import re
import time

import pytest

from conftest import check, command
from helpers import (boot_image, check_guest, check_hypervisor_clean, monitor_answers,
                    wait_for, wait_halted)

FLOOD = {"sender": 3, "receiver": 1, "reader": 2}
COUNT = 20000
LINUX_BOOT = 240
HOSTILE_BOUND = 10.0        # s of wall clock from a monitor command to its answer


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


def timed(vm, cmd, pattern):
    """A monitor command answered within HOSTILE_BOUND (wall clock)."""
    start = vm.mark()
    t0 = time.monotonic()
    vm.sendline(cmd)
    vm.expect(pattern, timeout=HOSTILE_BOUND + 20)
    took = time.monotonic() - t0
    check(vm, took <= HOSTILE_BOUND, "%r answered in %.1f s" % (cmd, took))
    return vm.since(start)


@pytest.mark.deadline(300)
def test_hostile_member(qemu, image):
    vm, start = boot_image(qemu, image, "chanhostile", "cortex-a15")
    wait_for(vm, r"\[hostile\] chanhostile: life 1, channel 1 member 0 of 2", start, 60)
    # the honest pair: every message, once, in order, while it attacks
    wait_for(vm, r"\[sender\] RESULT", start, 180)
    wait_halted(vm, ["sender", "receiver"], start, settle=False)
    text = vm.since(start)
    check_guest(vm, "sender", 4, text)
    check_guest(vm, "receiver", 1, text)
    m = re.search(r"\[receiver\] chanflood: received (\d+) messages; (\d+) doorbells raised",
                  text)
    check(vm, m and int(m.group(1)) == COUNT and int(m.group(2)) == COUNT,
          "the receiver: %s" % (m and m.group(0)))
    # the hostile member halted itself mid-flood; restarted, it floods again
    wait_for(vm, r"guest 'hostile' halted \(PSCI SYSTEM_OFF\)", start, 120)
    # its own rings all taken, every foreign channel id refused, its
    # doorbell page's words read and written without an abort (writes to
    # read-only words ignored)
    rounds = re.findall(r"\[hostile\] chanhostile: round \d+: 20000 rings \((\d+) refused\), "
                        r"(\d+) of (\d+) foreign ids refused, (\d+) doorbell page accesses "
                        r"aborted", vm.since(start))
    check(vm, len(rounds) == 3 and all(r[0] == "0" and r[1] == r[2] and r[3] == "0"
                                       for r in rounds), "hostile rounds: %s" % rounds)
    timed(vm, "list", r"hostile\s+halted")
    mark = vm.mark()
    timed(vm, "restart hostile", r"guest 'hostile' restarted")
    wait_for(vm, r"\[hostile\] chanhostile: life 2", mark, 60)
    wait_for(vm, r"\[hostile\] chanhostile: round 2:", mark, 120)
    timed(vm, "list", r"hostile\s+running")
    # the honest pair again, restarted while the flood goes on: a doorbell
    # may meet a guest coming back to life; their data still arrives whole
    again = vm.mark()
    timed(vm, "restart receiver", r"guest 'receiver' restarted")
    timed(vm, "restart sender", r"guest 'sender' restarted")
    wait_halted(vm, ["sender", "receiver"], again, settle=False)
    text = vm.since(again)
    check_guest(vm, "sender", 4, text)
    check_guest(vm, "receiver", 1, text)
    m = re.search(r"\[receiver\] chanflood: received (\d+) messages", text)
    check(vm, m and int(m.group(1)) == COUNT, "the receiver again: %s" % (m and m.group(0)))
    timed(vm, "list", r"hostile\s+running")
    timed(vm, "stop hostile", r"guest 'hostile' stopped")
    timed(vm, "list", r"hostile\s+stopped")
    text = vm.since(start)
    check(vm, "abort injected" not in text, "an abort was injected")
    check_hypervisor_clean(vm, text)
    monitor_answers(vm)
