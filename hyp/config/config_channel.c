/*
 * Channels in the configuration device tree: a shared-memory region and
 * the guests that map it, each at its own IPA, read-write or read-only,
 * with a doorbell interrupt of its own (docs/channels.md).
 *
 *     chan0 {
 *         compatible = "partita,channel";
 *         memory = <0x5f000000 0x10000>;          physical base, size
 *         linux { ipa = <0x70000000>; doorbell = <64>; };
 *         rt    { ipa = <0x70000000>; doorbell = <64>; access = "ro"; };
 *     };
 *
 * Parsed after every guest (members are named after guests) and checked
 * as a whole like the rest of the configuration: one line per problem,
 * naming the channel or the member guest and the property.
 */
#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include "arch/layout.h"
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

static const char *const channel_props[] = { "compatible", "memory", NULL };
static const char *const member_props[] = { "ipa", "doorbell", "access", NULL };

bool config_is_channel(const void *fdt, int node)
{
    return fdt_node_check_compatible(fdt, node, "partita,channel") == 0;
}

static const char *mprop(char *buf, size_t n, const struct channel_config *ch, const char *p)
{
    return cfg_member_prop(buf, n, ch->name, p);
}

static void parse_member(const void *fdt, int node, struct system_config *sys,
                         struct channel_config *ch, struct cfg_ctx *c)
{
    char p[GUEST_NAME_MAX + 16];
    int gi = cfg_member_guest(fdt, node, sys, "channel", ch->name, ch->nmembers,
                              CHANNEL_MAX_MEMBERS, c);
    if (gi < 0) {
        return;
    }
    struct guest_config *g = &sys->guest_cfg[gi];
    if (g->nchannels == GUEST_MAX_CHANNELS) {
        cfg_msg(c, true, g->name, ch->name, "a member of more than %u channels",
                GUEST_MAX_CHANNELS);
        return;
    }
    cfg_warn_unknown(fdt, node, member_props, "guest", g->name, ch->name, c);
    struct guest_channel *gc = &g->channels[g->nchannels];
    (void)memset(gc, 0, sizeof(*gc));
    (void)memcpy(gc->name, ch->name, sizeof(gc->name));      /* both NUL-terminated names */
    ptrdiff_t ci = ch - sys->channels;
    gc->id = (unsigned int)ci;
    gc->member = ch->nmembers;
    gc->base = ch->base;
    gc->size = (uint32_t)ch->size;

    bool bad, ok = true;
    int r = cfg_get_u32(fdt, node, "ipa", &gc->ipa);
    if (r <= 0) {
        cfg_msg(c, true, g->name, mprop(p, sizeof(p), ch, "ipa"),
                r < 0 ? "must be one 32-bit cell" : "missing: where the guest sees the memory");
        ok = false;
    }
    r = cfg_get_u32(fdt, node, "doorbell", &gc->doorbell);
    if (r <= 0) {
        cfg_msg(c, true, g->name, mprop(p, sizeof(p), ch, "doorbell"),
                r < 0 ? "must be one 32-bit cell" : "missing: the SPI (INTID) raised in the guest");
        ok = false;
    }
    const char *acc = cfg_get_string(fdt, node, "access", &bad);
    if (bad) {
        cfg_msg(c, true, g->name, mprop(p, sizeof(p), ch, "access"), "not a string");
        ok = false;
    } else if (acc && strcmp(acc, "ro") == 0) {
        gc->read_only = true;
    } else if (acc && strcmp(acc, "rw") != 0) {
        cfg_msg(c, true, g->name, mprop(p, sizeof(p), ch, "access"),
                "\"%s\": use \"rw\" or \"ro\"", acc);
        ok = false;
    } else {
        /* otherwise nothing to do */
    }
    /* a member with a bad property still counts (no second error for the
     * channel), but its checks are skipped: the first error says it all */
    gc->parse_error = !ok;
    ch->members[ch->nmembers++] = (struct channel_member){ (unsigned int)gi, g->nchannels };
    g->nchannels++;
}

