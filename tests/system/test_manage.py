"""The management calls from a bare-metal control partition
(tests/system/configs/manage.dts, guests/test/manager.c): boss lists, stops,
starts and restarts worker, talks to its console, loads a new image into it
(refused while it runs, too big, malformed), sees it boot and survive a
restart, is refused on guarded and on buffers outside its RAM, and, once
the operator stops worker at the monitor, runs 100 stop/load/start cycles,
each seeing the loaded image's banner; rogue, which has no control, makes 20000 random
management calls and must get only refusals.  The monitor then shows the
loaded image and rogue's refusals, the hypervisor's free memory is what it
was, and the monitor answers.

test_load_into_every_state (tests/system/configs/managelife.dts): a hostile
managed guest in five forms (guests/test/prey.c) aims its network
device's receive buffers at the top of its RAM, where a loaded image's
store goes, and halts, crashes, waits to be stopped, or halts or crashes
with frames in flight; boss loads a new image into each, refused while
it runs, while sending frames at those buffers, and each must boot the
image intact with the CRC `info` shows.  Partita used to leave a halted
or crashed guest's devices attached: the frames landed in the store and
the damaged image booted.  An honest pair (ping, echo) keeps its
traffic on a network of its own, and the monitor answers list, stop and
restart within MONITOR_BOUND_S each.

test_hostile_control_partition (tests/system/configs/managehostile.dts): a
hostile control partition (guests/test/rogueboss.c) races every call from
two vCPUs - random (fixed seed) and boundary registers and buffers, torn
and malformed load streams, start, stop and restart at once - then loads
into its guest in every state (running: refused; stopped, halted,
crashed: booting intact with the CRC info shows).  Meanwhile the honest
'victim' keeps its watched page and RAM, 'rt' its 1 kHz tick, and the
monitor answers list within MONITOR_BOUND_S (in rt's time), and stop and
restart at the end."""
import re
import time

import pytest

from conftest import check, command
from helpers import (FREE_RE, RT_LATENESS_BOUND, Heartbeat, boot_image, check_guest,
                     check_hypervisor_clean, free_kib, monitor_answers, monitor_rtt, wait_for,
                     wait_halted)


def free_now(vm):
    """`info`'s free memory line while guests print (their lines may come
    between the command's echo and its output)."""
    start = vm.mark()
    vm.sendline("info")
    wait_for(vm, FREE_RE, start, 60)
    return int(vm.expect(FREE_RE).group(1))     # and expect() reads on after it


def test_manage(qemu, image):
    vm, start = boot_image(qemu, image, "manage", "cortex-a15")
    # boss has loaded worker and waits for the operator to stop it
    wait_for(vm, r"\[boss\] cycles: waiting for worker to be stopped", start, 30)
    free_before = free_now(vm)
    vm.sendline("stop worker")
    vm.expect(r"guest 'worker' stopped\r\n")
    wait_halted(vm, ["boss", "rogue"], start)
    text = vm.since(start)
    check_guest(vm, "boss", 5, text)
    check_guest(vm, "rogue", 1, text)
    check_hypervisor_clean(vm, text)
    # what boss listed is what the configuration says
    for name, cpu in (("boss", 1), ("worker", 2), ("rogue", 3)):
        check(vm, re.search(r"\[boss\] list: %s 1 vcpus cpu%d 16M crc 0x[0-9a-f]{8}\r\n"
                            % (name, cpu), text), "boss did not list %s" % name)
    # the hypervisor said what happened, and the worker printed its banner
    check(vm, "guest 'worker' stopped" in text and "guest 'worker' started" in text,
          "no lifecycle lines for worker")
    check(vm, re.search(r"guest 'worker': new image loaded: (\d+) bytes, crc32 0x[0-9a-f]{8}",
                        text), "no load line")
    check(vm, text.count("[worker] banner: the loaded image runs") >= 100,
          "the loaded image did not run after every start")
    check(vm, "load refused: guest 'worker': property 'kernel'" in text,
          "the image over the device tree was not refused by the configuration's check")
    check(vm, "load refused: guest 'worker': property 'kernel-format': \"linux\" but no "
              "zImage" in text, "an image without a zImage's magic was not refused")
    check(vm, "load refused: guest 'worker': property 'kernel-format': a zImage's first "
              "piece holds" in text, "a zImage's head split over pieces was not refused")
    # the monitor: the image worker runs, rogue's refusals, the same free memory
    info = "\n".join(command(vm, "info"))
    m = re.search(r"image: guest 'worker': loaded, (\d+) bytes, crc32 0x([0-9a-f]{8})", info)
    check(vm, m, "info does not show worker's loaded image:\n%s" % info)
    check(vm, re.search(r"image: guest 'boss': configured, \d+ bytes, crc32 0x", info),
          "info does not show boss's configured image")
    stats = "\n".join(command(vm, "stats rogue"))
    m = re.search(r"management calls refused: (\d+)", stats)
    check(vm, m and int(m.group(1)) == 20000, "rogue's refusals not counted: %s" % stats)
    list_out = "\n".join(command(vm, "list"))
    check(vm, re.search(r"worker\s+running", list_out), "worker is not running: %s" % list_out)
    check(vm, free_kib(vm) == free_before, "free hypervisor memory changed")
    monitor_answers(vm)


