/*
 * Disks in the configuration device tree: a driver partition that owns
 * the storage, and frontend guests that each get a virtio block device of
 * their own on it (docs/disks.md).
 *
 *     store {
 *         compatible = "partita,disk";
 *         driver = "linux";                    the guest that serves it
 *         queue = <0x4f000000 0x100000>;       IPA, size: in the driver's RAM
 *         interrupt = <60>;                    the driver's SPI for new requests
 *         done = <0x0a100000>;                 optional: the driver's done page
 *         rt { ipa = <0x0a000400>; interrupt = <50>; capacity = <0x8000>;
 *              backing = "/srv/rt.img"; read-only; };
 *     };
 *
 * capacity counts 512-byte sectors (virtio 1.x 5.2.4), in one or two
 * cells.  Parsed after every guest and checked after the networks, one
 * line per problem naming the disk or the guest and "DISK/PROP".
 */
#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

static const char *const disk_props[] = { "compatible", "driver", "queue", "interrupt", "done",
                                          NULL };
static const char *const frontend_props[] = { "ipa", "interrupt", "capacity", "read-only",
                                              "backing", NULL };

/* the largest capacity whose size in bytes fits 64 bits */
#define DISK_CAPACITY_MAX (UINT64_MAX / DISK_SECTOR_SIZE)

bool config_is_disk(const void *fdt, int node)
{
    return fdt_node_check_compatible(fdt, node, "partita,disk") == 0;
}

/* capacity: one or two cells, at least one sector */
static bool parse_capacity(const void *fdt, int node, const char *g, const char *p,
                           uint64_t *out, struct cfg_ctx *c)
{
    int len;
    const fdt32_t *v = dt_getprop(fdt, node, "capacity", &len);
    if (!v) {
        cfg_msg(c, true, g, p, "missing: the disk's size in 512-byte sectors");
        return false;
    }
    if (len == 4) {
        *out = fdt32_ld(v);
    } else if (len == 8) {
        *out = (uint64_t)fdt32_ld(v) << 32 | fdt32_ld(v + 1);
    } else {
        cfg_msg(c, true, g, p, "must be one or two 32-bit cells");
        return false;
    }
    if (*out == 0 || *out > DISK_CAPACITY_MAX) {
        cfg_msg(c, true, g, p, "%llu sectors: give 1 to %llu", (unsigned long long)*out,
                (unsigned long long)DISK_CAPACITY_MAX);
        return false;
    }
    return true;
}

/* backing: the name the driver partition finds the store by, printable
 * and without spaces so that its daemon can take it as one word */
static bool parse_backing(const void *fdt, int node, const char *g, const char *p,
                          char *out, struct cfg_ctx *c)
{
    bool bad;
    const char *s = cfg_get_string(fdt, node, "backing", &bad);
    size_t n = s ? strlen(s) : 0u;
    bool printable = (n > 0u) && (n < DISK_BACKING_MAX);
    for (size_t i = 0; printable && i < n; i++) {
        printable = (s[i] > ' ') && (s[i] <= '~');
    }
    if (!s && !bad) {
        cfg_msg(c, true, g, p, "missing: the name of the store in the driver partition");
    } else if (!printable) {
        cfg_msg(c, true, g, p, "must be a string of 1 to %u printable characters "
                "without spaces", DISK_BACKING_MAX - 1u);
    } else {
        (void)memcpy(out, s, n + 1u);
        return true;
    }
    return false;
}

