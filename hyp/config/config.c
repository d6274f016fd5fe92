/*
 * The configuration device tree (docs/configuration.md): parsed with libfdt and
 * checked as a whole before any guest starts.  Each problem is one line
 * naming the guest and the property.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include "arch/layout.h"
#include "guest_config.h"
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

void cfg_report(struct cfg_ctx *c, bool err, const char *kind, const char *name,
                const char *prop, const char *fmt, ...)
{
    char what[160], line[256];
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (prop != NULL) {
        (void)snprintf(line, sizeof(line), "%s '%s': property '%s': %s", kind, name, prop, what);
    } else {
        (void)snprintf(line, sizeof(line), "%s '%s': %s", kind, name, what);
    }
    /* names and values come from the blob: no line breaks or escapes */
    char *p = line;
    while (*p != '\0') {
        if (((unsigned char)*p < 0x20u) || (*p == '\x7f')) {
            *p = '?';
        }
        p++;
    }
    if (err) {
        c->errors++;
    }
    if (c->report != NULL) {
        c->report(c->ctx, err, line);
    }
}

int cfg_get_u32(const void *fdt, int node, const char *prop, uint32_t *out)
{
    int len;
    const fdt32_t *v = dt_getprop(fdt, node, prop, &len);
    if (!v) {
        return 0;
    }
    if (len != 4) {
        return -1;
    }
    *out = fdt32_ld(v);
    return 1;
}

const char *cfg_get_string(const void *fdt, int node, const char *prop, bool *bad)
{
    int len;
    const char *s = dt_getprop(fdt, node, prop, &len);
    *bad = s && (len < 1 || strnlen(s, (size_t)len) == (size_t)len);
    return *bad ? NULL : s;
}

bool cfg_overlaps(uint64_t a, uint64_t as, uint64_t b, uint64_t bs)
{
    return a < b + bs && b < a + as;
}

bool cfg_inside(uint64_t base, uint64_t size, uint64_t rb, uint64_t rs)
{
    return base >= rb && size <= rs && base - rb <= rs - size;
}

bool cfg_in_ram(const struct platform *p, uint64_t base, uint64_t size)
{
    for (unsigned int i = 0u; i < p->nmem; i++) {
        if (cfg_inside(base, size, p->mem[i].base, p->mem[i].size)) {
            return true;
        }
    }
    return false;
}

static bool overlaps_ram(const struct platform *p, uint64_t base, uint64_t size)
{
    for (unsigned int i = 0u; i < p->nmem; i++) {
        if (cfg_overlaps(base, size, p->mem[i].base, p->mem[i].size)) {
            return true;
        }
    }
    return false;
}

#define PT_MAX_SIZE ((unsigned int)64u << 20) /* one passthrough range at most */
static uint32_t pt_pages[PT_MAX_SIZE / 0x1000u / 32u];

/*
 * Is every page of [base, base+size) a host device's?  Stage-2 maps whole
 * pages, so a page holding small devices (QEMU's 0x200-byte virtio-mmio
 * transports, eight to a page) counts when a device lies in it.  One walk
 * over the tree marks the pages devices touch (the fuzzer found that a
 * walk per page of a huge range never ends).
 */
static bool is_host_device(const void *fdt, uint64_t base, uint64_t size)
{
    uint64_t npages = size / 0x1000u;
    if (size > PT_MAX_SIZE) {
        return false;
    }
    (void)memset(pt_pages, 0, sizeof(pt_pages));
    int node;
    for (node = fdt_next_node(fdt, -1, NULL); node >= 0; node = fdt_next_node(fdt, node, NULL)) {
        const char *dt = fdt_getprop(fdt, node, "device_type", NULL);
        if (dt && strcmp(dt, "memory") == 0) {
            continue;
        }
        struct plat_range r;
        for (int i = 0; dt_node_reg(fdt, node, i, &r) == 0; i++) {
            if (!r.size || !cfg_overlaps(base, size, r.base, r.size)) {
                continue;
            }
            uint64_t first = r.base > base ? (r.base - base) / 0x1000u : 0u;
            uint64_t end = r.base + r.size < r.base || r.base + r.size >= base + size
                               ? npages : (r.base + r.size - base + 0xfffu) / 0x1000u;
            for (uint64_t p = first; p < end; p++) {
                pt_pages[p / 32u] |= 1u << (p % 32u);
            }
        }
    }
    for (uint64_t p = 0u; p < npages; p++) {
        if (!(pt_pages[p / 32u] & (1u << (p % 32u)))) {
            return false;
        }
    }
    return true;
}