void config_parse_channel(const void *fdt, int node, struct system_config *sys,
                          struct cfg_ctx *c)
{
    const char *name = fdt_get_name(fdt, node, NULL);
    if (sys->nchannels == CHANNEL_MAX) {
        cfg_report(c, true, "channel", name, NULL, "more than %u channels", CHANNEL_MAX);
        return;
    }
    struct channel_config *ch = &sys->channels[sys->nchannels++];
    (void)snprintf(ch->name, sizeof(ch->name), "%s", name);
    cfg_warn_unknown(fdt, node, channel_props, "channel", ch->name, NULL, c);

    int len;
    const fdt32_t *mem = dt_getprop(fdt, node, "memory", &len);
    if (!mem || (len != 8 && len != 16)) {
        cfg_report(c, true, "channel", ch->name, "memory", "missing: give <base size> (physical)");
        ch->parse_error = true;
    } else if (len == 8) {
        ch->base = fdt32_ld(&mem[0]);
        ch->size = fdt32_ld(&mem[1]);
    } else {
        ch->base = ((uint64_t)fdt32_ld(&mem[0]) << 32) | fdt32_ld(&mem[1]);
        ch->size = ((uint64_t)fdt32_ld(&mem[2]) << 32) | fdt32_ld(&mem[3]);
    }
    /* a guest maps the memory and its doorbell page inside 4 GiB */
    if (ch->size > 0x80000000ULL) {
        cfg_report(c, true, "channel", ch->name, "memory", "more than 2 GiB");
        ch->size = 0;
        ch->parse_error = true;
    }
    int sub;
    fdt_for_each_subnode(sub, fdt, node)
        parse_member(fdt, sub, sys, ch, c);
}

static void check_channel_memory(const struct config_host *h, const struct system_config *sys,
                                 unsigned int ci, struct cfg_ctx *c)
{
    const struct channel_config *ch = &sys->channels[ci];
    unsigned long long b = ch->base, e = ch->base + ch->size;
    if (ch->nmembers < 2u) {
        cfg_report(c, true, "channel", ch->name, NULL,
                   "needs at least two guests (has %u)", ch->nmembers);
    }
    if (ch->parse_error) {
        return;
    }
    if (!ch->size) {
        cfg_report(c, true, "channel", ch->name, "memory", "size is 0");
        return;
    }
    if (((ch->base | ch->size) & 0xfffu) != 0u) {
        cfg_report(c, true, "channel", ch->name, "memory", "base and size must be 4 KiB aligned");
        return;
    }
    if (h->plat && !cfg_in_ram(h->plat, ch->base, ch->size)) {
        cfg_report(c, true, "channel", ch->name, "memory", "0x%llx-0x%llx is outside host RAM",
                   b, e);
    /* Partita clears it at boot through its identity map */
    } else if (!cfg_inside(ch->base, ch->size, 0, HYP_VA_RAM_END)) {
        cfg_report(c, true, "channel", ch->name, "memory",
                   "0x%llx-0x%llx is beyond the hypervisor's reach (RAM below 0x%x)", b, e,
                   HYP_VA_RAM_END);
    } else {
        /* otherwise nothing to do */
    }
    if (cfg_overlaps(ch->base, ch->size, h->hyp_start, h->hyp_end - h->hyp_start)) {
        cfg_report(c, true, "channel", ch->name, "memory",
                   "overlaps the hypervisor (0x%llx-0x%llx)",
                   (unsigned long long)h->hyp_start, (unsigned long long)h->hyp_end);
    }
    for (unsigned int i = 0; i < sys->nguest_cfg; i++) {
        const struct guest_config *g = &sys->guest_cfg[i];
        if (g->mem_size && cfg_overlaps(ch->base, ch->size, g->mem_base, g->mem_span)) {
            cfg_report(c, true, "channel", ch->name, "memory",
                       "overlaps the memory of guest '%s'", g->name);
        }
    }
    for (unsigned int j = 0; j < ci; j++) {
        const struct channel_config *o = &sys->channels[j];
        if (o->size && cfg_overlaps(ch->base, ch->size, o->base, o->size)) {
            cfg_report(c, true, "channel", ch->name, "memory",
                       "overlaps the memory of channel '%s'", o->name);
        }
    }
}

