"""A guest given every device it may have (tests/system/configs/alldevices.dts,
guests/test/devices.c): 'full' has 4 channels, the management page, 2
network devices and a virtio console: with the distributor and the UART,
10 regions on its MMIO bus; every one answers at the address its
configuration gives.  The bus once held 9 regions and ignored the tenth
registration: the virtio console its DT announced aborted every access.
The console is also read as a driver reads it before it negotiates: it
offers VERSION_1 alone, so none of its configuration fields is valid and
each reads 0 (virtio 1.x 5.3.4)."""
from conftest import check
from helpers import boot_image, check_guest, check_hypervisor_clean, monitor_answers, wait_halted


def test_every_device(qemu, image):
    vm, start = boot_image(qemu, image, "alldevices", "cortex-a15")
    wait_halted(vm, ["full", "peer"], start)
    text = vm.since(start)
    check_guest(vm, "full", 4, text)
    check(vm, "[full] device: virtio console config reads cols 0 rows 0 max_nr_ports 0" in text,
          "no console configuration line")
    check_guest(vm, "peer", 2, text)
    check_hypervisor_clean(vm, text)
    monitor_answers(vm)
