/*
 * Host platform probe: everything about the machine comes from its device
 * tree (docs/booting.md, docs/porting.md).  Nothing here touches hardware.
 */
#include <string.h>
#include <stdio.h>
#include <libfdt.h>
#include "platform.h"
#include "gic_quirks.h"
#include "soc_smp.h"
#include "hyp/dt/dt_index.h"
#include "hyp/dt/translate.h"
#include "platform_internal.h"


const char *platform_cpu_method_name(enum cpu_method m)
{
    static const char *const names[] = { "none", "psci", "spin-table", "vexpress-sysflags",
                                         "soc" };
    return (unsigned int)m < sizeof(names) / sizeof(names[0]) ? names[m] : "none";
}

const char *platform_psci_conduit_name(enum psci_conduit c)
{
    return c == PSCI_CONDUIT_SMC ? "smc" : c == PSCI_CONDUIT_HVC ? "hvc" : "none";
}

static int probe_memory(const void *fdt, struct platform *p, char *err, size_t errlen)
{
    int node;
    dt_for_each_child(node, fdt, 0) {
        if (!dt_is_type(fdt, node, "memory")) {
            continue;
        }
        if (!plat_node_enabled(fdt, node)) {
            continue;
        }
        int i = 0;
        while (p->nmem < (unsigned int)PLAT_MAX_MEM) {
            struct plat_range r;
            if (dt_node_reg(fdt, node, i, &r) < 0) {
                break;
            }
            if (r.size != 0u) {
                p->mem[p->nmem++] = r;
            }
            i++;
        }
    }
    if (p->nmem == 0u) {
        ERR("no memory: the device tree has no /memory node with a reg");
    }

    int n = fdt_num_mem_rsv(fdt);
    for (int i = 0; (i < n) && (p->nrsv < (unsigned int)PLAT_MAX_RSV); i++) {
        uint64_t a, s;
        if (fdt_get_mem_rsv(fdt, i, &a, &s) == 0 && s) {
            p->rsv[p->nrsv++] = (struct plat_range){ a, s };
        }
    }
    int rm = dt_path_offset(fdt, "/reserved-memory");
    if (rm >= 0) {
        dt_for_each_child(node, fdt, rm) {
            struct plat_range r;
            if (p->nrsv < (unsigned int)PLAT_MAX_RSV && dt_node_reg(fdt, node, 0, &r) == 0 &&
                r.size) {
                p->rsv[p->nrsv++] = r;
            }
        }
    }
    return 0;
}

static int probe_cpus(const void *fdt, struct platform *p, char *err, size_t errlen)
{
    int cpus = dt_path_offset(fdt, "/cpus");
    if (cpus < 0) {
        ERR("no CPUs: the device tree has no /cpus node");
    }
    /* an enable-method of /cpus holds for every CPU (Linux's
     * arm_dt_init_cpu_maps asks /cpus before the cpu nodes) */
    const char *all = dt_getprop(fdt, cpus, "enable-method", NULL);
    int node;
    dt_for_each_child(node, fdt, cpus) {
        if (!dt_is_type(fdt, node, "cpu")) {
            continue;
        }
        if (!plat_node_enabled(fdt, node)) {
            continue;
        }
        if (p->ncpus == (unsigned int)PLAT_MAX_CPUS) {
            break;  /* more CPUs than Partita supports: use the first ones */
        }
        int len;
        const fdt32_t *reg = dt_getprop(fdt, node, "reg", &len);
        if (!reg || len < 4) {
            ERR("%s: CPU node without reg", fdt_get_name(fdt, node, NULL));
        }
        struct plat_cpu *c = &p->cpus[p->ncpus++];
        c->mpidr = fdt32_ld(&reg[(len / 4) - 1]) & 0x00ffffffu;
        const char *m = dt_getprop(fdt, node, "enable-method", NULL);
        m = m ? m : all;
        c->soc_reset = -1;
        plat_copy_str(c->enable_method, sizeof(c->enable_method), m);
        if (m && strcmp(m, "psci") == 0) {
            c->method = CPU_METHOD_PSCI;
        } else if (m && strcmp(m, "spin-table") == 0) {
            const fdt32_t *ra = dt_getprop(fdt, node, "cpu-release-addr", &len);
            c->method = CPU_METHOD_SPIN_TABLE;
            if (!ra || (len != 4 && len != 8)) {
                ERR("%s: spin-table CPU without cpu-release-addr",
                    fdt_get_name(fdt, node, NULL));
            }
            c->release_addr = dt_cells(ra, len / 4);
            c->release_size = (uint32_t)len;
        } else {
            c->method = CPU_METHOD_NONE;
        }
    }
    if (p->ncpus == 0u) {
        ERR("no CPUs: /cpus has no cpu node");
    }
    return 0;
}