static void parse_frontend(const void *fdt, int node, struct system_config *sys,
                           struct disk_config *d, struct cfg_ctx *c)
{
    char p[PROP_MAX];
    int gi = cfg_member_guest(fdt, node, sys, "disk", d->name, d->nfrontends,
                              DISK_MAX_FRONTENDS, c);
    if (gi < 0) {
        return;
    }
    struct guest_config *g = &sys->guest_cfg[gi];
    if (gi == d->driver) {
        cfg_msg(c, true, g->name, d->name, "the driver partition of disk '%s' cannot be "
                "its frontend too", d->name);
        return;
    }
    if (g->ndisks == GUEST_MAX_DISKS) {
        cfg_msg(c, true, g->name, d->name, "a frontend of more than %u disks", GUEST_MAX_DISKS);
        return;
    }
    cfg_warn_unknown(fdt, node, frontend_props, "guest", g->name, d->name, c);
    struct guest_disk *gd = &g->disks[g->ndisks];
    (void)memset(gd, 0, sizeof(*gd));
    (void)memcpy(gd->name, d->name, sizeof(gd->name));
    ptrdiff_t di = d - sys->disks;
    gd->id = (unsigned int)di;
    gd->member = d->nfrontends;
    gd->read_only = dt_getprop(fdt, node, "read-only", NULL) != NULL;
    bool ok = cfg_parse_cell(fdt, node, "ipa", g->name,
                             cfg_member_prop(p, sizeof(p), d->name, "ipa"),
                             "where the guest sees the device", &gd->ipa, c);
    ok &= cfg_parse_cell(fdt, node, "interrupt", g->name,
                         cfg_member_prop(p, sizeof(p), d->name, "interrupt"),
                         "the SPI (INTID) the device raises", &gd->irq, c);
    ok &= parse_capacity(fdt, node, g->name, cfg_member_prop(p, sizeof(p), d->name, "capacity"),
                         &gd->capacity, c);
    ok &= parse_backing(fdt, node, g->name, cfg_member_prop(p, sizeof(p), d->name, "backing"),
                        gd->backing, c);
    gd->parse_error = !ok;
    d->frontends[d->nfrontends++] = (struct disk_frontend){ (unsigned int)gi, g->ndisks };
    g->ndisks++;
}

/* driver, queue and interrupt: the driver partition's side */
static void parse_driver(const void *fdt, int node, struct system_config *sys,
                         struct disk_config *d, struct cfg_ctx *c)
{
    bool bad;
    const char *name = cfg_get_string(fdt, node, "driver", &bad);
    d->driver = -1;
    d->parse_error = true;
    if (!name) {
        cfg_report(c, true, "disk", d->name, "driver", bad ? "must be a string" :
                   "missing: the guest that owns the storage");
        return;
    }
    d->driver = cfg_guest_index(sys, name);
    if (d->driver < 0) {
        cfg_report(c, true, "disk", d->name, "driver", "no guest '%.*s'", GUEST_NAME_MAX, name);
        return;
    }
    const char *g = sys->guest_cfg[d->driver].name;
    char p[PROP_MAX];
    int len;
    const fdt32_t *q = dt_getprop(fdt, node, "queue", &len);
    bool ok = true;
    if (!q || len != 8) {
        cfg_msg(c, true, g, cfg_member_prop(p, sizeof(p), d->name, "queue"), q ?
                "give <IPA size>" : "missing: where in its RAM the disk's requests go");
        ok = false;
    } else {
        d->queue_ipa = fdt32_ld(q);
        d->queue_size = fdt32_ld(q + 1);
    }
    ok &= cfg_parse_cell(fdt, node, "interrupt", g,
                         cfg_member_prop(p, sizeof(p), d->name, "interrupt"),
                         "the SPI (INTID) that tells the driver of requests", &d->irq, c);
    int rc = cfg_get_u32(fdt, node, "done", &d->done_ipa);
    if ((rc < 0) || ((rc > 0) && (d->done_ipa == 0u))) {
        cfg_msg(c, true, g, cfg_member_prop(p, sizeof(p), d->name, "done"),
                "give the IPA of a 4 KiB page outside its RAM");
        ok = false;
    }
    d->parse_error = !ok;
    struct guest_config *dg = &sys->guest_cfg[d->driver];
    ptrdiff_t disk = d - sys->disks;
    if (ok && (dg->ndriven < DISK_MAX)) {
        struct guest_driven *v = &dg->driven[dg->ndriven++];
        *v = (struct guest_driven){ (unsigned int)disk, { 0 }, d->queue_ipa,
                                    d->queue_size, d->irq, d->done_ipa };
        (void)memcpy(v->name, d->name, sizeof(v->name));
    }
}

