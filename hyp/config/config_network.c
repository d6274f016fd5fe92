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
        (void)memcpy(gn->mac, derived, NET_MAC_LEN);
        return true;
    }
    if (len != NET_MAC_LEN) {
        cfg_msg(c, true, g, p, "must be 6 bytes, e.g. [02 00 00 00 00 01]");
        return false;
    }
    (void)memcpy(gn->mac, mac, NET_MAC_LEN);
    static const uint8_t zero[NET_MAC_LEN];
    if ((mac[0] & 1u) != 0u) {
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

/* an optional count: frame-budget (per exit) or frame-rate (a second) */
static bool parse_count(const void *fdt, int node, const char *prop, const char *g,
                        const char *p, const char *per, uint32_t max, uint32_t *out,
                        struct cfg_ctx *c)
{
    int r = cfg_get_u32(fdt, node, prop, out);
    if (r < 0) {
        cfg_msg(c, true, g, p, "must be one 32-bit cell");
    } else if (r > 0 && (*out < 1 || *out > max)) {
        cfg_msg(c, true, g, p, "%lu frames%s: give 1 to %lu", (unsigned long)*out, per,
                (unsigned long)max);
    } else {
        return true;
    }
    return false;
}

static void parse_member(const void *fdt, int node, struct system_config *sys,
                         struct network_config *net, struct cfg_ctx *c)
{
    char p[GUEST_NAME_MAX + 16];
    int gi = cfg_member_guest(fdt, node, sys, "network", net->name, net->nmembers,
                              NETWORK_MAX_MEMBERS, c);
    if (gi < 0) {
        return;
    }
    struct guest_config *g = &sys->guest_cfg[gi];
    if (g->nnets == GUEST_MAX_NETS) {
        cfg_msg(c, true, g->name, net->name, "a member of more than %d networks",
                GUEST_MAX_NETS);
        return;
    }
    cfg_warn_unknown(fdt, node, member_props, "guest", g->name, net->name, c);
    struct guest_net *gn = &g->nets[g->nnets];
    (void)memset(gn, 0, sizeof(*gn));
    (void)memcpy(gn->name, net->name, sizeof(gn->name));
    ptrdiff_t ni = net - sys->networks;
    gn->id = (unsigned int)ni;
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
        cfg_report(c, true, "network", name, NULL, "more than %u networks", NETWORK_MAX);
        return;
    }
    struct network_config *net = &sys->networks[sys->nnetworks++];
    (void)snprintf(net->name, sizeof(net->name), "%s", name);
    cfg_warn_unknown(fdt, node, network_props, "network", net->name, NULL, c);
    int sub;
    fdt_for_each_subnode(sub, fdt, node)
        parse_member(fdt, sub, sys, net, c);
}

static void check_member(const struct system_config *sys, const struct guest_config *g,
                         unsigned int k, struct cfg_ctx *c)
{
    const struct guest_net *gn = &g->nets[k];
    char pipa[GUEST_NAME_MAX + 16], pirq[GUEST_NAME_MAX + 16];
    cfg_check_virtio_device(sys, g, gn->ipa, gn->irq, k,
                            cfg_member_prop(pipa, sizeof(pipa), gn->name, "ipa"),
                            cfg_member_prop(pirq, sizeof(pirq), gn->name, "interrupt"), c);
}

/* Two members of one network with one MAC: frames could not be switched */
static void check_macs(const struct system_config *sys, const struct network_config *net,
                       struct cfg_ctx *c)
{
    char p[GUEST_NAME_MAX + 16];
    for (unsigned int m = 0; m < net->nmembers; m++) {
        const struct guest_config *g = &sys->guest_cfg[net->members[m].guest];
        const struct guest_net *gn = &g->nets[net->members[m].slot];
        for (unsigned int o = 0; o < m && !gn->parse_error; o++) {
            const struct guest_config *og = &sys->guest_cfg[net->members[o].guest];
            const struct guest_net *on = &og->nets[net->members[o].slot];
            if (on->parse_error || memcmp(on->mac, gn->mac, NET_MAC_LEN) != 0) {
                continue;
            }
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
        if (net->nmembers < 2u) {
            cfg_report(c, true, "network", net->name, NULL,
                       "needs at least two guests (has %u)", net->nmembers);
        }
        check_macs(sys, net, c);
    }
    for (unsigned int i = 0; i < sys->nguest_cfg; i++) {
        const struct guest_config *g = &sys->guest_cfg[i];
        for (unsigned int k = 0; k < g->nnets; k++) {
            if (!g->nets[k].parse_error) {
                check_member(sys, g, k, c);
            }
        }
    }
}