static int probe_gic(const void *fdt, struct platform *p, char *err, size_t errlen)
{
    int node = -1;
    for (int i = 0; dt_gic_compat[i] && node < 0; i++) {
        node = dt_find_compatible(fdt, -1, dt_gic_compat[i]);
        if (node >= 0) {
            plat_copy_str(p->gic.compatible, sizeof(p->gic.compatible), dt_gic_compat[i]);
        }
    }
    if (node < 0) {
        ERR("no GICv2: no interrupt controller compatible with arm,cortex-a15-gic or arm,gic-400");
    }
    const char *name = fdt_get_name(fdt, node, NULL);
    if (dt_cell_prop(fdt, node, "#interrupt-cells", 3) != 3) {
        ERR("%s: #interrupt-cells is not 3", name);
    }
    if (dt_node_reg(fdt, node, 0, &p->gic.gicd) < 0 ||
        dt_node_reg(fdt, node, 1, &p->gic.gicc) < 0) {
        ERR("%s: reg lacks the distributor (GICD) or CPU interface (GICC)", name);
        }
    const struct gic_quirk *q = NULL;
    p->gic.quirk = NULL;
    if (dt_node_reg(fdt, node, 2, &p->gic.gich) < 0 ||
        dt_node_reg(fdt, node, 3, &p->gic.gicv) < 0) {
        q = gic_quirk_find(fdt, p->gic.gicd.base, p->gic.gicc.base);
        if (!q) {
            ERR("%s: no virtualization extensions: reg lacks GICH and GICV "
                "(QEMU: -M virt,virtualization=on)", name);
        }
        p->gic.gich = (struct plat_range){ q->gich, q->gich_size };
        p->gic.gicv = (struct plat_range){ q->gicv, q->gicv_size };
        p->gic.quirk = q->source;
    }
    int irq = dt_node_irq(fdt, node, 0);
    if (irq < 0 && !q) {    /* a SoC whose DT leaves out only the maintenance IRQ */
        q = gic_quirk_find(fdt, p->gic.gicd.base, p->gic.gicc.base);
        if (q && (q->gich != p->gic.gich.base || q->gicv != p->gic.gicv.base)) {
            q = NULL;
        }
        p->gic.quirk = q ? q->source : NULL;
    }
    if (irq < 0 && q) {
        irq = (int)q->maint_irq;
    }
    if (irq < 0) {
        ERR("%s: no maintenance interrupt (interrupts)", name);
    }
    p->gic.maint_irq = (uint32_t)irq;
    return 0;
}

static int probe_timer(const void *fdt, struct platform *p, char *err, size_t errlen)
{
    int node = dt_find_compatible(fdt, -1, "arm,armv7-timer");
    if (node < 0) {
        ERR("no generic timer: no node compatible with arm,armv7-timer");
    }
    int irq[4];
    struct dt_irq_source src;
    bool have = dt_irq_source_init(fdt, node, &src) == 0;
    for (int i = 0; i < 4; i++) {
        irq[i] = have ? dt_irq_source_get(fdt, &src, i) : -1;
        if (irq[i] < 16 || irq[i] >= 32) {
            ERR("%s: interrupt %d is not a PPI (need secure, non-secure, "
                "virtual and hypervisor timer PPIs)", fdt_get_name(fdt, node, NULL), i);
        }
    }
    p->timer.irq_sec_phys = (uint32_t)irq[0];
    p->timer.irq_phys = (uint32_t)irq[1];
    p->timer.irq_virt = (uint32_t)irq[2];
    p->timer.irq_hyp = (uint32_t)irq[3];
    p->timer.clock_frequency = (uint32_t)dt_cell_prop(fdt, node, "clock-frequency", 0);
    return 0;
}

