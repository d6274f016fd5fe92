/*
 * Disks at run time: the owner of every frontend's device and every
 * disk's backend (disk.h).  A guest's RAM is contiguous in the identity
 * map unless it is coloured; a driver partition's queue is reached only
 * where guest_config_buffer finds it contiguous, else its frontends wait
 * (said once at its start).
 */
#include <stdio.h>
#include <string.h>
#include <arch/sysregs.h>
#include <partita/hvc.h>
#include "disk.h"
#include "guest.h"
#include "hyp/vdev/blk_backend.h"
#include "hyp/lib/console.h"
#include "mm/page_alloc.h"
#include "vgic/vgic.h"

static const struct system_config *disk_sys;
static struct blk_backend backends[DISK_MAX];
/* a frontend's device keeps the buffers of every request in flight: from
 * the page pool, for the frontends a configuration has only */
static struct vblk *devs[GUEST_MAX][GUEST_MAX_DISKS];
#define VBLK_PAGES ((sizeof(struct vblk) + 0xfffu) / 0x1000u)

/* where a frontend's device is: its guest and slot, its disk, its index there */
struct fe_where {
    uint8_t guest, slot, disk, fi;
};
static struct fe_where where[GUEST_MAX][GUEST_MAX_DISKS];

static void inject(struct guest *g, uint32_t irq)
{
    if (g->state != GUEST_RUNNING) {
        return;     /* its restart sets the device or the queue up again */
    }
    /* the used ring, the slot and the data are visible before it (A3.8.3) */
    dsb_ish();
    vgic_inject_edge(&g->vgic, 0, irq);
}

static void fe_submit(void *ctx, struct vblk *b, uint32_t tag)
{
    const struct fe_where *w = ctx;
    blk_backend_submit(&backends[w->disk], w->fi, tag);
}

static void fe_dropped(void *ctx, struct vblk *b)
{
    const struct fe_where *w = ctx;
    blk_backend_dropped(&backends[w->disk], w->fi);
}

static void fe_raise(void *ctx)
{
    const struct fe_where *w = ctx;
    inject(&guests[w->guest], disk_sys->guest_cfg[w->guest].disks[w->slot].irq);
}

static void fe_report(void *ctx, const char *why)
{
    const struct fe_where *w = ctx;
    struct guest *g = &guests[w->guest];
    guest_log(g, "guest '%s': disk '%s': device needs reset: %s\n", g->cfg->name,
              g->cfg->disks[w->slot].name, why);
}

static const struct vblk_ops fe_ops = { fe_submit, fe_dropped, fe_raise, fe_report };

static void be_raise(void *ctx)
{
    const struct disk_config *d = ctx;
    inject(&guests[d->driver], d->irq);
}

static void be_report(void *ctx, const char *why)
{
    const struct disk_config *d = ctx;
    struct guest *g = &guests[d->driver];
    guest_log(g, "guest '%s': disk '%s': %s\n", g->cfg->name, d->name, why);
}

static const struct blk_backend_ops be_ops = { be_raise, be_report };

/* a device for every frontend, or none (said) */
static bool alloc_devices(const struct system_config *sys)
{
    for (unsigned int i = 0u; i < sys->nguest_cfg; i++) {
        for (unsigned int k = 0u; k < sys->guest_cfg[i].ndisks; k++) {
            if (!(devs[i][k] = page_alloc(VBLK_PAGES, 1))) {
                pr_err("disks: out of hypervisor memory for the frontends' devices: no "
                       "disks\n");
                return false;
            }
        }
    }
    return true;
}

void disks_init(const struct system_config *sys)
{
    if (!sys->ndisks || !alloc_devices(sys)) {
        return;
    }
    disk_sys = sys;
    for (unsigned int i = 0u; i < sys->ndisks; i++) {
        const struct disk_config *d = &sys->disks[i];
        struct blk_backend *be = &backends[i];
        blk_backend_init(be, &be_ops, (void *)d);
        char line[240];
        int n = snprintf(line, sizeof(line), "disk '%s': driver %s, queue 0x%08lx+0x%lx (SPI %lu):",
                         d->name, sys->guest_cfg[d->driver].name, (unsigned long)d->queue_ipa,
                         (unsigned long)d->queue_size, (unsigned long)d->irq);
        for (unsigned int m = 0u; m < d->nfrontends; m++) {
            unsigned int gi = d->frontends[m].guest, k = d->frontends[m].slot;
            const struct guest_disk *gd = &sys->guest_cfg[gi].disks[k];
            struct fe_where *w = &where[gi][k];
            *w = (struct fe_where){ (uint8_t)gi, (uint8_t)k, (uint8_t)i, (uint8_t)m };
            vblk_init(devs[gi][k], &fe_ops, w, gd->capacity, gd->read_only);
            struct partita_blkq_frontend info = { gd->capacity, gd->read_only, gi, { 0 } };
            (void)memcpy(info.backing, gd->backing, sizeof(info.backing));
            (void)blk_backend_add(be, devs[gi][k], &info);
            if (n > 0 && n < (int)sizeof(line)) {
                n += snprintf(line + n, sizeof(line) - (size_t)n, "%s %s at 0x%08lx (SPI %lu)%s",
                              m ? "," : "", sys->guest_cfg[gi].name, (unsigned long)gd->ipa,
                              (unsigned long)gd->irq, gd->read_only ? " read-only" : "");
            }
        }
        pr_info("%s\n", line);
    }
}