void config_parse_disk(const void *fdt, int node, struct system_config *sys, struct cfg_ctx *c)
{
    const char *name = fdt_get_name(fdt, node, NULL);
    if (sys->ndisks == DISK_MAX) {
        cfg_report(c, true, "disk", name, NULL, "more than %u disks", DISK_MAX);
        return;
    }
    struct disk_config *d = &sys->disks[sys->ndisks++];
    (void)snprintf(d->name, sizeof(d->name), "%s", name);
    cfg_warn_unknown(fdt, node, disk_props, "disk", d->name, NULL, c);
    parse_driver(fdt, node, sys, d, c);
    int sub;
    fdt_for_each_subnode(sub, fdt, node)
        parse_frontend(fdt, sub, sys, d, c);
}

/* What of g's disk devices before k, or its virtio console, the window
 * at ipa hits, or NULL */
static const char *disk_window_clash(const struct guest_config *g, uint32_t ipa,
                                     unsigned int k, char *what, size_t n)
{
    if (g->vcon && cfg_overlaps(ipa, VIRTIO_MMIO_SIZE, g->vcon_ipa, VIRTIO_MMIO_SIZE)) {
        return "its virtio console";
    }
    for (unsigned int j = 0; j < k; j++) {
        if (!g->disks[j].parse_error &&
            cfg_overlaps(ipa, VIRTIO_MMIO_SIZE, g->disks[j].ipa, VIRTIO_MMIO_SIZE)) {
            (void)snprintf(what, n, "the device of disk '%s'", g->disks[j].name);
            return what;
        }
    }
    return NULL;
}

/* What of g's interrupts irq is beyond what cfg_irq_clash knows: its
 * virtio console, its disk devices before k, and the interrupts of the
 * disks it drives before disk dk (all of them for a frontend: dk =
 * DISK_MAX) */
static const char *disk_irq_clash(const struct system_config *sys, unsigned int gi,
                                  uint32_t irq, unsigned int k, unsigned int dk, char *what,
                                  size_t n)
{
    const struct guest_config *g = &sys->guest_cfg[gi];
    if (g->vcon && g->vcon_irq == irq) {
        return "the interrupt of its virtio console";
    }
    for (unsigned int j = 0; j < k; j++) {
        if (!g->disks[j].parse_error && g->disks[j].irq == irq) {
            (void)snprintf(what, n, "the interrupt of disk '%s'", g->disks[j].name);
            return what;
        }
    }
    for (unsigned int j = 0; j < dk && j < sys->ndisks; j++) {
        const struct disk_config *d = &sys->disks[j];
        if (d->driver == (int)gi && !d->parse_error && d->irq == irq) {
            (void)snprintf(what, n, "the request interrupt of disk '%s'", d->name);
            return what;
        }
    }
    return NULL;
}

static void check_frontend(const struct system_config *sys, unsigned int gi, unsigned int k,
                           struct cfg_ctx *c)
{
    const struct guest_config *g = &sys->guest_cfg[gi];
    const struct guest_disk *gd = &g->disks[k];
    char pipa[PROP_MAX], pirq[PROP_MAX], what[GUEST_NAME_MAX + 48];
    const char *clash;
    (void)cfg_member_prop(pipa, sizeof(pipa), gd->name, "ipa");
    (void)cfg_member_prop(pirq, sizeof(pirq), gd->name, "interrupt");
    int before = c->errors;
    cfg_check_virtio_device(sys, g, gd->ipa, gd->irq, g->nnets, pipa, pirq, c);
    if (c->errors != before) {
        return;
    }
    if ((clash = disk_window_clash(g, gd->ipa, k, what, sizeof(what)))) {
        cfg_msg(c, true, g->name, pipa, "0x%llx-0x%llx collides with %s",
                (unsigned long long)gd->ipa, (unsigned long long)gd->ipa + VIRTIO_MMIO_SIZE,
                clash);
    }
    if ((clash = disk_irq_clash(sys, gi, gd->irq, k, 0, what, sizeof(what)))) {
        cfg_msg(c, true, g->name, pirq, "interrupt %lu is %s", (unsigned long)gd->irq, clash);
    }
}

