"""Networks: virtio-mmio network devices between partitions,
frames switched by Partita.

  test_ping_beside_a_hostile_member   tests/system/configs/network.dts: netecho.c
      three times on one network.  'ping' (polled driver) finds 'echo'
      (interrupt-driven driver) by a broadcast ARP request and gets at
      least 200 ICMP echo requests answered intact, while 'hostile' writes
      random descriptors, ring indices and registers into its own device
      the whole time and broadcasts a marker: the pinger goes on until it
      has seen a marker while pinging, so the two overlap whatever the
      speed of each, and the pinger resets its own device every 25
      requests mid-transfer.  Partita stops only the hostile device (virtio
      NEEDS_RESET, reported), never crashes, and `stats` counts it.
  test_linux_pings_bare_metal   tests/system/configs/linuxnet.dts: Debian's
      unmodified armmp kernel with its own virtio_mmio and virtio_net
      modules pings the bare-metal echo guest.
  test_tcp_between_two_linux   tests/system/configs/linuxtcp.dts: 4 MiB over TCP
      between two Linux partitions, checksums compared end to end.
  test_network_demo   guests/demo/netdemo.dts: the demo as docs/networks.md
      shows it, typed at the two Linux shells.
  test_linux_hvc0   tests/system/configs/linuxhvc.dts: Linux's hvc0 on the
      guest's virtio console, output and typed input.
  test_flood_is_bounded   tests/system/configs/netflood.dts: a member flooding
      broadcasts, held to its frame-rate; the monitor answers, ping and
      echo go on, drops are counted, nothing breaks.
"""
import re

import pytest

from conftest import check, command
from helpers import (CTRL_A3, READY, boot_image, check_guest, check_hypervisor_clean,
                     monitor_rtt, shell, wait_for, wait_halted)

LINUX_BOOT = 240


@pytest.mark.deadline(240)
@pytest.mark.parametrize("cpu", ["cortex-a15", "cortex-a7"])
def test_ping_beside_a_hostile_member(qemu, image, cpu):
    vm, start = boot_image(qemu, image, "network", cpu)
    check(vm, "network 'lan': ping 02:50:54:00:00:00 at 0x0a000000 (SPI 48), echo "
              "02:00:00:00:00:01 at 0x0a000200 (SPI 49), hostile 02:50:54:00:00:02 at "
              "0x0a000000 (SPI 48)" in vm.output, "no boot line for the network")
    wait_halted(vm, ["ping"], start, settle=False)
    text = vm.since(start)
    check_guest(vm, "ping", 3, text)
    m = re.search(r"\[ping\] netecho: (\d+) of (\d+) echo replies, \d+ us per round trip, "
                  r"(\d+) hostile frames seen, (\d+) device resets", text)
    check(vm, m, "no ping summary")
    ok, sent, marks, resets = (int(x) for x in m.groups())
    print("ping: %d of %d replies, %d hostile frames seen, %d resets" % (ok, sent, marks, resets))
    check(vm, ok == sent >= 200 and marks >= 1 and resets == sent // 25,
          "%d of %d replies, %d hostile frames while pinging, %d resets" % (ok, sent, marks, resets))
    # the echo guest answered the ARP request: the broadcast reached it
    check(vm, "[ping] netecho: 0xa9fe0001 is at 02:00:00:00:00:01" in text, "no ARP answer")
    # only the hostile device was stopped, and Partita said so
    stopped = set(re.findall(r"guest '(\w+)': network 'lan': device needs reset: ", text))
    check(vm, stopped == {"hostile"}, "devices stopped: %s" % stopped)

    # the hostile guest off its CPU: a quiet console for the monitor's answers
    vm.sendline("stop hostile")
    wait_for(vm, r"guest 'hostile' stopped\r\n", start, 30)
    vm.settle(quiet=1.0, timeout=30)
    out = "\n".join(command(vm, "stats echo"))
    m = re.search(r"network 'lan': member 1, frames sent (\d+), received (\d+), dropped "
                  r"sending (\d+), dropped for want of RX buffers (\d+), malformed rings (\d+)",
                  out)
    check(vm, m, "stats echo: no network line in %r" % out)
    sent, received, _, _, errors = (int(x) for x in m.groups())
    check(vm, sent >= 200 and received >= 200 and errors == 0,
          "echo: sent %d, received %d, malformed %d" % (sent, received, errors))
    out = "\n".join(command(vm, "stats hostile"))
    m = re.search(r"network 'lan': member 2, .* malformed rings (\d+)", out)
    check(vm, m and int(m.group(1)) >= 1, "stats hostile: %r" % out)
    check_hypervisor_clean(vm, vm.since(start))


