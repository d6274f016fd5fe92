/*
 * The configuration's cache colours (colour.h): a guest's "colors", the
 * physical span its coloured RAM takes, /partita's llc-way-size for a CPU
 * whose cache geometry reads wrong, /partita's own "colors" (the
 * hypervisor's: mm/hyp_colour.h), and the rule that two coloured guests,
 * or a coloured guest and the hypervisor, share no colour - colouring is
 * asked for to keep them apart.
 */
#include <libfdt.h>
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

unsigned int config_ncolours(const void *fdt, int root, unsigned int hw, struct cfg_ctx *c)
{
    uint32_t way;
    int got = cfg_get_u32(fdt, root, "llc-way-size", &way);
    if (got == 0) {
        return hw;
    }
    if (got < 0 || way < COLOUR_PAGE || (way & (way - 1u)) ||
        ((way / COLOUR_PAGE) > COLOUR_MAX)) {
        cfg_msg(c, true, "-", "llc-way-size", "give the bytes of one way of the last-level "
                "cache: a power of two from 4 KiB to %u KiB", COLOUR_MAX * COLOUR_PAGE / 1024u);
        return hw;
    }
    return colour_count(way);
}

void config_parse_colours(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    int len;
    const void *prop = dt_getprop(fdt, node, "colors", &len);
    g->mem_span = g->mem_size;
    if (!prop) {
        return;
    }
    char err[96];
    struct colour_list l;
    if (colour_parse(prop, len, c->ncolours, &l, err, sizeof(err)) != 0) {
        cfg_msg(c, true, g->name, "colors", "%s", err);
        return;
    }
    uint64_t period = (uint64_t)l.n * COLOUR_PAGE;
    if (g->identity) {
        cfg_msg(c, true, g->name, "colors", "a coloured guest's RAM is not contiguous: it "
                "cannot be identity-mapped");
        return;
    }
    if ((g->mem_base % period) != 0u) {
        cfg_msg(c, true, g->name, "colors", "memory base 0x%llx is not aligned to the colour "
                "period (%u colours: 0x%llx)", (unsigned long long)g->mem_base, l.n,
                (unsigned long long)period);
        return;
    }
    g->colours = l;
    g->mem_span = colour_span(&l, g->mem_size);
}

void config_parse_hyp_colours(const void *fdt, int root, struct system_config *sys,
                             struct cfg_ctx *c)
{
    int len;
    const void *prop = dt_getprop(fdt, root, "colors", &len);
    char err[96];
    if (!prop) {
        return;
    }
    if (!c->ncolours) {
        cfg_report(c, true, "node", "/partita", "colors", "this cache has no colours (give "
                   "llc-way-size if it reads wrong)");
    } else if (colour_parse(prop, len, c->ncolours, &sys->hyp_colours, err, sizeof(err)) != 0) {
        cfg_report(c, true, "node", "/partita", "colors", "%s", err);
    } else {
        /* otherwise nothing to do */
    }
}

void config_peek_hyp_colours(const void *blob, unsigned int hw, unsigned int *k,
                             unsigned int *n)
{
    struct cfg_ctx c = { 0 };       /* silent: config_load reports what is wrong */
    struct colour_list l;
    int root = fdt_check_header(blob) == 0 ? fdt_path_offset(blob, "/partita") : -1;
    int len;
    const void *prop = root >= 0 ? dt_getprop(blob, root, "colors", &len) : NULL;
    char err[96];
    *k = *n = 0u;
    if (!prop) {
        return;
    }
    c.ncolours = config_ncolours(blob, root, hw, &c);
    if (c.ncolours && !c.errors &&
        colour_parse(prop, len, c.ncolours, &l, err, sizeof(err)) == 0) {
        *k = l.k;
        *n = l.n;
    }
}

bool config_colours_apart(const struct guest_config *a, const struct guest_config *b)
{
    if (!a->colours.n || !b->colours.n) {
        return false;
    }
    for (unsigned int i = 0u; i < a->colours.k; i++) {
        if (colour_has(&b->colours, a->colours.colour[i])) {
            return false;
        }
    }
    return true;
}

void config_check_colours(struct system_config *sys, unsigned int gi, struct cfg_ctx *c)
{
    const struct guest_config *g = &sys->guest_cfg[gi];
    /* the virtio devices (hyp/vdev/virtq.c) read a member's RAM as one
     * block through the identity map: not a coloured guest's, yet */
    if (g->colours.n && (g->nnets || g->vcon)) {
        cfg_msg(c, true, g->name, "colors", "a coloured guest cannot have a %s yet (its rings "
                "are read as one block of memory)",
                g->nnets ? "network device" : "virtio console");
    }
    for (unsigned int i = 0u; g->colours.n && sys->hyp_colours.n && i < g->colours.k; i++) {
        if (colour_has(&sys->hyp_colours, g->colours.colour[i])) {
            cfg_msg(c, true, g->name, "colors", "colour %u is also the hypervisor's (/partita "
                    "colors): coloured guests share no colour", g->colours.colour[i]);
            break;
        }
    }
    for (unsigned int j = 0u; g->colours.n && j < gi; j++) {
        const struct guest_config *o = &sys->guest_cfg[j];
        for (unsigned int i = 0u; o->colours.n && i < g->colours.k; i++) {
            if (colour_has(&o->colours, g->colours.colour[i])) {
                cfg_msg(c, true, g->name, "colors", "colour %u is also guest '%s''s: coloured "
                        "guests share no colour", g->colours.colour[i], o->name);
                break;
            }
        }
    }
}
