/*
 * One guest node of the configuration (docs/configuration.md): every property
 * read and checked on its own; an unknown one is reported, never silently
 * taken.  Checks against the host and the other guests are config.c's.
 */
#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include "guest_config.h"
#include "config_internal.h"
#include "hyp/dt/dt_index.h"
#include "hyp/dt/translate.h"

static const char *const known_props[] = {
    "compatible", "cpus", "memory", "identity-map", "kernel", "kernel-format",
    "load-offset", "entry-offset", "initrd", "bootargs", "autostart", "on-crash",
    "watchdog", "watchdog-action", "console-rate", "time-slice-us", "pmu", "colors", "control",
    "control-guests", "virtio-console", "interrupts", "memory-budget", "memory-budget-event",
    NULL,
};

static bool is_known(const char *name)
{
    for (int i = 0; known_props[i]; i++) {
        if (strcmp(name, known_props[i]) == 0) {
            return true;
        }
    }
    return false;
}

/* a passthrough subnode's reg = <base size>...: whole ranges as given */
static void passthrough_regs(const void *fdt, int dev, const char *dn, struct guest_config *g,
                             struct cfg_ctx *c)
{
    int len;
    const fdt32_t *reg = fdt_getprop(fdt, dev, "reg", &len);
    if (!reg || len % 8 || len == 0) {
        cfg_msg(c, true, g->name, "passthrough reg", "%s: reg must be <base size> pairs", dn);
        return;
    }
    for (int i = 0; i < len / 8; i++) {
        if (g->npt_regs == GUEST_MAX_PT_REGS) {
            cfg_msg(c, true, g->name, "passthrough reg", "%s: more than %u ranges", dn,
                    GUEST_MAX_PT_REGS);
            return;
        }
        g->pt_regs[g->npt_regs++] = (struct plat_range){ fdt32_ld(&reg[2 * i]),
                                                         fdt32_ld(&reg[2 * i + 1]) };
    }
}

/* one more passthrough interrupt; false (said once) when there is no room */
static bool passthrough_irq(uint32_t irq, const char *dn, struct guest_config *g,
                            struct cfg_ctx *c)
{
    if (g->npt_irqs == GUEST_MAX_PT_IRQS) {
        cfg_msg(c, true, g->name, "passthrough interrupts", "%s: too many", dn);
        return false;
    }
    g->pt_irqs[g->npt_irqs++] = irq;
    return true;
}

/*
 * path = "/pl031@9010000": the host node's reg entries, translated through
 * its parents' ranges and widened to whole pages, and its interrupts as
 * GIC INTIDs, through its interrupt parent and any interrupt map (the
 * platform probe's own translation, hyp/dt).  The checks every passthrough
 * range gets (host RAM, the hypervisor's devices, other guests) follow in
 * config.c.
 */
static void passthrough_path(const char *path, const char *dn, struct guest_config *g,
                             struct cfg_ctx *c)
{
    const void *hdt = c->host_dt;
    int node = hdt ? dt_path_offset(hdt, path) : -1;
    if (!hdt) {
        cfg_msg(c, true, g->name, "passthrough path", "%s: no host device tree to look in", dn);
        return;
    }
    if (node < 0) {
        cfg_msg(c, true, g->name, "passthrough path", "%s: no node %s in the host device tree",
                dn, path);
        return;
    }
    struct plat_range r;
    int n = 0;
    for (; dt_node_reg(hdt, node, n, &r) == 0; n++) {
        if (g->npt_regs == GUEST_MAX_PT_REGS) {
            cfg_msg(c, true, g->name, "passthrough path", "%s: more than %u ranges", dn,
                    GUEST_MAX_PT_REGS);
            return;
        }
        uint64_t base = r.base & ~0xfffULL, end = (r.base + r.size + 0xfffu) & ~0xfffULL;
        g->pt_regs[g->npt_regs++] = (struct plat_range){ base, end - base };
    }
    if (n == 0 || !g->pt_regs[g->npt_regs - 1u].size) {
        cfg_msg(c, true, g->name, "passthrough path", "%s: %s has no reg to map", dn, path);
        return;
    }
    if (!dt_getprop(hdt, node, "interrupts", NULL)) {
        return;                 /* a device without interrupts */
    }
    struct dt_irq_source src;
    if (dt_irq_source_init(hdt, node, &src) < 0) {
        cfg_msg(c, true, g->name, "passthrough path",
                "%s: the interrupts of %s have no interrupt parent Partita can read", dn, path);
        return;
    }
    for (int i = 0; i < src.len / (4 * src.ncells); i++) {
        int irq = dt_irq_source_get(hdt, &src, i);
        if (irq < 0) {
            cfg_msg(c, true, g->name, "passthrough path",
                    "%s: interrupt %d of %s is not a GIC SPI or PPI", dn, i, path);
        } else if (!passthrough_irq((uint32_t)irq, dn, g, c)) {
            return;
        } else {
            /* otherwise nothing to do */
        }
    }
}