@pytest.mark.deadline(420)
def test_linux_pings_bare_metal(qemu, image):
    """tests/system/configs/linuxnet.dts: Debian's kernel with its own virtio_mmio
    and virtio_net modules finds the device in its DT, takes the MAC from
    the device's configuration space and pings netecho.c: 20 of 20."""
    vm = qemu(kernel=image("linuxnet"), smp=4, lifetime=400)
    vm.expect_seen(r"\[echo\] netecho: 02:00:00:00:00:01 is 0xa9fe0001", 30)
    vm.expect_seen(r"PARTITA-LINUX-READY", LINUX_BOOT)
    m = vm.expect_seen(r"PARTITA-CMD-EXIT (\d+)", 120)
    out = vm.output
    check(vm, "[linux] 02:00:00:00:00:02" in out, "eth0 has not the configured MAC")
    p = re.search(r"(\d+) packets transmitted, (\d+) packets received", out)
    check(vm, p and p.groups() == ("20", "20"), "ping: %s" % (p and p.group(0)))
    check(vm, m.group(1) == "0", "the script exited %s" % m.group(1))
    vm.expect_seen(r"guest 'linux' halted \(PSCI SYSTEM_OFF\)", 60)
    check(vm, "needs reset" not in out, "a device was stopped")
    check_hypervisor_clean(vm, vm.output)


@pytest.mark.deadline(480)
def test_tcp_between_two_linux(qemu, image):
    """tests/system/configs/linuxtcp.dts: two Debian Linux partitions, 4 MiB of
    random data over TCP (busybox nc) from one to the other, the MD5 of
    both ends the same; the bare-metal third member is not disturbed."""
    vm = qemu(kernel=image("linuxtcp"), smp=4, lifetime=460)
    sent = vm.expect_seen(r"\[sender\] partita-net: sending (\d+) bytes, md5 ([0-9a-f]{32})",
                          LINUX_BOOT)
    got = vm.expect_seen(r"\[receiver\] partita-net: received (\d+) bytes, md5 ([0-9a-f]{32})",
                         240)
    check(vm, sent.group(1) == "4194304" and got.groups() == sent.groups(),
          "sent %s, received %s" % (sent.groups(), got.groups()))
    t = vm.expect_seen(r"\[sender\] partita-net: sent in (\d+) ms", 60)
    print("tcp: 4 MiB in %s ms (the sender's uptime, TCG: not asserted)" % t.group(1))
    for g in ("sender", "receiver"):
        vm.expect_seen(r"\[%s\] PARTITA-CMD-EXIT 0" % g, 60)
        vm.expect_seen(r"guest '%s' halted \(PSCI SYSTEM_OFF\)" % g, 60)
    check(vm, "needs reset" not in vm.output, "a device was stopped")
    check_hypervisor_clean(vm, vm.output)


