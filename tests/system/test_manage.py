"""The management calls from a bare-metal control partition
(guests/configs/manage.dts, guests/test/manager.c): boss lists, stops,
starts and restarts worker, talks to its console, loads a new image into it
(refused while it runs, too big, malformed), sees it boot and survive a
restart, is refused on guarded and on buffers outside its RAM, and, once
the operator stops worker at the monitor, runs 100 stop/load/start cycles,
each seeing the loaded image's banner; rogue, which has no control, makes 20000 random
management calls and must get only refusals.  The monitor then shows the
loaded image and rogue's refusals, the hypervisor's free memory is what it
was, and the monitor answers."""
import re

from conftest import check, command
from helpers import (FREE_RE, boot_image, check_guest, check_hypervisor_clean, free_kib,
                     monitor_answers, wait_for, wait_halted)


def free_now(vm):
    """`info`'s free memory line while guests print (their lines may come
    between the command's echo and its output)."""
    start = vm.mark()
    vm.sendline("info")
    wait_for(vm, FREE_RE, start, 10)
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
