/*
 * A guest given every device it may have (tests/system/configs/alldevices.dts,
 * tests/system/test_guests.py test_every_device): each must answer at the
 * address its configuration gives, none may abort.  bootargs:
 *   virtio=BASE,...     virtio-mmio devices: MagicValue "virt", version 2,
 *                       the device ID each (ids=N,... in the same order)
 *   doorbell=BASE,...   channel doorbell pages: the channel's ID register
 *   manage=1            the management page: its magic
 * A virtio console among them (ID 3) is also read as a driver reads it
 * before it negotiates: its features and its configuration space.
 * The bus once held 9 regions: the tenth device (the virtio console of a
 * guest with 4 channels, the management page and 2 network devices) was
 * announced in its DT but its accesses aborted.
 */
#include <partita/chan_doorbell.h>
#include <partita/manage_abi.h>
#include "guest.h"
#include "virtio_mmio_regs.h"

#define MAX_DEVS          8
#define VIRTIO_MAGIC      0x000u
#define VIRTIO_VERSION    0x004u
#define VIRTIO_DEVICE_ID  0x008u
#define VIRTIO_MAGIC_VIRT 0x74726976u     /* "virt" (virtio 1.x 4.2.2) */
#define MANAGE_PAGE_IPA   0x090c0000u     /* hyp/config/guest_config.h VBOARD_MANAGE_IPA */

/* The virtio console (virtio 1.x 5.3): device ID 3, its feature bits
 * (5.3.3) and the fields of its configuration space (5.3.4) */
#define VIRTIO_ID_CONSOLE        3u
#define CONSOLE_F_SIZE           (1u << 0)
#define CONSOLE_F_MULTIPORT      (1u << 1)
#define CONSOLE_F_EMERG_WRITE    (1u << 2)
#define VIRTIO_F_VERSION_1_HI    (1u << 0)       /* feature bit 32 (6) */
#define CONSOLE_COLS             0x0u            /* le16 */
#define CONSOLE_ROWS             0x2u            /* le16 */
#define CONSOLE_MAX_NR_PORTS     0x4u            /* le32 */
#define CONSOLE_EMERG_WR         0x8u            /* le32 */

/*
 * Partita's virtio console offers VERSION_1 alone: no console size
 * (F_SIZE), no ports beyond the first (F_MULTIPORT), no emergency write
 * (F_EMERG_WRITE).  So none of the fields of its configuration space is
 * valid (virtio 1.x 5.3.4: cols and rows only with F_SIZE, max_nr_ports
 * only with F_MULTIPORT, emerg_wr only with F_EMERG_WRITE), and each reads
 * 0 at its own width, never an abort: a driver may read them anyway.
 */
static void check_console_config(uint32_t base)
{
    test_begin("virtio-console-config");
    mmio_write32(base + R_DEV_FEAT_SEL, 0);
    uint32_t lo = mmio_read32(base + R_DEV_FEAT);
    mmio_write32(base + R_DEV_FEAT_SEL, 1);
    uint32_t hi = mmio_read32(base + R_DEV_FEAT);
    CHECK((lo & (CONSOLE_F_SIZE | CONSOLE_F_MULTIPORT | CONSOLE_F_EMERG_WRITE)) == 0u &&
          hi == VIRTIO_F_VERSION_1_HI,
          "console features 0x%08lx%08lx: want VERSION_1 alone", (unsigned long)hi,
          (unsigned long)lo);
    uint32_t cfg = base + R_CONFIG;
    uint32_t cols = mmio_read16(cfg + CONSOLE_COLS), rows = mmio_read16(cfg + CONSOLE_ROWS);
    uint32_t ports = mmio_read32(cfg + CONSOLE_MAX_NR_PORTS);
    uint32_t emerg = mmio_read32(cfg + CONSOLE_EMERG_WR);
    uint32_t byte = 0xffu;
    bool aborted = try_read8(cfg + CONSOLE_ROWS + 1u, &byte);
    CHECK(cols == 0u && rows == 0u && ports == 0u && emerg == 0u && !aborted && byte == 0u,
          "console config: cols %lu rows %lu max_nr_ports %lu emerg_wr %lu, byte 0x%lx "
          "(abort %d): want 0 each", (unsigned long)cols, (unsigned long)rows,
          (unsigned long)ports, (unsigned long)emerg, (unsigned long)byte, aborted);
    gprintf("device: virtio console config reads cols %lu rows %lu max_nr_ports %lu\n",
            (unsigned long)cols, (unsigned long)rows, (unsigned long)ports);
    test_end();
}

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
    for (int i = 0; i < n && i < nid; i++) {
        if (id[i] == VIRTIO_ID_CONSOLE)
            check_console_config(base[i]);
    }
}

static void check_doorbells(void)
{
    uint32_t base[MAX_DEVS];
    int n = bootarg_u32s("doorbell", base, MAX_DEVS);
    test_begin("doorbells");
    for (int i = 0; i < n; i++) {
        uint32_t v = 0;
        bool aborted = try_read32(base[i] + CHAN_DB_ID, &v);
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