static void probe_psci(const void *fdt, struct platform *p)
{
    static const char *const compat[] = { "arm,psci-1.0", "arm,psci-0.2", "arm,psci", NULL };
    int node = -1;
    for (int i = 0; compat[i] && node < 0; i++) {
        node = dt_find_compatible(fdt, -1, compat[i]);
        if (node >= 0) {
            plat_copy_str(p->psci.compatible, sizeof(p->psci.compatible), compat[i]);
        }
    }
    if (node < 0) {
        return;
    }
    if (!plat_node_enabled(fdt, node)) {
        return;
    }
    const char *m = dt_getprop(fdt, node, "method", NULL);
    if (!m) {
        return;
    }
    if (strcmp(m, "smc") == 0) {
        p->psci.conduit = PSCI_CONDUIT_SMC;
    } else if (strcmp(m, "hvc") == 0) {
        p->psci.conduit = PSCI_CONDUIT_HVC;
    } else {
        return;
    }
    /* PSCI 0.1 names its function IDs in the node; 0.2+ uses the standard */
    p->psci.fn_cpu_on = 0x84000003u;
    if (strcmp(p->psci.compatible, "arm,psci") == 0) {
        int len;
        const fdt32_t *id = dt_getprop(fdt, node, "cpu_on", &len);
        if (id && len == 4) {
            p->psci.fn_cpu_on = fdt32_ld(id);
        } else {
            p->psci.conduit = PSCI_CONDUIT_NONE;
        }
    }
}

/*
 * Versatile Express: CPUs without an enable-method start through the
 * system registers' flags (Linux arch/arm/mach-vexpress/platsmp.c): write
 * all ones to SYS_FLAGSCLR, the entry to SYS_FLAGSSET, wake the CPU.
 */
#define VEXPRESS_SYS_FLAGSSET 0x30u
#define VEXPRESS_SYS_FLAGSCLR 0x34u

static void probe_vexpress_flags(const void *fdt, struct platform *p)
{
    struct plat_range sys;
    if (!dt_is_compatible(fdt, 0, "arm,vexpress")) {
        return;
    }
    int node = dt_find_compatible(fdt, -1, "arm,vexpress-sysreg");
    if (node < 0 || dt_node_reg(fdt, node, 0, &sys) < 0 || sys.size < 0x38u) {
        return;
    }
    for (unsigned int i = 0u; i < p->ncpus; i++) {
        struct plat_cpu *c = &p->cpus[i];
        if (c->method != CPU_METHOD_NONE) {
            continue;
        }
        c->method = CPU_METHOD_SYSFLAGS;
        c->release_addr = sys.base + VEXPRESS_SYS_FLAGSSET;
        c->release_size = 4u;
        c->release_clear = sys.base + VEXPRESS_SYS_FLAGSCLR;
    }
}

/* The device tree as a whole: sound, and a version libfdt reads safely. */
static int probe_dt(const void *fdt, struct platform *p, char *err, size_t errlen)
{
    int rc = fdt_check_header(fdt);
    if (rc == 0 && fdt_version(fdt) < 16u) {
        rc = -FDT_ERR_BADVERSION;   /* libfdt 1.6.1's fdt_check_full crashes on them */
    }
    if (rc == 0) {    /* the whole structure block checked, and indexed */
        rc = dt_index_build(fdt);
    }
    if (rc != 0) {
        ERR("invalid device tree: %s", fdt_strerror(rc));
    }
    plat_copy_str(p->model, sizeof(p->model), dt_getprop(fdt, 0, "model", NULL));
    return 0;
}