/* The guest's window for channel k: the memory and the doorbell page */
static uint64_t window_size(const struct guest_channel *gc)
{
    return (uint64_t)gc->size + CHANNEL_DOORBELL_SIZE;
}

static void check_member(const struct system_config *sys, const struct guest_config *g,
                         unsigned int k, struct cfg_ctx *c)
{
    const struct guest_channel *gc = &g->channels[k];
    const struct channel_config *ch = &sys->channels[gc->id];
    char p[GUEST_NAME_MAX + 16];
    const char *what;
    uint64_t ws = window_size(gc);
    unsigned long long ipa = gc->ipa;

    (void)mprop(p, sizeof(p), ch, "ipa");
    if ((gc->ipa & 0xfffu) != 0u) {
        cfg_msg(c, true, g->name, p, "0x%llx is not 4 KiB aligned", ipa);
    } else if (!gc->size) {
        /* the channel's memory is wrong: said once, for the channel */
    } else if (gc->ipa + ws > (1ULL << 32)) {
        cfg_msg(c, true, g->name, p, "0x%llx + 0x%llx (memory and doorbell page) passes the "
                "4 GiB IPA space", ipa, (unsigned long long)ws);
    } else if ((what = cfg_vboard_device(g, gc->ipa, ws))) {
        cfg_msg(c, true, g->name, p, "0x%llx-0x%llx collides with the guest's own %s", ipa,
                ipa + ws, what);
    } else {
        for (unsigned int i = 0; i < g->npt_regs; i++) {
            if (cfg_overlaps(gc->ipa, ws, g->pt_regs[i].base, g->pt_regs[i].size)) {
                cfg_msg(c, true, g->name, p, "0x%llx-0x%llx collides with its passthrough "
                        "range 0x%llx", ipa, ipa + ws,
                        (unsigned long long)g->pt_regs[i].base);
            }
        }
        for (unsigned int j = 0; j < k; j++) {
            if (g->channels[j].size && !g->channels[j].parse_error &&
                cfg_overlaps(gc->ipa, ws, g->channels[j].ipa, window_size(&g->channels[j]))) {
                cfg_msg(c, true, g->name, p, "0x%llx-0x%llx collides with channel '%s'", ipa,
                        ipa + ws, sys->channels[g->channels[j].id].name);
            }
        }
    }

    (void)mprop(p, sizeof(p), ch, "doorbell");
    unsigned long irq = gc->doorbell;
    if ((irq < 32u) || (irq > CHANNEL_SPI_MAX)) {
        cfg_msg(c, true, g->name, p, "interrupt %lu is not an SPI of the virtual GIC (32-%u)",
                irq, CHANNEL_SPI_MAX);
    } else if (irq == VBOARD_UART_IRQ) {
        cfg_msg(c, true, g->name, p, "interrupt %lu is the guest's own emulated UART", irq);
    } else {
        /* otherwise nothing to do */
    }
    for (unsigned int i = 0; i < g->npt_irqs; i++) {
        if (g->pt_irqs[i] == irq) {
            cfg_msg(c, true, g->name, p, "interrupt %lu is passed through to the guest", irq);
        }
    }
    for (unsigned int j = 0; j < k; j++) {
        if (g->channels[j].doorbell == irq) {
            cfg_msg(c, true, g->name, p, "interrupt %lu is already the doorbell of channel '%s'",
                    irq, sys->channels[g->channels[j].id].name);
        }
    }
}

void config_check_channels(const struct config_host *h, struct system_config *sys,
                           struct cfg_ctx *c)
{
    for (unsigned int i = 0; i < sys->nchannels; i++) {
        check_channel_memory(h, sys, i, c);
    }
    for (unsigned int i = 0; i < sys->nguest_cfg; i++) {
        for (unsigned int k = 0; k < sys->guest_cfg[i].nchannels; k++) {
            if (!sys->guest_cfg[i].channels[k].parse_error) {
                check_member(sys, &sys->guest_cfg[i], k, c);
            }
        }
    }
}