static void parse_passthrough(const void *fdt, int node, struct guest_config *g,
                              struct cfg_ctx *c)
{
    int pt = fdt_subnode_offset(fdt, node, "passthrough");
    if (pt < 0) {
        return;
    }
    int dev;
    fdt_for_each_subnode(dev, fdt, pt) {
        const char *dn = fdt_get_name(fdt, dev, NULL);
        int prop;
        fdt_for_each_property_offset(prop, fdt, dev) {
            const char *pn = NULL;
            if (fdt_getprop_by_offset(fdt, prop, &pn, NULL) && pn && strcmp(pn, "reg") &&
                strcmp(pn, "interrupts") && strcmp(pn, "path")) {
                cfg_msg(c, true, g->name, "passthrough", "%s: unknown property '%s'", dn, pn);
                }
        }
        bool bad;
        const char *path = cfg_get_string(fdt, dev, "path", &bad);
        if (bad) {
            cfg_msg(c, true, g->name, "passthrough path", "%s: not a string", dn);
            continue;
        }
        if (path != NULL) {
            if (fdt_getprop(fdt, dev, "reg", NULL) || fdt_getprop(fdt, dev, "interrupts", NULL)) {
                cfg_msg(c, true, g->name, "passthrough path",
                        "%s: give either path or reg and interrupts, not both", dn);
            } else {
                passthrough_path(path, dn, g, c);
            }
            continue;
        }
        passthrough_regs(fdt, dev, dn, g, c);
        int len;
        const fdt32_t *irq = fdt_getprop(fdt, dev, "interrupts", &len);
        for (int i = 0; irq && i < len / 4; i++) {
            if (!passthrough_irq(fdt32_ld(&irq[i]), dn, g, c)) {
                break;
            }
        }
    }
}

/* console-rate = <CHARS_PER_SECOND [BURST]> */
static void parse_console_rate(const void *fdt, int node, struct guest_config *g,
                               struct cfg_ctx *c)
{
    int len;
    const fdt32_t *v = dt_getprop(fdt, node, "console-rate", &len);
    g->console_rate = CONSOLE_RATE_DEFAULT;
    g->console_burst = CONSOLE_BURST_DEFAULT;
    if (!v) {
        return;
    }
    if (len != 4 && len != 8) {
        cfg_msg(c, true, g->name, "console-rate",
                "must be <characters-per-second> or <characters-per-second burst>");
        return;
    }
    g->console_rate = fdt32_ld(&v[0]);
    if (len == 8) {
        g->console_burst = fdt32_ld(&v[1]);
    }
    if ((g->console_rate < CONSOLE_RATE_MIN) || (g->console_rate > CONSOLE_RATE_MAX)) {
        cfg_msg(c, true, g->name, "console-rate", "%lu characters a second: use %u to %u",
                (unsigned long)g->console_rate, CONSOLE_RATE_MIN, CONSOLE_RATE_MAX);
    }
    if ((g->console_burst < CONSOLE_BURST_MIN) || (g->console_burst > CONSOLE_BURST_MAX)) {
        cfg_msg(c, true, g->name, "console-rate", "burst of %lu characters: use %u to %u",
                (unsigned long)g->console_burst, CONSOLE_BURST_MIN, CONSOLE_BURST_MAX);
    }
}

/* Who the guest is: its name, its physical CPUs, its memory */
static void parse_placement(const void *fdt, int node, struct guest_config *g,
                            struct cfg_ctx *c)
{
    int len;
    const char *name = fdt_get_name(fdt, node, NULL);
    (void)snprintf(g->name, sizeof(g->name), "%s", name);