/* Two writable frontends of one disk on one store would corrupt each
 * other's data; sharing a store read-only is fine */
static void check_backings(const struct system_config *sys, const struct disk_config *d,
                           struct cfg_ctx *c)
{
    char p[PROP_MAX];
    for (unsigned int m = 0; m < d->nfrontends; m++) {
        const struct guest_config *g = &sys->guest_cfg[d->frontends[m].guest];
        const struct guest_disk *gd = &g->disks[d->frontends[m].slot];
        for (unsigned int o = 0; o < m && !gd->parse_error; o++) {
            const struct guest_config *og = &sys->guest_cfg[d->frontends[o].guest];
            const struct guest_disk *od = &og->disks[d->frontends[o].slot];
            if (od->parse_error || strcmp(od->backing, gd->backing) != 0 ||
                (od->read_only && gd->read_only)) {
                continue;
                }
            cfg_msg(c, true, g->name, cfg_member_prop(p, sizeof(p), d->name, "backing"),
                    "'%s' is already the store of guest '%s', and one of them may write it",
                    gd->backing, og->name);
            break;
        }
    }
}

/* What of the driver g's own the done page at ipa hits: its virtual
 * board and RAM, passthrough ranges, channels with their doorbell pages,
 * virtio devices, and the done pages of the disks it drives before disk
 * di; or NULL */
static const char *done_clash(const struct system_config *sys, const struct guest_config *g,
                              uint32_t ipa, unsigned int di, char *what, size_t n)
{
    const char *dev = cfg_vboard_device(g, ipa, DISK_DONE_SIZE);
    if (dev != NULL) {
        (void)snprintf(what, n, "the guest's own %s", dev);
        return what;
    }
    for (unsigned int i = 0; i < g->npt_regs; i++) {
        if (cfg_overlaps(ipa, DISK_DONE_SIZE, g->pt_regs[i].base, g->pt_regs[i].size)) {
            return "its passthrough range";
        }
    }
    for (unsigned int j = 0; j < g->nchannels; j++) {
        if (cfg_overlaps(ipa, DISK_DONE_SIZE, g->channels[j].ipa,
                         (uint64_t)g->channels[j].size + CHANNEL_DOORBELL_SIZE)) {
            (void)snprintf(what, n, "channel '%s'", g->channels[j].name);
            return what;
        }
    }
    for (unsigned int j = 0; j < g->nnets; j++) {
        if (cfg_overlaps(ipa, DISK_DONE_SIZE, g->nets[j].ipa, VIRTIO_MMIO_SIZE)) {
            return "the device of one of its networks";
        }
    }
    if (g->vcon && cfg_overlaps(ipa, DISK_DONE_SIZE, g->vcon_ipa, VIRTIO_MMIO_SIZE)) {
        return "its virtio console";
    }
    for (unsigned int j = 0; j < g->ndisks; j++) {
        if (cfg_overlaps(ipa, DISK_DONE_SIZE, g->disks[j].ipa, VIRTIO_MMIO_SIZE)) {
            (void)snprintf(what, n, "the device of disk '%s'", g->disks[j].name);
            return what;
        }
    }
    for (unsigned int j = 0; j < di; j++) {
        const struct disk_config *o = &sys->disks[j];
        if (o->driver == sys->disks[di].driver && !o->parse_error && o->done_ipa &&
            cfg_overlaps(ipa, DISK_DONE_SIZE, o->done_ipa, DISK_DONE_SIZE)) {
            (void)snprintf(what, n, "the done page of disk '%s'", o->name);
            return what;
        }
    }
    return NULL;
}