static void check_memory(const struct config_host *h, struct system_config *sys,
                         unsigned int gi, struct cfg_ctx *c)
{
    struct guest_config *g = &sys->guest_cfg[gi];
    if (!g->mem_size) {
        return;
    }
    if (((g->mem_base | g->mem_size) & 0xfffu) != 0u) {
        cfg_msg(c, true, g->name, "memory", "base and size must be 4 KiB aligned");
        return;
    }
    if (g->mem_size < GUEST_DTB_ROOM) {
        cfg_msg(c, true, g->name, "memory", "less than the 64 KiB the guest's device tree needs");
    }
    /* physically: its span, which a coloured guest's pages are spread over */
    uint64_t span = g->mem_span;
    if (h->plat && !cfg_in_ram(h->plat, g->mem_base, span)) {
        cfg_msg(c, true, g->name, "memory", "0x%llx-0x%llx is outside host RAM%s",
                (unsigned long long)g->mem_base, (unsigned long long)(g->mem_base + span),
                g->colours.n ? " (the pages of its colors)" : "");
    /* the hypervisor loads and scrubs guest RAM through its identity map */
    } else if (!cfg_inside(g->mem_base, span, 0, HYP_VA_RAM_END)) {
        cfg_msg(c, true, g->name, "memory", "0x%llx-0x%llx is beyond the hypervisor's reach "
                "(RAM below 0x%x)", (unsigned long long)g->mem_base,
                (unsigned long long)(g->mem_base + span), HYP_VA_RAM_END);
    } else {
        /* otherwise nothing to do */
    }
    if (cfg_overlaps(g->mem_base, span, h->hyp_start, h->hyp_end - h->hyp_start)) {
        cfg_msg(c, true, g->name, "memory", "overlaps the hypervisor (0x%llx-0x%llx)",
                (unsigned long long)h->hyp_start, (unsigned long long)h->hyp_end);
    }
    /* firmware memory (U-Boot's PSCI code, OP-TEE, a frame buffer) is not a guest's */
    for (unsigned int r = 0u; h->plat && r < h->plat->nrsv; r++) {
        const struct plat_range *rv = &h->plat->rsv[r];
        if (cfg_overlaps(g->mem_base, span, rv->base, rv->size)) {
            cfg_msg(c, true, g->name, "memory", "overlaps reserved memory 0x%llx-0x%llx "
                    "(/memreserve/ or /reserved-memory in the host DT)",
                    (unsigned long long)rv->base, (unsigned long long)(rv->base + rv->size));
        }
    }
    if (!g->identity && g->mem_size > 0x80000000ULL) {
        cfg_msg(c, true, g->name, "memory", "more than 2 GiB does not fit the IPA space");
    }
    for (unsigned int j = 0u; j < gi; j++) {
        const struct guest_config *o = &sys->guest_cfg[j];
        if (o->mem_size && cfg_overlaps(g->mem_base, span, o->mem_base, o->mem_span) &&
            !config_colours_apart(g, o)) {
            cfg_msg(c, true, g->name, "memory", "overlaps the memory of guest '%s'", o->name);
            }
    }
}

/*
 * A physical CPU belongs to one vCPU unless every guest on it says it may
 * share (time-slice-us): sharing is never implied by a typo in "cpus".
 */
static void check_cpus(const struct config_host *h, struct system_config *sys,
                       unsigned int gi, struct cfg_ctx *c)
{
    struct guest_config *g = &sys->guest_cfg[gi];
    for (unsigned int i = 0u; i < g->ncpus; i++) {
        unsigned int cpu = g->cpus[i];
        if (h->plat && cpu >= h->plat->ncpus) {
            cfg_msg(c, true, g->name, "cpus", "CPU %u does not exist (the host has %u)", cpu,
                    h->plat->ncpus);
        }
        for (unsigned int k = 0u; k < i; k++) {
            if (g->cpus[k] == cpu && !g->slice_us) {
                cfg_msg(c, true, g->name, "cpus", "CPU %u given twice (two vCPUs share it "
                        "only with time-slice-us)", cpu);
            }
        }
        for (unsigned int j = 0u; j < gi; j++) {
            const struct guest_config *o = &sys->guest_cfg[j];
            for (unsigned int k = 0u; k < o->ncpus; k++) {
                /* a CPU under the cyclic schedules runs the guests of its windows */
                if ((o->cpus[k] != cpu) || (g->slice_us && o->slice_us) ||
                    config_cpu_scheduled(sys, cpu)) {
                    continue;
                }
                if (!g->slice_us) {
                    cfg_msg(c, true, g->name, "cpus", "CPU %u is already given to guest "
                            "'%s' (to share it, give both guests time-slice-us)", cpu, o->name);
                } else {
                    cfg_msg(c, true, g->name, "cpus", "CPU %u is already given to guest "
                            "'%s', which has it alone (no time-slice-us)", cpu, o->name);
                }
                break;
            }
        }
    }
}