    int prop;
    fdt_for_each_property_offset(prop, fdt, node) {
        /* a name offset outside the strings block fails: pn is then unset */
        const char *pn = NULL;
        if (!fdt_getprop_by_offset(fdt, prop, &pn, NULL)) {
            continue;
        }
        if (pn && !is_known(pn)) {
            cfg_msg(c, false, g->name, pn, "unknown property (ignored)");
        }
    }

    const fdt32_t *cpus = dt_getprop(fdt, node, "cpus", &len);
    if (!cpus || len == 0 || len % 4) {
        cfg_msg(c, true, g->name, "cpus", "missing: list the physical CPUs, one per vCPU");
    } else if (((unsigned int)len / 4u) > GUEST_MAX_VCPUS) {
        cfg_msg(c, true, g->name, "cpus", "%u CPUs, at most %u", (unsigned int)len / 4u,
                GUEST_MAX_VCPUS);
    } else {
        unsigned int ncpus = (unsigned int)len / 4u;
        for (unsigned int i = 0u; i < ncpus; i++) {
            g->cpus[i] = fdt32_ld(&cpus[i]);
        }
        g->ncpus = ncpus;
    }

    const fdt32_t *mem = dt_getprop(fdt, node, "memory", &len);
    if (!mem || (len != 8 && len != 16)) {
        cfg_msg(c, true, g->name, "memory", "missing: give <base size> (physical)");
    } else if (len == 8) {
        g->mem_base = fdt32_ld(&mem[0]);
        g->mem_size = fdt32_ld(&mem[1]);
    } else {
        g->mem_base = ((uint64_t)fdt32_ld(&mem[0]) << 32) | fdt32_ld(&mem[1]);
        g->mem_size = ((uint64_t)fdt32_ld(&mem[2]) << 32) | fdt32_ld(&mem[3]);
    }
    if (mem && (len == 8 || len == 16) && !g->mem_size) {
        cfg_msg(c, true, g->name, "memory", "size is 0");
    }
    g->identity = dt_getprop(fdt, node, "identity-map", NULL) != NULL;
}

/* What it boots: kernel (and its format and offsets), initrd, bootargs */
static void parse_images(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    int len;
    bool bad;
    g->kernel = dt_getprop(fdt, node, "kernel", &len);
    g->kernel_size = g->kernel && len > 0 ? (uint32_t)len : 0u;
    if (!g->kernel_size) {
        cfg_msg(c, true, g->name, "kernel", g->kernel ? "empty image" : "missing image");
    }

    const char *fmt = cfg_get_string(fdt, node, "kernel-format", &bad);
    if (bad) {
        cfg_msg(c, true, g->name, "kernel-format", "not a string");
    } else if (!fmt || strcmp(fmt, "raw") == 0) {
        g->format = KERNEL_RAW;
    } else if (strcmp(fmt, "linux") == 0) {
        g->format = KERNEL_LINUX;
    } else {
        cfg_msg(c, true, g->name, "kernel-format", "\"%s\": use \"linux\" or \"raw\"", fmt);
    }

    if (cfg_get_u32(fdt, node, "load-offset", &g->load_offset) < 0) {
        cfg_msg(c, true, g->name, "load-offset", "must be one 32-bit cell");
    }
    if (cfg_get_u32(fdt, node, "entry-offset", &g->entry_offset) < 0) {
        cfg_msg(c, true, g->name, "entry-offset", "must be one 32-bit cell");
    } else if (!dt_getprop(fdt, node, "entry-offset", NULL)) {
        g->entry_offset = g->load_offset;
    } else {
        /* otherwise nothing to do */
    }

    g->initrd = dt_getprop(fdt, node, "initrd", &len);
    g->initrd_size = g->initrd && len > 0 ? (uint32_t)len : 0u;
    if (g->initrd && !g->initrd_size) {
        cfg_msg(c, true, g->name, "initrd", "empty image");
    }

    const char *ba = dt_getprop(fdt, node, "bootargs", &len);
    if (ba && (unsigned int)len > GUEST_BOOTARGS_MAX) {
        cfg_msg(c, true, g->name, "bootargs", "longer than %u bytes", GUEST_BOOTARGS_MAX - 1u);
    } else {
        ba = cfg_get_string(fdt, node, "bootargs", &bad);
        if (bad) {
            cfg_msg(c, true, g->name, "bootargs", "not a string");
        } else if (ba != NULL) {
            (void)snprintf(g->bootargs, sizeof(g->bootargs), "%s", ba);
        } else {
            /* otherwise nothing to do */
        }
    }

}

