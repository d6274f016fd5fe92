"""A guest given every device it may have (tests/system/configs/alldevices.dts,
guests/test/devices.c): 'full' has 4 channels, the management page, 2
network devices and a virtio console: with the distributor and the UART,
10 regions on its MMIO bus; every one answers at the address its
configuration gives.  The bus once held 9 regions and ignored the tenth
registration: the virtio console its DT announced aborted every access."""
from helpers import boot_image, check_guest, check_hypervisor_clean, monitor_answers, wait_halted


def test_every_device(qemu, image):
    vm, start = boot_image(qemu, image, "alldevices", "cortex-a15")
    wait_halted(vm, ["full", "peer"], start)
    text = vm.since(start)
    check_guest(vm, "full", 3, text)
    check_guest(vm, "peer", 2, text)
    check_hypervisor_clean(vm, text)
    monitor_answers(vm)