static bool irq_reserved(const struct platform *p, uint32_t irq)
{
    if (irq < 32u) {
        return true;    /* SGIs and PPIs are per CPU: never passed through */
    }
    return p && (irq == p->gic.maint_irq || irq == p->uart.irq ||
                 (p->debug_uart.kind != UART_NONE && irq == p->debug_uart.irq));
}

/* What of the hypervisor's own devices [base, base+size) overlaps, or NULL */
static const char *hyp_device(const struct platform *p, uint64_t base, uint64_t size)
{
    const struct plat_range *const gic[4] = { [0] = &p->gic.gicd, [1] = &p->gic.gicc,
                                              [2] = &p->gic.gich, [3] = &p->gic.gicv };
    for (unsigned int i = 0u; i < 4u; i++) {
        if (gic[i]->size && cfg_overlaps(base, size, gic[i]->base, gic[i]->size)) {
            return "GIC";
        }
    }
    if (p->uart.reg.size && cfg_overlaps(base, size, p->uart.reg.base, p->uart.reg.size)) {
        return "console UART";
    }
    const struct plat_range *dbg = &p->debug_uart.reg;
    if (p->debug_uart.kind != UART_NONE && cfg_overlaps(base, size, dbg->base, dbg->size)) {
        return "debug UART";
    }
    return NULL;
}

const char *cfg_vboard_device(const struct guest_config *g, uint64_t base, uint64_t size)
{
    if (cfg_overlaps(base, size, VBOARD_GICD_IPA, 0x1000)) {
        return "GIC distributor";
    }
    if (cfg_overlaps(base, size, VBOARD_GICC_IPA, VBOARD_GICC_SIZE)) {
        return "GIC CPU interface";
    }
    if (cfg_overlaps(base, size, VBOARD_UART_IPA, 0x1000)) {
        return "UART";
    }
    if (g->control && cfg_overlaps(base, size, VBOARD_MANAGE_IPA, VBOARD_MANAGE_SIZE)) {
        return "management page";
    }
    if (cfg_overlaps(base, size, guest_ram_ipa(g), g->mem_size)) {
        return "RAM";
    }
    return NULL;
}

/* The guest before gi that was given a range overlapping r, or NULL */
static const char *pt_owner(const struct system_config *sys, unsigned int gi,
                            const struct plat_range *r)
{
    for (unsigned int j = 0u; j < gi; j++) {
        for (unsigned int k = 0u; k < sys->guest_cfg[j].npt_regs; k++) {
            if (cfg_overlaps(r->base, r->size, sys->guest_cfg[j].pt_regs[k].base,
                         sys->guest_cfg[j].pt_regs[k].size)) {
                return sys->guest_cfg[j].name;
            }
        }
    }
    return NULL;
}

static void check_devices(const struct config_host *h, struct system_config *sys,
                          unsigned int gi, struct cfg_ctx *c)
{
    struct guest_config *g = &sys->guest_cfg[gi];
    for (unsigned int i = 0u; i < g->npt_irqs; i++) {
        uint32_t irq = g->pt_irqs[i];
        if (irq >= 1020u) {        /* 1020-1023 are special; the GIC has no more */
            cfg_msg(c, true, g->name, "passthrough interrupts",
                    "interrupt %lu does not exist", (unsigned long)irq);
        } else if (irq_reserved(h->plat, irq)) {
            cfg_msg(c, true, g->name, "passthrough interrupts",
                    "interrupt %lu is reserved by the hypervisor", (unsigned long)irq);
        } else if (irq < VBOARD_UART_IRQ + 1u && irq == VBOARD_UART_IRQ) {
            cfg_msg(c, true, g->name, "passthrough interrupts",
                    "interrupt %lu is the guest's own emulated UART", (unsigned long)irq);
        } else {
            /* otherwise nothing to do */
        }
        for (unsigned int j = 0u; j < gi; j++) {
            for (unsigned int k = 0u; k < sys->guest_cfg[j].npt_irqs; k++) {
                if (sys->guest_cfg[j].pt_irqs[k] == irq) {
                    cfg_msg(c, true, g->name, "passthrough interrupts",
                            "interrupt %lu is already given to guest '%s'",
                            (unsigned long)irq, sys->guest_cfg[j].name);
                }
            }
        }
    }
    for (unsigned int i = 0u; i < g->npt_regs; i++) {
        const struct plat_range *r = &g->pt_regs[i];
        unsigned long long rb = r->base, rs = r->size;
        const char *what;
        if ((r->base | r->size) & 0xfffu || !r->size) {
            cfg_msg(c, true, g->name, "passthrough reg",
                    "0x%llx+0x%llx is not whole 4 KiB pages", rb, rs);
        } else if (h->plat && overlaps_ram(h->plat, r->base, r->size)) {
            cfg_msg(c, true, g->name, "passthrough reg",
                    "0x%llx+0x%llx is host RAM, not a device", rb, rs);
        } else if (h->plat && (what = hyp_device(h->plat, r->base, r->size))) {
            cfg_msg(c, true, g->name, "passthrough reg",
                    "0x%llx+0x%llx overlaps the hypervisor's %s", rb, rs, what);
        } else if ((what = cfg_vboard_device(g, r->base, r->size)) != NULL) {
            cfg_msg(c, true, g->name, "passthrough reg",
                    "0x%llx+0x%llx collides with the guest's own %s", rb, rs, what);
        } else if ((what = pt_owner(sys, gi, r)) != NULL) {
            cfg_msg(c, true, g->name, "passthrough reg",
                    "0x%llx+0x%llx is already given to guest '%s'", rb, rs, what);
        } else if (h->host_dt && !is_host_device(h->host_dt, r->base, r->size)) {
            cfg_msg(c, true, g->name, "passthrough reg",
                    "0x%llx+0x%llx is not a device of the host", (unsigned long long)r->base,
                    (unsigned long long)r->size);
        } else {
            /* otherwise nothing to do */
        }
    }
}