/* How it lives: autostart, on-crash, the watchdog, its time slice */
static void parse_lifecycle(const void *fdt, int node, struct guest_config *g,
                            struct cfg_ctx *c)
{
    bool bad;
    g->autostart = dt_getprop(fdt, node, "autostart", NULL) != NULL;
    const char *oc = cfg_get_string(fdt, node, "on-crash", &bad);
    if (bad) {
        cfg_msg(c, true, g->name, "on-crash", "not a string");
    } else if (!oc || strcmp(oc, "stop") == 0) {
        g->on_crash = ON_CRASH_STOP;
    } else if (strcmp(oc, "restart") == 0) {
        g->on_crash = ON_CRASH_RESTART;
    } else {
        cfg_msg(c, true, g->name, "on-crash", "\"%s\": use \"stop\" or \"restart\"", oc);
    }
    if (cfg_get_u32(fdt, node, "watchdog", &g->watchdog_ms) < 0) {
        cfg_msg(c, true, g->name, "watchdog", "must be one 32-bit cell (milliseconds)");
    } else if (dt_getprop(fdt, node, "watchdog", NULL) && g->watchdog_ms < 10u) {
        cfg_msg(c, true, g->name, "watchdog", "%lu ms: at least 10 ms",
                (unsigned long)g->watchdog_ms);
    } else {
        /* otherwise nothing to do */
    }
    const char *wa = cfg_get_string(fdt, node, "watchdog-action", &bad);
    g->watchdog_action = ON_CRASH_RESTART;
    if (bad) {
        cfg_msg(c, true, g->name, "watchdog-action", "not a string");
    } else if (wa && strcmp(wa, "stop") == 0) {
        g->watchdog_action = ON_CRASH_STOP;
    } else if (wa && strcmp(wa, "restart") != 0) {
        cfg_msg(c, true, g->name, "watchdog-action", "\"%s\": use \"restart\" or \"stop\"", wa);
    } else {
        /* otherwise nothing to do */
    }
    if (cfg_get_u32(fdt, node, "time-slice-us", &g->slice_us) < 0) {
        cfg_msg(c, true, g->name, "time-slice-us", "must be one 32-bit cell (microseconds)");
    } else if (dt_getprop(fdt, node, "time-slice-us", NULL) &&
               (g->slice_us < GUEST_SLICE_MIN_US || g->slice_us > GUEST_SLICE_MAX_US)) {
        cfg_msg(c, true, g->name, "time-slice-us", "%lu us: give %u to %u",
                (unsigned long)g->slice_us, GUEST_SLICE_MIN_US, GUEST_SLICE_MAX_US);
    } else {
        /* otherwise nothing to do */
    }
}

/* pmu = "on" (the default) or "off" */
static void parse_pmu(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    bool bad;
    const char *pmu = cfg_get_string(fdt, node, "pmu", &bad);
    g->pmu = true;
    if (bad) {
        cfg_msg(c, true, g->name, "pmu", "not a string");
    } else if (pmu && strcmp(pmu, "off") == 0) {
        g->pmu = false;
    } else if (pmu && strcmp(pmu, "on") != 0) {
        cfg_msg(c, true, g->name, "pmu", "\"%s\": use \"on\" or \"off\"", pmu);
    } else {
        /* otherwise nothing to do */
    }
}

/* virtio-console = <IPA INTID>: checked beside the network devices (config.c) */
static void parse_virtio_console(const void *fdt, int node, struct guest_config *g,
                                 struct cfg_ctx *c)
{
    int len;
    const fdt32_t *v = dt_getprop(fdt, node, "virtio-console", &len);
    if (!v) {
        return;
    }
    if (len != 8) {
        cfg_msg(c, true, g->name, "virtio-console", "give <IPA INTID>");
        return;
    }
    g->vcon = true;
    g->vcon_ipa = fdt32_ld(&v[0]);
    g->vcon_irq = fdt32_ld(&v[1]);
}