PREYS = ["prey-halt", "prey-crash", "prey-stop", "prey-halt-tx", "prey-crash-tx"]
# the monitor's answer to list, stop or restart, however busy the guests
# (generous: QEMU on a loaded host)
MONITOR_BOUND_S = 10


def timed(vm, cmd):
    t0 = time.monotonic()
    out = "\n".join(command(vm, cmd, timeout=MONITOR_BOUND_S * 3))
    took = time.monotonic() - t0
    check(vm, took < MONITOR_BOUND_S, "`%s` took %.1f s" % (cmd, took))
    return out


def test_load_into_every_state(qemu, image):
    vm, start = boot_image(qemu, image, "managelife", "cortex-a15")
    wait_halted(vm, ["boss", "ping"], start)
    text = vm.since(start)
    check_guest(vm, "boss", 1 + len(PREYS), text)
    check_guest(vm, "ping", 3, text)
    for prey in PREYS:
        check_guest(vm, prey, 1, text)
        check(vm, "guest '%s': new image loaded" % prey in text, "no load line for %s" % prey)
        check(vm, "[%s] banner: the loaded image runs" % prey in text,
              "the image loaded into %s did not boot" % prey)
    lines = text.replace("\r\n", "\n").split("\n")
    crashes = sorted({m.group(1) for l in lines
                      for m in [re.search(r"guest '(\S+)' crashed", l)] if m})
    check(vm, crashes == ["prey-crash", "prey-crash-tx"], "crashed: %s" % crashes)
    bad = [l for l in lines if re.search(r"fatal|panic|\*\*\*|^error:|^warning:|did not leave|"
                                         r"changed since the load", l)]
    check(vm, not bad, "unexpected hypervisor lines: %s" % bad)
    info = "\n".join(command(vm, "info"))
    for prey in PREYS:
        check(vm, re.search(r"image: guest '%s': loaded" % re.escape(prey), info),
              "info does not show %s's loaded image" % prey)
    list_out = timed(vm, "list")
    for prey in PREYS:
        check(vm, re.search(r"%s\s+running" % re.escape(prey), list_out),
              "%s is not running: %s" % (prey, list_out))
    timed(vm, "stop prey-halt")
    timed(vm, "restart prey-halt")
    wait_for(vm, r"guest 'prey-halt' restarted", start, 60)
    monitor_answers(vm)


# s of wall clock between two of rt's heartbeat lines (test_hostile.py's
# reasoning: QEMU's threads share the host's cores)
STALL_BOUND = 10.0


@pytest.mark.deadline(180)
def test_hostile_control_partition(qemu, image):
    vm, start = boot_image(qemu, image, "managehostile", "cortex-a15")
    hb = Heartbeat(vm)
    rtts = []
    # the heartbeat is polled throughout: a beat is timed when first seen
    done = [re.compile(r"guest '%s' halted \(PSCI SYSTEM_OFF\)" % g) for g in ("boss", "victim")]
    deadline = time.monotonic() + 180
    while not all(d.search(vm.since(start)) for d in done):
        check(vm, time.monotonic() < deadline, "the hostile control partition or the victim "
              "did not finish")
        rtts.append(monitor_rtt(vm, "list", r"rt\s+running", MONITOR_BOUND_S, hb))
        hb.poll()
        time.sleep(0.5)
    text = vm.since(start)
    check_guest(vm, "boss", 2, text)
    check_guest(vm, "victim", 3, text)
    check(vm, "[boss] race: 400 calls from each of 2 vCPUs" in text, "no race line")
    for state in ("stopped", "halted", "crashed"):
        check(vm, "[boss] every-state: %s: loaded, boots intact" % state in text,
              "no load into the %s target" % state)
    lines = text.replace("\r\n", "\n").split("\n")
    crashes = {m.group(1) for l in lines for m in [re.search(r"guest '(\S+)' crashed", l)] if m}
    check(vm, crashes <= {"target"}, "crashed: %s" % crashes)
    bad = [l for l in lines if re.search(r"fatal|panic|\*\*\*|^error:|^warning:|did not leave|"
                                         r"changed since the load", l)]
    check(vm, not bad, "unexpected hypervisor lines: %s" % bad[:10])
    monitor_rtt(vm, "stop target", r"guest 'target' stopped", MONITOR_BOUND_S, hb)
    monitor_rtt(vm, "restart target", r"guest 'target' restarted", MONITOR_BOUND_S, hb)
    monitor_rtt(vm, "list", r"target\s+running", MONITOR_BOUND_S, hb)
    hb.check(STALL_BOUND, RT_LATENESS_BOUND, min_beats=3)
    print("monitor answered list in at most %.2f s" % max(rtts or [0]))