static void check_done(const struct system_config *sys, unsigned int di, struct cfg_ctx *c)
{
    const struct disk_config *d = &sys->disks[di];
    const struct guest_config *g = &sys->guest_cfg[d->driver];
    char p[PROP_MAX], what[GUEST_NAME_MAX + 48];
    const char *clash;
    if (!d->done_ipa) {
        return;
    }
    (void)cfg_member_prop(p, sizeof(p), d->name, "done");
    if ((d->done_ipa & (DISK_DONE_SIZE - 1u)) != 0u) {
        cfg_msg(c, true, g->name, p, "0x%lx is not 4 KiB aligned", (unsigned long)d->done_ipa);
    } else if ((clash = done_clash(sys, g, d->done_ipa, di, what, sizeof(what)))) {
        cfg_msg(c, true, g->name, p, "0x%lx-0x%lx collides with %s",
                (unsigned long)d->done_ipa, (unsigned long)d->done_ipa + DISK_DONE_SIZE, clash);
    } else {
        /* otherwise nothing to do */
    }
}

static void check_driver(const struct system_config *sys, unsigned int di, struct cfg_ctx *c)
{
    const struct disk_config *d = &sys->disks[di];
    const struct guest_config *g = &sys->guest_cfg[d->driver];
    char p[PROP_MAX], what[GUEST_NAME_MAX + 48];
    const char *clash;
    uint64_t ram = guest_ram_ipa(g);
    (void)cfg_member_prop(p, sizeof(p), d->name, "queue");
    if (((d->queue_ipa | d->queue_size) & (DISK_QUEUE_ALIGN - 1u)) != 0u) {
        cfg_msg(c, true, g->name, p, "0x%lx+0x%lx is not in whole 4 KiB pages",
                (unsigned long)d->queue_ipa, (unsigned long)d->queue_size);
    } else if (d->queue_size < DISK_QUEUE_MIN || d->queue_size > DISK_QUEUE_MAX) {
        cfg_msg(c, true, g->name, p, "%lu KiB: give %u KiB to %u MiB",
                (unsigned long)d->queue_size >> 10, DISK_QUEUE_MIN >> 10, DISK_QUEUE_MAX >> 20);
    } else if (!cfg_inside(d->queue_ipa, d->queue_size, ram, g->mem_size)) {
        cfg_msg(c, true, g->name, p, "0x%lx+0x%lx is not inside its RAM",
                (unsigned long)d->queue_ipa, (unsigned long)d->queue_size);
    } else {
        for (unsigned int j = 0; j < di; j++) {
            const struct disk_config *o = &sys->disks[j];
            if (o->driver == d->driver && !o->parse_error &&
                cfg_overlaps(d->queue_ipa, d->queue_size, o->queue_ipa, o->queue_size)) {
                cfg_msg(c, true, g->name, p, "overlaps the queue of disk '%s'", o->name);
                break;
            }
        }
    }
    (void)cfg_member_prop(p, sizeof(p), d->name, "interrupt");
    if ((d->irq < 32u) || (d->irq > CHANNEL_SPI_MAX)) {
        cfg_msg(c, true, g->name, p, "interrupt %lu is not an SPI of the virtual GIC (32-%u)",
                (unsigned long)d->irq, CHANNEL_SPI_MAX);
    } else if ((clash = cfg_irq_clash(sys, g, d->irq, g->nnets, what, sizeof(what))) ||
               (clash = disk_irq_clash(sys, (unsigned int)d->driver, d->irq, g->ndisks, di, what,
                                       sizeof(what)))) {
        cfg_msg(c, true, g->name, p, "interrupt %lu is %s", (unsigned long)d->irq, clash);
    } else {
        /* otherwise nothing to do */
    }
}

void config_check_disks(struct system_config *sys, struct cfg_ctx *c)
{
    for (unsigned int i = 0; i < sys->ndisks; i++) {
        const struct disk_config *d = &sys->disks[i];
        if ((d->driver >= 0) && (d->nfrontends == 0u)) {
            cfg_report(c, true, "disk", d->name, NULL, "has no frontend guest");
        }
        if (!d->parse_error) {
            check_driver(sys, i, c);
            check_done(sys, i, c);
        }
        check_backings(sys, d, c);
    }
    for (unsigned int i = 0; i < sys->nguest_cfg; i++) {
        for (unsigned int k = 0; k < sys->guest_cfg[i].ndisks; k++) {
            if (!sys->guest_cfg[i].disks[k].parse_error) {
                check_frontend(sys, i, k, c);
            }
        }
    }
}
