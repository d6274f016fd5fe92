/*
 * What the parsers of the groups of guests share (channels, networks and
 * disks: hyp/config/config_channel.c, config_network.c, config_disk.c):
 * members named after guests, unknown properties, one cell, and a virtio
 * device's window and interrupt against the rest of its guest's board.
 * Here, not in one of them, so that an image leaves any of them out
 * (docs/building.md, "Rooms").
 */
#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include "arch/layout.h"
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

static bool known(const char *const *list, const char *name)
{
    for (int i = 0; list[i]; i++) {
        if (strcmp(list[i], name) == 0) {
            return true;
        }
    }
    return false;
}

void cfg_warn_unknown(const void *fdt, int node, const char *const *list, const char *kind,
                      const char *name, const char *chan, struct cfg_ctx *c)
{
    int prop;
    fdt_for_each_property_offset(prop, fdt, node) {
        const char *pn = NULL;
        if (!fdt_getprop_by_offset(fdt, prop, &pn, NULL) || !pn || known(list, pn)) {
            continue;
        }
        if (chan != NULL) {
            cfg_report(c, false, kind, name, NULL, "%s/%s: unknown property (ignored)", chan, pn);
        } else {
            cfg_report(c, false, kind, name, pn, "unknown property (ignored)");
        }
    }
}

int cfg_guest_index(const struct system_config *sys, const char *name)
{
    for (unsigned int i = 0u; i < sys->nguest_cfg; i++) {
        if (strcmp(sys->guest_cfg[i].name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

const char *cfg_member_prop(char *buf, size_t n, const char *group, const char *p)
{
    (void)snprintf(buf, n, "%s/%s", group, p);
    return buf;
}

int cfg_member_guest(const void *fdt, int node, const struct system_config *sys,
                     const char *kind, const char *group, unsigned int nmembers,
                     unsigned int max_members, struct cfg_ctx *c)
{
    const char *gname = fdt_get_name(fdt, node, NULL);
    int gi = cfg_guest_index(sys, gname);
    if (gi < 0) {
        cfg_report(c, true, kind, group, gname, "no guest of that name");
    } else if (nmembers == max_members) {
        cfg_report(c, true, kind, group, gname, "more than %u guests", max_members);
    } else {
        return gi;
    }
    return -1;
}

bool cfg_parse_cell(const void *fdt, int node, const char *prop, const char *g,
                       const char *p, const char *missing, uint32_t *out, struct cfg_ctx *c)
{
    int r = cfg_get_u32(fdt, node, prop, out);
    if (r <= 0) {
        cfg_msg(c, true, g, p, r < 0 ? "must be one 32-bit cell" : "missing: %s", missing);
    }
    return r > 0;
}

/* What of the guest's own the device window at ipa hits (its network
 * devices before k only), or NULL */
static const char *window_clash(const struct system_config *sys, const struct guest_config *g,
                                uint32_t ipa, unsigned int k, char *what, size_t n)
{
    const char *dev = cfg_vboard_device(g, ipa, VIRTIO_MMIO_SIZE);
    if (dev != NULL) {
        (void)snprintf(what, n, "the guest's own %s", dev);
        return what;
    }
    /* Stage-2 maps passthrough and channel memory in whole pages */
    uint64_t page = ipa & ~0xfffULL;
    for (unsigned int i = 0u; i < g->npt_regs; i++) {
        if (cfg_overlaps(page, 0x1000, g->pt_regs[i].base, g->pt_regs[i].size)) {
            (void)snprintf(what, n, "its passthrough range 0x%llx",
                           (unsigned long long)g->pt_regs[i].base);
            return what;
        }
    }
    for (unsigned int j = 0u; j < g->nchannels; j++) {
        const struct guest_channel *gc = &g->channels[j];
        if (cfg_overlaps(ipa, VIRTIO_MMIO_SIZE, gc->ipa,
                         (uint64_t)gc->size + CHANNEL_DOORBELL_SIZE)) {
            (void)snprintf(what, n, "channel '%s'", gc->name);
            return what;
        }
    }
    for (unsigned int j = 0u; j < k; j++) {
        if (!g->nets[j].parse_error &&
            cfg_overlaps(ipa, VIRTIO_MMIO_SIZE, g->nets[j].ipa, VIRTIO_MMIO_SIZE)) {
            (void)snprintf(what, n, "the device of network '%s'",
                           sys->networks[g->nets[j].id].name);
            return what;
        }
    }
    return NULL;
}

/* What of the guest's interrupts irq already is (its network devices'
 * before k only), or NULL */
const char *cfg_irq_clash(const struct system_config *sys, const struct guest_config *g,
                             uint32_t irq, unsigned int k, char *what, size_t n)
{
    if (irq == VBOARD_UART_IRQ) {
        return "the guest's own emulated UART";
    }
    for (unsigned int i = 0u; i < g->npt_irqs; i++) {
        if (g->pt_irqs[i] == irq) {
            return "passed through to the guest";
        }
    }
    for (unsigned int j = 0u; j < g->nchannels; j++) {
        if (g->channels[j].doorbell == irq) {
            (void)snprintf(what, n, "the doorbell of channel '%s'", g->channels[j].name);
            return what;
        }
    }
    for (unsigned int j = 0u; j < k; j++) {
        if (!g->nets[j].parse_error && g->nets[j].irq == irq) {
            (void)snprintf(what, n, "the interrupt of network '%s'",
                           sys->networks[g->nets[j].id].name);
            return what;
        }
    }
    return NULL;
}

/* A virtio device of g at ipa raising irq, beside its network devices
 * before k; pipa and pirq name the properties in the error lines */
void cfg_check_virtio_device(const struct system_config *sys, const struct guest_config *g,
                         uint32_t ipa32, uint32_t irq32, unsigned int k, const char *pipa,
                         const char *pirq, struct cfg_ctx *c)
{
    char what[GUEST_NAME_MAX + 48];
    const char *clash;
    unsigned long long ipa = ipa32;
    unsigned long irq = irq32;
    if ((ipa32 & (VIRTIO_MMIO_SIZE - 1u)) != 0u) {
        cfg_msg(c, true, g->name, pipa, "0x%llx is not 0x%x aligned", ipa, VIRTIO_MMIO_SIZE);
    } else if ((clash = window_clash(sys, g, ipa32, k, what, sizeof(what))) != NULL) {
        cfg_msg(c, true, g->name, pipa, "0x%llx-0x%llx collides with %s", ipa,
                ipa + VIRTIO_MMIO_SIZE, clash);
    } else {
        /* otherwise nothing to do */
    }
    if (irq < 32u || irq > CHANNEL_SPI_MAX) {
        cfg_msg(c, true, g->name, pirq, "interrupt %lu is not an SPI of the virtual GIC (32-%u)",
                irq, CHANNEL_SPI_MAX);
    } else if ((clash = cfg_irq_clash(sys, g, irq32, k, what, sizeof(what))) != NULL) {
        cfg_msg(c, true, g->name, pirq, "interrupt %lu is %s", irq, clash);
    } else {
        /* otherwise nothing to do */
    }
}

void cfg_room_absent(struct cfg_ctx *c, const char *kind, const char *name, const char *prop,
                     const char *room)
{
    cfg_report(c, true, kind, name, prop, "needs %s, which this image leaves out", room);
}

void cfg_prop_absent(const void *fdt, int node, const char *guest, const char *prop,
                     const char *room, struct cfg_ctx *c)
{
    int len;
    if (dt_getprop(fdt, node, prop, &len) != NULL) {
        cfg_report(c, true, "guest", guest, prop, "needs %s, which this image leaves out", room);
    }
}
