/*
 * Networks in the configuration device tree: every member guest gets a
 * virtio-mmio network device, and Partita switches frames between them
 * (docs/networks.md).
 *
 *     lan {
 *         compatible = "partita,network";
 *         linux { ipa = <0x0a000000>; interrupt = <48>; mac = [02 00 00 00 00 01]; };
 *         echo  { ipa = <0x0a000000>; interrupt = <48>; frame-budget = <16>; };
 *     };
 *
 * Parsed after every guest and checked after the channels, one line per
 * problem naming the network or the member guest and "NETWORK/PROP".
 */
#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

static const char *const network_props[] = { "compatible", NULL };
static const char *const member_props[] = { "ipa", "interrupt", "mac", "frame-budget",
                                             "frame-rate", NULL };

bool config_is_network(const void *fdt, int node)
{
    return fdt_node_check_compatible(fdt, node, "partita,network") == 0;
}

static bool parse_mac(const void *fdt, int node, const char *g, const char *p,
                      struct guest_net *gn, struct cfg_ctx *c)
{
    int len;
    const uint8_t *mac = dt_getprop(fdt, node, "mac", &len);
    if (!mac) {     /* derived: locally administered, unique per network and member */
        const uint8_t derived[NET_MAC_LEN] = { NET_MAC_DERIVED_OUI, (uint8_t)gn->id,
                                               (uint8_t)gn->member };
        memcpy(gn->mac, derived, NET_MAC_LEN);
        return true;
    }
    if (len != NET_MAC_LEN) {
        cfg_msg(c, true, g, p, "must be 6 bytes, e.g. [02 00 00 00 00 01]");
        return false;
    }
    memcpy(gn->mac, mac, NET_MAC_LEN);
    static const uint8_t zero[NET_MAC_LEN];
    if (mac[0] & 1) {
        cfg_msg(c, true, g, p, "%02x:%02x:%02x:%02x:%02x:%02x is a multicast address",
                mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
        return false;
    }
    if (memcmp(mac, zero, NET_MAC_LEN) == 0) {
        cfg_msg(c, true, g, p, "00:00:00:00:00:00 is no address");
        return false;
    }
    return true;
}

bool cfg_parse_cell(const void *fdt, int node, const char *prop, const char *g,
                       const char *p, const char *missing, uint32_t *out, struct cfg_ctx *c)
{
    int r = cfg_get_u32(fdt, node, prop, out);
    if (r <= 0)
        cfg_msg(c, true, g, p, r < 0 ? "must be one 32-bit cell" : "missing: %s", missing);
    return r > 0;
}

/* an optional count: frame-budget (per exit) or frame-rate (a second) */
static bool parse_count(const void *fdt, int node, const char *prop, const char *g,
                        const char *p, const char *per, uint32_t max, uint32_t *out,
                        struct cfg_ctx *c)
{
    int r = cfg_get_u32(fdt, node, prop, out);
    if (r < 0)
        cfg_msg(c, true, g, p, "must be one 32-bit cell");
    else if (r > 0 && (*out < 1 || *out > max))
        cfg_msg(c, true, g, p, "%lu frames%s: give 1 to %lu", (unsigned long)*out, per,
                (unsigned long)max);
    else
        return true;
    return false;
}

static void parse_member(const void *fdt, int node, struct system_config *sys,
                         struct network_config *net, struct cfg_ctx *c)
{
    char p[GUEST_NAME_MAX + 16];
    int gi = cfg_member_guest(fdt, node, sys, "network", net->name, net->nmembers,
                              NETWORK_MAX_MEMBERS, c);
    if (gi < 0)
        return;
    struct guest_config *g = &sys->guests[gi];
    if (g->nnets == GUEST_MAX_NETS) {
        cfg_msg(c, true, g->name, net->name, "a member of more than %d networks",
                GUEST_MAX_NETS);
        return;
    }
    cfg_warn_unknown(fdt, node, member_props, "guest", g->name, net->name, c);
    struct guest_net *gn = &g->nets[g->nnets];
    memset(gn, 0, sizeof(*gn));
    memcpy(gn->name, net->name, sizeof(gn->name));
    gn->id = (unsigned int)(net - sys->networks);
    gn->member = net->nmembers;
    gn->budget = NET_BUDGET_DEFAULT;