/* the console first, so that every later error can be printed */
static int (*const probe_parts[PLAT_NPARTS])(const void *, struct platform *, char *, size_t) = {
    [PLAT_PART_DT] = probe_dt,
    [PLAT_PART_UART] = plat_probe_uart,
    [PLAT_PART_MEMORY] = probe_memory,
    [PLAT_PART_CPUS] = probe_cpus,
    [PLAT_PART_GIC] = probe_gic,
    [PLAT_PART_TIMER] = probe_timer,
    [PLAT_PART_DEBUG_UART] = plat_probe_debug_uart,
};

/*
 * The PMU's interrupt: a PPI, as one /pmu node gives it for every CPU
 * (boards that wire each CPU's PMU to its own SPI are not forwarded).
 * QEMU's virt machine wires the PMU of a 32-bit CPU to PPI 7 but writes an
 * empty /pmu node for it (hw/arm/virt.c, VIRTUAL_PMU_IRQ): that one board
 * is known by its model.
 */
static void probe_pmu(const void *fdt, struct platform *p)
{
    static const char *const compat[] = { "arm,cortex-a15-pmu", "arm,cortex-a7-pmu",
                                          "arm,armv8-pmuv3", NULL };
    /* /pmu, as most DTs call it, before a walk of the whole tree */
    int pmu = dt_path_offset(fdt, "/pmu"), node = -1;
    for (int i = 0; compat[i] && node < 0; i++) {
        if ((pmu >= 0 ? dt_is_compatible(fdt, pmu, compat[i]) : 0) != 0) {
            node = pmu;
        }
    }
    for (int i = 0; compat[i] && node < 0 && pmu < 0; i++) {
        node = dt_find_compatible(fdt, -1, compat[i]);
    }
    int irq = node >= 0 ? dt_node_irq(fdt, node, 0) : -1;
    if (irq < 0 && pmu >= 0 && dt_is_compatible(fdt, 0, "linux,dummy-virt")) {
        irq = 16 + 7;
    }
    p->pmu_irq = irq >= 16 && irq < 32 ? (uint32_t)irq : 0u;
}

static void probe_extras(const void *fdt, struct platform *p)
{
    probe_pmu(fdt, p);
    probe_psci(fdt, p);
    /*
     * CPUs without a method Partita knows start through PSCI when the DT has
     * it, also over a board-specific enable-method (as Linux's setup_arch
     * prefers PSCI: U-Boot adds a PSCI node to such boards' DTs)
     */
    for (unsigned int i = 0u; i < p->ncpus; i++) {
        if (p->cpus[i].method == CPU_METHOD_NONE && p->psci.conduit != PSCI_CONDUIT_NONE) {
            p->cpus[i].method = CPU_METHOD_PSCI;
        }
    }
    probe_vexpress_flags(fdt, p);
    soc_smp_probe(fdt, p);
}

int platform_probe(const void *fdt, struct platform *p, char *err, size_t errlen)
{
    (void)memset(p, 0, sizeof(*p));
    for (int i = 0; i < (int)PLAT_NPARTS; i++) {
        if (probe_parts[i](fdt, p, err, errlen) < 0) {
            return -1;
        }
    }
    probe_extras(fdt, p);
    return 0;
}

unsigned int platform_probe_all(const void *fdt, struct platform *p,
                                void (*report)(void *ctx, enum plat_part part, const char *err),
                                void *ctx)
{
    char err[160];
    unsigned int failed = 0u;
    (void)memset(p, 0, sizeof(*p));
    for (int i = 0; i < (int)PLAT_NPARTS; i++) {
        if (probe_parts[i](fdt, p, err, sizeof(err)) == 0) {
            continue;
        }
        report(ctx, (enum plat_part)i, err);
        failed++;
        if (i == (int)PLAT_PART_DT) {
            return failed;      /* nothing else can be read */
        }
    }
    probe_extras(fdt, p);
    return failed;
}