/* A disk's done page (the configuration's `done`): a store at
 * PARTITA_BLKQ_DONE_REG is PARTITA_HC_BLK_DONE for the disk, for a driver
 * partition in user space (include/partita/blk_queue.h); reads are 0 */
static bool done_mmio(void *dev, struct mmio_access *a, uint32_t offset)
{
    if (!a->write) {
        a->value = 0u;
    } else if (offset == PARTITA_BLKQ_DONE_REG) {
        (void)blk_backend_done(dev);
    } else {
        /* other offsets: nothing to do */
    }
    return true;
}

/* disk i's queue in its driver g's RAM, given to the backend */
static void attach_queue(struct guest *g, unsigned int i)
{
    const struct disk_config *d = &disk_sys->disks[i];
    uint64_t pa;
    if (guest_config_buffer(g->cfg, d->queue_ipa, d->queue_size, &pa)) {
        blk_backend_attach(&backends[i], (uint8_t *)(uintptr_t)pa, d->queue_size);
    } else {
        guest_log(g, "guest '%s': disk '%s': queue is not contiguous memory: its "
                  "frontends wait\n", g->cfg->name, d->name);
    }
}

int disk_guest_start(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    if (!disk_sys) {
        return 0;
    }
    struct gmem ram = { guest_ram_ipa(c), c->mem_size, (uint8_t *)(uintptr_t)c->mem_base };
    for (unsigned int k = 0u; k < c->ndisks; k++) {
        if (guest_mmio_add(g, c->disks[k].name, c->disks[k].ipa, VIRTIO_MMIO_SIZE, vblk_mmio,
                           devs[g->id][k]) != 0) {
            return -1;
        }
        vblk_attach(devs[g->id][k], ram);
    }
    int rc = 0;
    for (unsigned int i = 0u; (rc == 0) && (i < disk_sys->ndisks); i++) {
        const struct disk_config *d = &disk_sys->disks[i];
        if (d->driver != (int)g->id) {
            continue;
        }
        if (d->done_ipa != 0u) {
            rc = guest_mmio_add(g, "done", d->done_ipa, DISK_DONE_SIZE, done_mmio, &backends[i]);
        }
        if (rc == 0) {
            attach_queue(g, i);
        }
    }
    return rc;
}

void disk_guest_stop(struct guest *g)
{
    if (!disk_sys) {
        return;
    }
    for (unsigned int k = 0u; k < g->cfg->ndisks; k++) {
        vblk_detach(devs[g->id][k]);
    }
    for (unsigned int i = 0u; i < disk_sys->ndisks; i++) {
        if (disk_sys->disks[i].driver == (int)g->id) {
            blk_backend_detach(&backends[i]);
        }
    }
}

int disk_done(struct guest *g, uint32_t disk)
{
    for (unsigned int i = 0u; disk_sys && i < disk_sys->ndisks; i++) {
        if (disk_sys->disks[i].driver == (int)g->id && disk-- == 0u) {
            return (int)blk_backend_done(&backends[i]);
        }
    }
    return PSCI_INVALID_PARAMETERS;
}

unsigned int disk_guest_counts(const struct guest *g, struct disk_counts *out)
{
    unsigned int n = 0u;
    for (unsigned int k = 0u; (disk_sys != NULL) && (k < g->cfg->ndisks); k++) {
        out[n] = (struct disk_counts){ g->cfg->disks[k].name, false, { 0 }, { 0 }, 0 };
        vblk_stats_get(devs[g->id][k], &out[n].fe);
        n++;
    }
    for (unsigned int i = 0u; (disk_sys != NULL) && (i < disk_sys->ndisks); i++) {
        if (disk_sys->disks[i].driver == (int)g->id) {
            out[n] = (struct disk_counts){ disk_sys->disks[i].name, true, { 0 }, { 0 }, 0 };
            blk_backend_stats_get(&backends[i], &out[n].be, &out[n].waiting);
            n++;
        }
    }
    return n;
}

void disk_print_stats(const struct guest *g)
{
    struct disk_counts c[DISK_COUNTS_MAX];
    unsigned int n = disk_guest_counts(g, c);
    for (unsigned int k = 0u; k < n; k++) {
        if (c[k].driver) {
            pr_info("  disk '%s' (its driver): requests given %lu, answers %lu, wrong answers "
                    "%lu, given again to a next life %lu, waiting %u\n", c[k].name,
                    (unsigned long)c[k].be.moved, (unsigned long)c[k].be.answers,
                    (unsigned long)c[k].be.bad_answers, (unsigned long)c[k].be.requeued,
                    c[k].waiting);
        } else {
            pr_info("  disk '%s': requests %lu, completed %lu, read %llu bytes, written %llu "
                    "bytes, I/O errors %lu, wrong answers %lu, dropped %lu, malformed rings "
                    "%lu\n", c[k].name, (unsigned long)c[k].fe.requests,
                    (unsigned long)c[k].fe.completed, (unsigned long long)c[k].fe.read_bytes,
                    (unsigned long long)c[k].fe.written_bytes, (unsigned long)c[k].fe.failed,
                    (unsigned long)c[k].fe.bad_completions, (unsigned long)c[k].fe.dropped,
                    (unsigned long)c[k].fe.errors);
        }
    }
}
