"""Cache colouring: coloured guests run unchanged.  QEMU
models no cache, so what colouring buys is measured on a board
(docs/colours.md); here: two bare-metal guests whose pages share one
physical span, each of its own colours, pattern-test all of their RAM at
once beside an uncoloured one; the monitor's `info` shows each guest's
colours and its share of the cache; Debian's Linux boots on coloured
memory and moves 40 MiB through it twice with the checksum intact, beside a
bare-metal guest of the other colours in the same span."""
import re

import pytest

from helpers import CTRL_A3, READY, check_guest, check_hypervisor_clean, shell, wait_halted


def test_coloured_bare_metal_guests(qemu, image):
    vm = qemu(kernel=image("colours"), smp=4)
    start = vm.mark()
    wait_halted(vm, ["low", "high", "plain"], start)
    text = vm.since(start)
    for g in ("low", "high", "plain"):
        check_guest(vm, g, 3, text)
    assert "cache: L2 2304 KiB, 16 ways of 144 KiB: not a power of two, no colours" in text, text
    # the hypervisor moved into its colours before the guests started, and
    # read where its pages are back through the MMU
    m = re.search(r"hypervisor: its (\d+) pages and (\d+) page tables are in colours 24-31 "
                  r"\(read back by ATS1HR\), its pool has (\d+) KiB of them", text)
    assert m and int(m.group(1)) > 200 and int(m.group(2)) >= 3, text
    assert text.index(m.group(0)) < text.index("guest 'low': starting"), text
    vm.sendline("info")
    vm.expect(r"colors: guest 'high': 16-23, 8 of 32: 576 KiB of the 2304 KiB L2\r\n")
    out = vm.since(start)
    assert re.search(r"colors: hypervisor: 24-31, 8 of 32: 576 KiB of the 2304 KiB L2", out)
    assert re.search(r"colors: guest 'low': 0-15, 16 of 32: 1152 KiB of the 2304 KiB L2", out)
    assert "colors: guest 'plain'" not in out
    check_hypervisor_clean(vm, vm.since(start))


def test_hypervisor_with_too_few_colours_is_refused(qemu, image):
    """One colour of 128 for the hypervisor: 512 KiB of its largest pool,
    less than its own image - said at boot, and nothing runs."""
    vm = qemu(kernel=image("hypcolour-few"), smp=2)
    vm.expect(r"error: config: node '/partita': property 'colors': its colours hold (\d+) KiB "
              r"of its 65536 KiB page pool; its own image needs (\d+) KiB of them: give it "
              r"more colours\r\n", timeout=60)
    vm.expect(r"configuration has 1 error: no guest started", timeout=30)
    vm.sendline("list")
    vm.expect(r"\(no guests configured\)", timeout=30)
    assert "guest 'solo'" not in vm.output


@pytest.mark.deadline(600)
def test_linux_on_coloured_memory(qemu, image):
    vm = qemu(kernel=image("linuxcolour"), smp=4, lifetime=550)
    m = vm.expect(READY, timeout=300)
    assert m.group(2) == "2"
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'linux'")
    vm.sendline("")
    out, rc = shell(vm, "grep MemTotal /proc/meminfo")
    kib = int(re.search(r"MemTotal:\s+(\d+) kB", "\n".join(out)).group(1))
    assert 200 * 1024 < kib <= 256 * 1024, out
    # 40 MiB of random bytes through the page cache and back, twice
    out, rc = shell(vm, "dd if=/dev/urandom of=/tmp/a bs=1M count=40 2>/dev/null && "
                        "md5sum /tmp/a && cp /tmp/a /tmp/b && md5sum /tmp/b && rm /tmp/a /tmp/b",
                    timeout=240)
    sums = [l.split()[0] for l in out if re.match(r"[0-9a-f]{32}\s", l)]
    assert rc == 0 and len(sums) == 2 and sums[0] == sums[1], out
    text = vm.output
    if not re.search(r"\[bare\] RESULT: \d+ passed, \d+ failed", text):
        vm.expect(r"\[bare\] RESULT: \d+ passed, \d+ failed", timeout=120)
    check_guest(vm, "bare", 3, vm.output)
    check_hypervisor_clean(vm, vm.output)


def test_board_benchmark_runs(qemu, image):
    """The interference benchmark a user runs on a board (docs/colours.md)
    works: the victim reports every round and its summary beside a
    running aggressor of other colours, which the monitor then stops.  Its
    numbers mean nothing under QEMU, which has no cache."""
    vm = qemu(kernel=image("llcbench-coloured"), smp=4)
    start = vm.mark()
    # both with their caches on: with the MMU off every access would be
    # Strongly-ordered and go to DRAM on a board, colours or not
    for g in ("victim", "aggressor"):
        vm.expect_seen(r"\[%s\] llcbench: MMU on, data cache on" % g, timeout=60)
    vm.expect(r"\[aggressor\] llcbench: aggressor writing through 4 MiB", timeout=60)
    m = vm.expect(r"\[victim\] llcbench: working set 256 KiB, 20 rounds: cycles/access "
                  r"min (\d+\.\d\d) median (\d+\.\d\d) max (\d+\.\d\d)\r\n", timeout=300)
    mn, md, mx = (float(x) for x in m.groups())
    assert 0 < mn <= md <= mx, m.group(0)
    rounds = re.findall(r"\[victim\] llcbench: round (\d+): \d+\.\d\d cycles/access",
                        vm.since(start))
    assert rounds == [str(i) for i in range(20)], rounds
    # its timer ran beside the chase, a tick a millisecond through 20 rounds
    # of at least 10 ms each (a tick late under a busy host is taken late,
    # not lost; the bound leaves room for those still pending at the end)
    m = vm.expect(r"\[victim\] llcbench: timer at 1000 Hz, (\d+) ticks: latency avg (\d+) ns, "
                  r"worst (\d+) ns\r\n", timeout=60)
    n, avg, worst = (int(x) for x in m.groups())
    assert n >= 150 and avg <= worst, m.group(0)
    vm.expect(r"guest 'victim' halted \(PSCI SYSTEM_OFF\)", timeout=30)
    vm.sendline("stop aggressor")
    vm.expect(r"guest 'aggressor' stopped", timeout=30)
    check_hypervisor_clean(vm, vm.since(start))