@pytest.mark.deadline(600)
def test_network_demo(qemu, image):
    """guests/demo/netdemo.dts as docs/networks.md tells a user to try it: at
    linux0's shell ping the echo guest, at linux1's listen with nc, from
    linux0 send a line to it and ping linux1."""
    vm = qemu(kernel=image("netdemo"), smp=4, lifetime=560)
    for g in ("linux0", "linux1"):
        vm.expect_seen(r"\[%s\] %s" % (g, READY), LINUX_BOOT)
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'linux0'")
    vm.sendline("")
    out, rc = shell(vm, "partita-net up 169.254.0.2 && ping -c 3 169.254.0.1")
    check(vm, rc == 0 and "3 packets transmitted, 3 packets received" in "\n".join(out),
          "linux0 -> echo: %s" % out)
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'linux1'")
    vm.sendline("")
    out, rc = shell(vm, "partita-net up 169.254.0.3 && (nc -l -p 5000 > /tmp/got &)")
    check(vm, rc == 0, "linux1: %s" % out)
    vm.send(CTRL_A3 * 3)        # echo, the monitor, linux0
    vm.expect(r"input now goes to guest 'linux0'")
    vm.sendline("")
    out, rc = shell(vm, "echo hello over partita | nc -w 5 169.254.0.3 5000 && "
                        "ping -c 3 169.254.0.3")
    check(vm, rc == 0 and "3 packets received" in "\n".join(out), "linux0 -> linux1: %s" % out)
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'linux1'")
    vm.sendline("")
    out, rc = shell(vm, "cat /tmp/got")
    check(vm, out[-1:] == ["hello over partita"], "linux1 received %s" % out)
    check(vm, "needs reset" not in vm.output, "a device was stopped")
    check_hypervisor_clean(vm, vm.output)


@pytest.mark.deadline(420)
def test_linux_hvc0(qemu, image):
    """tests/system/configs/linuxhvc.dts: Debian's kernel with its own
    virtio_console on the guest's virtio-console; its command runs on
    hvc0: what it prints arrives on Partita's console, a line typed at the
    guest's console reaches it and comes back."""
    vm = qemu(kernel=image("linuxhvc"), smp=2, lifetime=400)
    vm.expect_seen(r"PARTITA-HVC0-UP /dev/hvc0", LINUX_BOOT)
    vm.send(CTRL_A3)
    vm.expect(r"input now goes to guest 'linux'")
    vm.sendline("hello-over-virtio")
    vm.expect_seen(r"got-hello-over-virtio", 60)
    m = vm.expect_seen(r"PARTITA-CMD-EXIT (\d+)", 60)
    check(vm, m.group(1) == "0", "the command exited %s" % m.group(1))
    vm.expect_seen(r"guest 'linux' halted \(PSCI SYSTEM_OFF\)", 60)
    check(vm, "needs reset" not in vm.output, "the device was stopped")
    check_hypervisor_clean(vm, vm.output)


@pytest.mark.deadline(240)
def test_flood_is_bounded(qemu, image):
    """tests/system/configs/netflood.dts: one member broadcasts as fast as it can
    (bursts of 16 frames, a budget of 4 per exit, a frame-rate of 2000 a
    second): the monitor answers within 3 s throughout, ping and echo get
    their round trips through beside it, what is over the rate is dropped
    and counted at the sender, nothing crashes."""
    vm, start = boot_image(qemu, image, "netflood", "cortex-a15")
    wait_for(vm, r"\[flood\] netecho: flood: 100000 frames sent", start, 120)
    rtts = [monitor_rtt(vm, "list", r"flood\s+running", 3.0) for _ in range(3)]
    print("monitor during the flood: %s s" % ", ".join("%.2f" % r for r in rtts))
    wait_halted(vm, ["ping"], start, settle=False)
    text = vm.since(start)
    check_guest(vm, "ping", 3, text)
    m = re.search(r"\[ping\] netecho: (\d+) of (\d+) echo replies, \d+ us per round trip, "
                  r"(\d+) hostile frames seen", text)
    check(vm, m and m.group(1) == m.group(2) and int(m.group(3)) >= 1,
          "ping beside the flood: %s" % (m and m.group(0)))
    print(m.group(0))
    vm.sendline("stop flood")
    wait_for(vm, r"guest 'flood' stopped\r\n", start, 30)
    vm.settle(quiet=1.0, timeout=30)
    out = "\n".join(command(vm, "stats flood"))
    m = re.search(r"network 'lan': member 2, frames sent (\d+), received \d+, dropped sending "
                  r"(\d+), .* malformed rings 0", out)
    check(vm, m and int(m.group(1)) >= 100000 and int(m.group(2)) >= int(m.group(1)) // 2,
          "stats flood: %r" % out)
    print("flood: taken %s, dropped over its frame-rate %s" % m.groups())
    check(vm, "needs reset" not in vm.output, "a device was stopped")
    check_hypervisor_clean(vm, vm.since(start))
