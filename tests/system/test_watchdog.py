"""Per-guest watchdog on the hypervisor's own timer
(CNTHP): a guest that stops feeding is restarted or stopped as its
configuration says, the event is logged, and a guest without a watchdog is
told so and left alone."""
import re


def test_watchdog_restart_and_stop(qemu, image):
    vm = qemu(kernel=image("watchdog"), smp=4)
    vm.expect(r"guest 'wds': watchdog expired \(not fed for 200 ms\): stopping", timeout=30)
    for _ in range(3):
        vm.expect(r"guest 'wdr': watchdog expired \(not fed for 200 ms\): restarting",
                  timeout=30)
    out = vm.output
    # each life of wdr fed it 10 times and got status 0 every time
    assert len(re.findall(r"\[wdr\] fed the watchdog 10 times \(status 0\)", out)) >= 3
    assert "[wds] fed the watchdog 10 times (status 0)" in out
    # nowd has no watchdog: the call says so, and it is never restarted
    assert "[nowd] fed the watchdog 10 times (status -1)" in out
    assert "guest 'nowd': watchdog" not in out
    vm.sendline("list")
    vm.expect(r"wds\s+stopped")
    vm.expect(r"nowd\s+running")
    assert "crashed" not in vm.output