int config_load(const void *blob, const struct config_host *hw, struct system_config *sys,
                config_report_fn report, void *ctx)
{
    struct cfg_ctx c = { report, ctx, 0, hw ? hw->host_dt : NULL, 0 };
    (void)memset(sys, 0, sizeof(*sys));
    dt_getprop_forget();    /* a new blob may sit where the last one did */
    if (!blob || fdt_check_header(blob) != 0) {
        cfg_msg(&c, true, "-", NULL, "the configuration is not a valid device tree");
        return c.errors;
    }
    int root = fdt_path_offset(blob, "/partita");
    if (root < 0) {
        return 0;   /* no guests configured */
    }
    if (fdt_node_check_compatible(blob, root, "partita,config") != 0) {
        cfg_msg(&c, false, "-", "compatible", "/partita is not compatible with partita,config");
    }
    c.ncolours = config_ncolours(blob, root, (hw != NULL) ? hw->ncolours : 0u, &c);
    config_parse_hyp_colours(blob, root, sys, &c);
    int node;
    fdt_for_each_subnode(node, blob, root) {
        if (config_is_channel(blob, node) || config_is_network(blob, node) ||
            config_is_disk(blob, node) || config_is_schedule(blob, node)) {
            continue;       /* after the guests, whose names they use */
            }
        if (fdt_node_check_compatible(blob, node, "partita,guest") != 0) {
            cfg_msg(&c, false, fdt_get_name(blob, node, NULL), "compatible",
                    "not partita,guest: node ignored");
            continue;
        }
        if (sys->nguest_cfg == GUEST_MAX) {
            cfg_msg(&c, true, fdt_get_name(blob, node, NULL), NULL,
                    "more than %u guests", GUEST_MAX);
            break;
        }
        config_parse_guest(blob, node, &sys->guest_cfg[sys->nguest_cfg], &c);
        sys->nguest_cfg++;
    }
    fdt_for_each_subnode(node, blob, root)
        if (config_is_channel(blob, node)) {
            config_parse_channel(blob, node, sys, &c);
        } else if (config_is_network(blob, node)) {
            config_parse_network(blob, node, sys, &c);
        } else if (config_is_disk(blob, node)) {
            config_parse_disk(blob, node, sys, &c);
        } else if (config_is_schedule(blob, node)) {
            config_parse_schedule(blob, node, sys, &c);
        } else {
            /* otherwise nothing to do */
        }
    for (unsigned int i = 0u; i < sys->nguest_cfg; i++) {
        check_memory(hw, sys, i, &c);
        config_check_colours(sys, i, &c);
        check_cpus(hw, sys, i, &c);
        check_devices(hw, sys, i, &c);
        config_check_images(&sys->guest_cfg[i], &c);
    }
    config_check_channels(hw, sys, &c);
    config_check_control(blob, root, sys, &c);
    config_check_networks(sys, &c);
    config_check_disks(sys, &c);
    for (unsigned int i = 0u; i < sys->nguest_cfg; i++) {
        const struct guest_config *g = &sys->guest_cfg[i];
        /* the virtio console: beside every network device of the guest,
         * checked here, not with the networks, which an image may leave out */
        if (g->vcon) {
            cfg_check_virtio_device(sys, g, g->vcon_ipa, g->vcon_irq, g->nnets, "virtio-console",
                                    "virtio-console", &c);
        }
        config_check_mmio(g, &c);
        config_check_direct(hw, g, &c);
        config_check_budget(hw, g, &c);
    }
    config_check_schedules(hw, sys, &c);
    config_check_health_schedules(sys, &c);
    return c.errors;
}
