/*
 * Kernel, initrd and device tree against the guest's memory and against the
 * queues of the disks it drives: at load and for an image given at run time.
 */
#include "guest_config.h"
#include "config_internal.h"

/*
 * The queue of a disk the guest drives (hyp/vdev/blk_backend.c) is written
 * by Partita when the guest starts: it must hold none of what the loader
 * (hyp/guest/loader.c) puts into the guest's RAM - the image, the initrd
 * page aligned below the device tree, the device tree at the top of the
 * low window.  (A Linux zImage also decompresses itself above its image,
 * where no check can follow it: docs/disks.md says where a queue goes.)
 */
/* where the loader puts an initrd (hyp/guest/loader.c): page aligned
 * below the device tree at offset dtb (only where it fits below it) */
static uint64_t initrd_offset(const struct guest_config *g, uint64_t dtb)
{
    return (dtb - g->initrd_size) & ~0xfffULL;
}

/* what of the loader's the range at offset off covers, or NULL */
static const char *image_under(const struct guest_config *g, uint64_t off, uint64_t size,
                               uint64_t dtb)
{
    uint64_t image = (g->format == KERNEL_RAW) ? g->load_offset : LINUX_ZIMAGE_OFFSET;
    uint64_t initrd = initrd_offset(g, dtb);
    const char *what = NULL;
    if (cfg_overlaps(off, size, image, g->kernel_size)) {
        what = "the kernel image";
    } else if ((g->initrd_size != 0u) && (g->initrd_size <= dtb) &&
               cfg_overlaps(off, size, initrd, g->initrd_size)) {
        what = "the initrd";
    } else if (cfg_overlaps(off, size, dtb, GUEST_DTB_ROOM)) {
        what = "the device tree";
    } else {
        /* clear of all three */
    }
    return what;
}

static void check_queues(const struct guest_config *g, struct cfg_ctx *c, uint64_t dtb)
{
    char p[PROP_MAX];
    for (unsigned int k = 0u; k < g->ndriven; k++) {
        const struct guest_driven *d = &g->driven[k];
        uint64_t off = d->queue_ipa - guest_ram_ipa(g);
        /* one outside its RAM: the disk's own check says so */
        bool inside = (d->queue_ipa >= guest_ram_ipa(g)) &&
                      ((off + d->queue_size) <= g->mem_size);
        const char *what = inside ? image_under(g, off, d->queue_size, dtb) : NULL;
        if (what != NULL) {
            cfg_msg(c, true, g->name, cfg_member_prop(p, sizeof(p), d->name, "queue"),
                    "offset 0x%llx+0x%lx of its RAM overlaps %s, which the loader puts there",
                    (unsigned long long)off, (unsigned long)d->queue_size, what);
        }
    }
}

void config_check_images(struct guest_config *g, struct cfg_ctx *c)
{
    if (g->mem_size < GUEST_DTB_ROOM || !g->kernel_size) {
        return;
    }
    uint64_t window = g->mem_size < GUEST_LOW_WINDOW ? g->mem_size : GUEST_LOW_WINDOW;
    uint64_t dtb = window - GUEST_DTB_ROOM;
    check_queues(g, c, dtb);
    if (g->format == KERNEL_RAW) {
        uint64_t end = (uint64_t)g->load_offset + g->kernel_size;
        if (end > g->mem_size) {
            cfg_msg(c, true, g->name, "kernel", "image (%lu bytes at offset 0x%lx) does not "
                    "fit in memory", (unsigned long)g->kernel_size,
                    (unsigned long)g->load_offset);
        } else if (cfg_overlaps(g->load_offset, g->kernel_size, dtb, GUEST_DTB_ROOM)) {
            cfg_msg(c, true, g->name, "kernel", "image (%lu bytes at offset 0x%lx) overlaps "
                    "the device tree at offset 0x%llx", (unsigned long)g->kernel_size,
                    (unsigned long)g->load_offset, (unsigned long long)dtb);
        } else {
            /* otherwise nothing to do */
        }
        if (g->entry_offset >= g->mem_size) {
            cfg_msg(c, true, g->name, "entry-offset", "outside the guest's memory");
        }
        /* the initrd goes page aligned below the DTB, as for Linux */
        if (g->initrd_size > dtb) {
            cfg_msg(c, true, g->name, "initrd", "%lu bytes: more than the %llu KiB below the "
                    "device tree", (unsigned long)g->initrd_size, (unsigned long long)(dtb >> 10));
        } else if (g->initrd_size &&
                   cfg_overlaps(g->load_offset, g->kernel_size, initrd_offset(g, dtb),
                                g->initrd_size)) {
            cfg_msg(c, true, g->name, "initrd", "%lu bytes at offset 0x%llx overlap the image "
                    "(%lu bytes at offset 0x%lx)", (unsigned long)g->initrd_size,
                    (unsigned long long)initrd_offset(g, dtb),
                    (unsigned long)g->kernel_size, (unsigned long)g->load_offset);
        } else {
            /* otherwise nothing to do */
        }
        return;
    }
    /* zImage at +32 KiB; the initrd page aligned below the 64 KiB DTB */
    uint64_t need = LINUX_ZIMAGE_OFFSET + (uint64_t)g->kernel_size;
    if (g->initrd_size != 0u) {
        need = ((need + 0xfffu) & ~0xfffULL) + g->initrd_size;
    }
    need += GUEST_DTB_ROOM;
    if ((need > window) && (window < g->mem_size)) {
        cfg_msg(c, true, g->name, g->initrd_size ? "initrd" : "kernel",
                "kernel, initrd and DTB need %llu KiB of the first 256 MiB of memory",
                (unsigned long long)((need + 1023u) >> 10));
    } else if (need > window) {
        cfg_msg(c, true, g->name, g->initrd_size ? "initrd" : "kernel",
                "kernel, initrd and DTB need %llu KiB, memory is %llu KiB",
                (unsigned long long)((need + 1023u) >> 10),
                (unsigned long long)(g->mem_size >> 10));
    } else {
        /* otherwise nothing to do */
    }
}

int config_check_guest_image(struct guest_config *g, config_report_fn report, void *ctx)
{
    struct cfg_ctx c = { report, ctx, 0, NULL, 0 };
    if (g->mem_size < GUEST_DTB_ROOM) {
        cfg_msg(&c, true, g->name, "memory", "no room for the device tree");
    }
    config_check_images(g, &c);
    return c.errors;
}