    bool ok = cfg_parse_cell(fdt, node, "ipa", g->name,
                             cfg_member_prop(p, sizeof(p), net->name, "ipa"),
                             "where the guest sees the device", &gn->ipa, c);
    ok &= cfg_parse_cell(fdt, node, "interrupt", g->name,
                         cfg_member_prop(p, sizeof(p), net->name, "interrupt"),
                         "the SPI (INTID) the device raises", &gn->irq, c);
    ok &= parse_mac(fdt, node, g->name, cfg_member_prop(p, sizeof(p), net->name, "mac"), gn, c);
    ok &= parse_count(fdt, node, "frame-budget", g->name,
                      cfg_member_prop(p, sizeof(p), net->name, "frame-budget"), "", NET_BUDGET_MAX,
                      &gn->budget, c);
    ok &= parse_count(fdt, node, "frame-rate", g->name,
                      cfg_member_prop(p, sizeof(p), net->name, "frame-rate"), " a second",
                      NET_RATE_MAX, &gn->rate, c);
    gn->parse_error = !ok;
    net->members[net->nmembers++] = (struct channel_member){ (unsigned int)gi, g->nnets };
    g->nnets++;
}

void config_parse_network(const void *fdt, int node, struct system_config *sys,
                          struct cfg_ctx *c)
{
    const char *name = fdt_get_name(fdt, node, NULL);
    if (sys->nnetworks == NETWORK_MAX) {
        cfg_report(c, true, "network", name, NULL, "more than %d networks", NETWORK_MAX);
        return;
    }
    struct network_config *net = &sys->networks[sys->nnetworks++];
    snprintf(net->name, sizeof(net->name), "%s", name);
    cfg_warn_unknown(fdt, node, network_props, "network", net->name, NULL, c);
    int sub;
    fdt_for_each_subnode(sub, fdt, node)
        parse_member(fdt, sub, sys, net, c);
}

/* What of the guest's own the device window at ipa hits (its network
 * devices before k only), or NULL */
static const char *window_clash(const struct system_config *sys, const struct guest_config *g,
                                uint32_t ipa, unsigned int k, char *what, size_t n)
{
    const char *dev = cfg_vboard_device(g, ipa, VIRTIO_MMIO_SIZE);
    if (dev) {
        snprintf(what, n, "the guest's own %s", dev);
        return what;
    }
    /* Stage-2 maps passthrough and channel memory in whole pages */
    uint64_t page = ipa & ~0xfffull;
    for (unsigned int i = 0; i < g->npt_regs; i++)
        if (cfg_overlaps(page, 0x1000, g->pt_regs[i].base, g->pt_regs[i].size)) {
            snprintf(what, n, "its passthrough range 0x%llx",
                     (unsigned long long)g->pt_regs[i].base);
            return what;
        }
    for (unsigned int j = 0; j < g->nchannels; j++) {
        const struct guest_channel *gc = &g->channels[j];
        if (cfg_overlaps(ipa, VIRTIO_MMIO_SIZE, gc->ipa,
                         (uint64_t)gc->size + CHANNEL_DOORBELL_SIZE)) {
            snprintf(what, n, "channel '%s'", gc->name);
            return what;
        }
    }
    for (unsigned int j = 0; j < k; j++)
        if (!g->nets[j].parse_error &&
            cfg_overlaps(ipa, VIRTIO_MMIO_SIZE, g->nets[j].ipa, VIRTIO_MMIO_SIZE)) {
            snprintf(what, n, "the device of network '%s'", sys->networks[g->nets[j].id].name);
            return what;
        }
    return NULL;
}

/* What of the guest's interrupts irq already is (its network devices'
 * before k only), or NULL */
const char *cfg_irq_clash(const struct system_config *sys, const struct guest_config *g,
                             uint32_t irq, unsigned int k, char *what, size_t n)
{
    if (irq == VBOARD_UART_IRQ)
        return "the guest's own emulated UART";
    for (unsigned int i = 0; i < g->npt_irqs; i++)
        if (g->pt_irqs[i] == irq)
            return "passed through to the guest";
    for (unsigned int j = 0; j < g->nchannels; j++)
        if (g->channels[j].doorbell == irq) {
            snprintf(what, n, "the doorbell of channel '%s'", g->channels[j].name);
            return what;
        }
    for (unsigned int j = 0; j < k; j++)
        if (!g->nets[j].parse_error && g->nets[j].irq == irq) {
            snprintf(what, n, "the interrupt of network '%s'", sys->networks[g->nets[j].id].name);
            return what;
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
    if (ipa32 & (VIRTIO_MMIO_SIZE - 1))
        cfg_msg(c, true, g->name, pipa, "0x%llx is not 0x%x aligned", ipa, VIRTIO_MMIO_SIZE);
    else if ((clash = window_clash(sys, g, ipa32, k, what, sizeof(what))))
        cfg_msg(c, true, g->name, pipa, "0x%llx-0x%llx collides with %s", ipa,
                ipa + VIRTIO_MMIO_SIZE, clash);
    if (irq < 32 || irq > CHANNEL_SPI_MAX)
        cfg_msg(c, true, g->name, pirq, "interrupt %lu is not an SPI of the virtual GIC (32-%u)",
                irq, CHANNEL_SPI_MAX);
    else if ((clash = cfg_irq_clash(sys, g, irq32, k, what, sizeof(what))))
        cfg_msg(c, true, g->name, pirq, "interrupt %lu is %s", irq, clash);
}

static void check_member(const struct system_config *sys, const struct guest_config *g,
                         unsigned int k, struct cfg_ctx *c)
{
    const struct guest_net *gn = &g->nets[k];
    char pipa[GUEST_NAME_MAX + 16], pirq[GUEST_NAME_MAX + 16];
    cfg_check_virtio_device(sys, g, gn->ipa, gn->irq, k, cfg_member_prop(pipa, sizeof(pipa), gn->name, "ipa"),
                 cfg_member_prop(pirq, sizeof(pirq), gn->name, "interrupt"), c);
}

/* Two members of one network with one MAC: frames could not be switched */
static void check_macs(const struct system_config *sys, const struct network_config *net,
                       struct cfg_ctx *c)
{
    char p[GUEST_NAME_MAX + 16];
    for (unsigned int m = 0; m < net->nmembers; m++) {
        const struct guest_config *g = &sys->guests[net->members[m].guest];
        const struct guest_net *gn = &g->nets[net->members[m].slot];
        for (unsigned int o = 0; o < m && !gn->parse_error; o++) {
            const struct guest_config *og = &sys->guests[net->members[o].guest];
            const struct guest_net *on = &og->nets[net->members[o].slot];
            if (on->parse_error || memcmp(on->mac, gn->mac, NET_MAC_LEN) != 0)
                continue;
            const uint8_t *a = gn->mac;
            cfg_msg(c, true, g->name, cfg_member_prop(p, sizeof(p), net->name, "mac"),
                    "%02x:%02x:%02x:%02x:%02x:%02x is already the address of guest '%s'",
                    a[0], a[1], a[2], a[3], a[4], a[5], og->name);
            break;
        }
    }
}

void config_check_networks(struct system_config *sys, struct cfg_ctx *c)
{
    for (unsigned int i = 0; i < sys->nnetworks; i++) {
        const struct network_config *net = &sys->networks[i];
        if (net->nmembers < 2)
            cfg_report(c, true, "network", net->name, NULL,
                       "needs at least two guests (has %u)", net->nmembers);
        check_macs(sys, net, c);
    }
    for (unsigned int i = 0; i < sys->nguests; i++) {
        const struct guest_config *g = &sys->guests[i];
        for (unsigned int k = 0; k < g->nnets; k++)
            if (!g->nets[k].parse_error)
                check_member(sys, g, k, c);
        /* the virtio console: beside every network device of the guest */
        if (g->vcon)
            cfg_check_virtio_device(sys, g, g->vcon_ipa, g->vcon_irq, g->nnets, "virtio-console",
                         "virtio-console", c);
    }
}