/* interrupts = "virtual" (the default) or "direct" */
static void parse_irq_mode(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    bool bad;
    const char *m = cfg_get_string(fdt, node, "interrupts", &bad);
    g->irq_mode = IRQ_VIRTUAL;
    if (bad) {
        cfg_msg(c, true, g->name, "interrupts", "not a string");
    } else if (m && strcmp(m, "direct") == 0) {
        g->irq_mode = IRQ_DIRECT;
    } else if (m && strcmp(m, "virtual") != 0) {
        cfg_msg(c, true, g->name, "interrupts", "\"%s\": use \"virtual\" or \"direct\"", m);
    } else {
        /* otherwise nothing to do */
    }
}

/*
 * A direct guest (docs/direct-interrupts.md) owns its CPUs and their
 * physical CPU interface: the hypervisor keeps them only through the GIC's
 * Group 0, which needs a secure start; nothing virtual can reach it (no
 * list registers), and the monitor's CPU 0 takes the console's interrupt.
 * Its CPUs and passthrough interrupts are checked against the other guests
 * with everyone's (config.c: no time-slice-us, no interrupt given twice).
 */
void config_check_direct(const struct config_host *h, const struct guest_config *g,
                         struct cfg_ctx *c)
{
    if (g->irq_mode != IRQ_DIRECT) {
        return;
    }
    if (!h || !h->group0) {
        cfg_msg(c, true, g->name, "interrupts", "\"direct\" needs Partita started in the "
                "secure world on a GIC with the Security Extensions (Group 0 keeps its CPUs "
                "the hypervisor's); this start: %s", h && h->start_mode ? h->start_mode
                                                                       : "not secure");
    }
    if (g->slice_us != 0u) {
        cfg_msg(c, true, g->name, "interrupts", "a direct guest has its CPUs alone: "
                "no time-slice-us");
    }
    for (unsigned int i = 0u; i < g->ncpus; i++) {
        if (g->cpus[i] == 0u) {
            cfg_msg(c, true, g->name, "interrupts", "CPU 0 takes the monitor console's "
                    "interrupt: give a direct guest other CPUs");
        }
    }
    const char *virt = g->nchannels ? "channels" : g->nnets ? "networks"
                       : g->vcon ? "a virtio console" : g->control ? "control" : NULL;
    if (virt != NULL) {
        cfg_msg(c, true, g->name, "interrupts", "a direct guest takes no virtual "
                "interrupts: %s cannot be given to it", virt);
    }
    if (g->pmu) {
        cfg_msg(c, true, g->name, "interrupts", "a direct guest's PMU interrupt is not "
                "forwarded: give it pmu = \"off\"");
    }
}

void config_check_mmio(const struct guest_config *g, struct cfg_ctx *c)
{
    /* in the order guest_start registers them: the first that finds the
     * bus full is the property named */
    unsigned int n = GUEST_VBOARD_REGIONS + g->nchannels;
    const char *prop = "channels";
    if (n <= GUEST_MAX_MMIO_REGIONS && g->control) {
        n++;
        prop = "control";
    }
    if (n <= GUEST_MAX_MMIO_REGIONS && g->nnets) {
        n += g->nnets;
        prop = "networks";
    }
    if (n <= GUEST_MAX_MMIO_REGIONS && g->vcon) {
        n++;
        prop = "virtio-console";
    }
    /* its disks' devices, then the done pages of the disks it drives */
    unsigned int ndone = 0u;
    for (unsigned int i = 0u; i < g->ndriven; i++) {
        if (g->driven[i].done_ipa != 0u) {
            ndone++;
        }
    }
    if (n <= GUEST_MAX_MMIO_REGIONS && (g->ndisks + ndone) != 0u) {
        n += g->ndisks + ndone;
        prop = (ndone != 0u) ? "done" : "disks";
    }
    if (n > GUEST_MAX_MMIO_REGIONS) {
        cfg_msg(c, true, g->name, prop, "its emulated devices need %u MMIO regions, a guest "
                "has %u", n, GUEST_MAX_MMIO_REGIONS);
    }
}

void config_parse_guest(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    parse_placement(fdt, node, g, c);
    config_parse_colours(fdt, node, g, c);
    parse_images(fdt, node, g, c);
    parse_lifecycle(fdt, node, g, c);
    parse_console_rate(fdt, node, g, c);
    parse_pmu(fdt, node, g, c);
    parse_irq_mode(fdt, node, g, c);
    parse_virtio_console(fdt, node, g, c);
    parse_passthrough(fdt, node, g, c);
    config_parse_control(fdt, node, g, c);
    config_parse_budget(fdt, node, g, c);
    config_parse_health(fdt, node, g, c);
}
