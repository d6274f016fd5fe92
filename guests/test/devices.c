/*
 * A guest given every device it may have (tests/system/configs/alldevices.dts,
 * tests/system/test_guests.py test_every_device): each must answer at the
 * address its configuration gives, none may abort.  bootargs:
 *   virtio=BASE,...     virtio-mmio devices: MagicValue "virt", version 2,
 *                       the device ID each (ids=N,... in the same order)
 *   doorbell=BASE,...   channel doorbell pages: the channel's ID register
 *   manage=1            the management page: its magic
 * The bus once held 9 regions: the tenth device (the virtio console of a
 * guest with 4 channels, the management page and 2 network devices) was
 * announced in its DT but its accesses aborted.
 */
#include <partita/manage_abi.h>
#include "guest.h"

#define MAX_DEVS          8
#define VIRTIO_MAGIC      0x000u
#define VIRTIO_VERSION    0x004u
#define VIRTIO_DEVICE_ID  0x008u
#define VIRTIO_MAGIC_VIRT 0x74726976u     /* "virt" (virtio 1.x 4.2.2) */
#define DOORBELL_ID       0x04u           /* hyp/guest/channel.h CHANNEL_REG_ID */
#define MANAGE_PAGE_IPA   0x090c0000u     /* hyp/config/guest_config.h VBOARD_MANAGE_IPA */

static void check_virtio(void)
{
    uint32_t base[MAX_DEVS], id[MAX_DEVS];
    int n = bootarg_u32s("virtio", base, MAX_DEVS);
    int nid = bootarg_u32s("ids", id, MAX_DEVS);
    test_begin("virtio");
    CHECK(n > 0 && nid == n, "virtio=%d devices, ids=%d", n, nid);
    for (int i = 0; i < n && i < nid; i++) {
        uint32_t magic = 0, version = 0, dev = 0;
        bool aborted = try_read32(base[i] + VIRTIO_MAGIC, &magic) ||
                       try_read32(base[i] + VIRTIO_VERSION, &version) ||
                       try_read32(base[i] + VIRTIO_DEVICE_ID, &dev);
        CHECK(!aborted && magic == VIRTIO_MAGIC_VIRT && version == 2 && dev == id[i],
              "virtio device at 0x%08lx: abort %d magic 0x%08lx version %lu id %lu (want %lu)",
              (unsigned long)base[i], aborted, (unsigned long)magic, (unsigned long)version,
              (unsigned long)dev, (unsigned long)id[i]);
        if (!aborted)
            gprintf("device: virtio %lu at 0x%08lx answers\n", (unsigned long)dev,
                    (unsigned long)base[i]);
    }
    test_end();
}

static void check_doorbells(void)
{
    uint32_t base[MAX_DEVS];
    int n = bootarg_u32s("doorbell", base, MAX_DEVS);
    test_begin("doorbells");
    for (int i = 0; i < n; i++) {
        uint32_t v = 0;
        bool aborted = try_read32(base[i] + DOORBELL_ID, &v);
        CHECK(!aborted, "doorbell page at 0x%08lx aborts", (unsigned long)base[i]);
        if (!aborted)
            gprintf("device: doorbell of channel %lu at 0x%08lx answers\n", (unsigned long)v,
                    (unsigned long)base[i]);
    }
    test_end();
}

static void check_manage_page(void)
{
    uint32_t want = 0, v = 0;
    bootarg_u32("manage", &want);
    if (!want)
        return;
    test_begin("manage-page");
    bool aborted = try_read32(MANAGE_PAGE_IPA + PARTITA_MGPAGE_MAGIC, &v);
    CHECK(!aborted && v == PARTITA_MGPAGE_MAGIC_VALUE, "management page: abort %d magic 0x%08lx",
          aborted, (unsigned long)v);
    test_end();
}

void guest_main(uint32_t dtb)
{
    check_doorbells();
    check_manage_page();
    check_virtio();
    tests_finish();
    guest_poweroff();
}
