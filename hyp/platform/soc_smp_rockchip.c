/*
 * Rockchip RK3288 (enable-method "rockchip,rk3066-smp") and RK3036
 * ("rockchip,rk3036-smp").  Followed: Linux arch/arm/mach-rockchip/platsmp.c
 * for cores other than the Cortex-A9: the boot ROM leaves every other core
 * in WFE watching a mailbox in the SMP SRAM (rockchip,rk3066-smp-sram):
 * SRAM + 8 the entry, SRAM + 4 the magic 0xDEADBEAF, then dsb_sev.  On the
 * RK3288 (has_pmu) the core is first cycled through its PMU power domain as
 * rockchip_smp_prepare_cpus and rockchip_boot_secondary do
 * (pmu_set_power_domain: domain = the CPU number; PMU_PWRDN_CON bit set is
 * off, PMU_PWRDN_ST mirrors it; the core's reset, the cpu node's `resets`
 * line in the CRU, held while it is off), then 1 ms for the ROM to reach
 * its WFE.  The RK3036 has no PMU step (rk3036_smp_prepare_cpus: has_pmu =
 * false).
 *
 * Registers from the DT: the SRAM node; the PMU by /cpus "rockchip,pmu"
 * (else rockchip,rk3066-pmu), as rockchip_smp_prepare_pmu finds it; the
 * reset line by the cpu node's `resets` into a rockchip,rk3288-cru node,
 * whose soft-reset registers start at RK3288_SOFTRST_CON(0) = 0x1b8
 * (drivers/clk/rockchip/clk-rk3288.c) and take a write mask in their upper
 * half (drivers/clk/rockchip/softrst.c, ROCKCHIP_SOFTRST_HIWORD_MASK).
 * The ROM starts the core in the secure world; secondary_soc_entry takes it
 * to non-secure HYP through Partita's secure per-CPU set-up.
 */
#include <stdio.h>
#include <string.h>
#include "soc_smp.h"
#include "hyp/dt/dt_index.h"
#include "hyp/dt/translate.h"

#define RK_SRAM_MAGIC       0x4u
#define RK_SRAM_ENTRY       0x8u
#define RK_MAILBOX_MAGIC    0xdeadbeafu
#define RK_PMU_PWRDN_CON    0x08u
#define RK_PMU_PWRDN_ST     0x0cu
#define RK3288_SOFTRST_CON0 0x1b8u
#define RK_ROM_SETTLE_US    1000        /* mdelay(1) in rockchip_boot_secondary */

enum rk_reg { RK_SRAM, RK_PMU, RK_SOFTRST };

/* the PMU: /cpus rockchip,pmu, else the rockchip,rk3066-pmu node */
static int rk_pmu(const void *fdt, uint64_t *pmu)
{
    int cpus = dt_path_offset(fdt, "/cpus");
    uint32_t ph = cpus >= 0 ? (uint32_t)dt_cell_prop(fdt, cpus, "rockchip,pmu", 0) : 0u;
    int node = ph ? dt_node_offset_by_phandle(fdt, ph) : -1;
    struct plat_range r;
    if ((node >= 0) && (dt_node_reg(fdt, node, 0, &r) == 0) && (r.size > RK_PMU_PWRDN_ST)) {
        *pmu = r.base;
        return 0;
    }
    return soc_smp_node_reg(fdt, "rockchip,rk3066-pmu", pmu, RK_PMU_PWRDN_ST + 4u);
}

/* each CPU's reset line (resets = <&cru id>), all in one rockchip,rk3288-cru */
static int rk_resets(const void *fdt, struct platform *p, uint64_t *softrst)
{
    int cpus = dt_path_offset(fdt, "/cpus"), node, len;
    unsigned int found = 0u;
    dt_for_each_child(node, fdt, cpus) {
        const fdt32_t *reg = dt_getprop(fdt, node, "reg", &len);
        const fdt32_t *rs = dt_getprop(fdt, node, "resets", NULL);
        if (!dt_is_type(fdt, node, "cpu") || !reg || len < 4 || !rs) {
            continue;
        }
        uint32_t mpidr = fdt32_ld(&reg[(len / 4) - 1]) & 0x00ffffffu;
        int cru = dt_node_offset_by_phandle(fdt, fdt32_ld(&rs[0]));
        struct plat_range r;
        if ((cru < 0) || !dt_is_compatible(fdt, cru, "rockchip,rk3288-cru") ||
            (dt_node_reg(fdt, cru, 0, &r) < 0) || (r.size < (RK3288_SOFTRST_CON0 + (12u * 4u)))) {
            return -1;
            }
        *softrst = r.base + RK3288_SOFTRST_CON0;
        for (unsigned int i = 0u; i < p->ncpus; i++) {
            if (p->cpus[i].mpidr == mpidr) {
                p->cpus[i].soc_reset = (int32_t)fdt32_ld(&rs[1]);
                found++;
            }
        }
    }
    return found == p->ncpus ? 0 : -1;
}

static int rk_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                    char *err, size_t errlen, bool has_pmu)
{
    for (unsigned int i = 0u; i < p->ncpus; i++) {
        p->cpus[i].soc_reset = -1;
    }
    if (soc_smp_node_reg(fdt, "rockchip,rk3066-smp-sram", &s->reg[RK_SRAM],
                         RK_SRAM_ENTRY + 4u) != 0) {
        (void)snprintf(err, errlen, "no rockchip,rk3066-smp-sram node (the boot ROM's mailbox)");
        return -1;
    }
    if (!has_pmu) {
        return 0;
    }
    if (rk_pmu(fdt, &s->reg[RK_PMU]) != 0) {
        (void)snprintf(err, errlen, "no PMU (/cpus rockchip,pmu or rockchip,rk3066-pmu)");
        return -1;
    }
    if (rk_resets(fdt, p, &s->reg[RK_SOFTRST]) != 0) {
        (void)snprintf(err, errlen, "a CPU without a reset line (resets) in a rockchip,rk3288-cru");
        return -1;
    }
    return 0;
}

static int rk3288_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                        char *err, size_t errlen)
{
    return rk_probe(fdt, p, s, err, errlen, true);
}

static int rk3036_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                        char *err, size_t errlen)
{
    return rk_probe(fdt, p, s, err, errlen, false);
}

/* the ROM's mailbox: entry first, then the magic it wakes up to */
static unsigned int rk_mailbox(const struct plat_soc_smp *s, uint32_t entry_pa,
                               struct soc_step *st)
{
    st[0] = (struct soc_step){ STEP_WRITE, s->reg[RK_SRAM] + RK_SRAM_ENTRY, 0, entry_pa };
    st[1] = (struct soc_step){ STEP_WRITE, s->reg[RK_SRAM] + RK_SRAM_MAGIC, 0,
                               RK_MAILBOX_MAGIC };
    return 2;
}

static unsigned int rk3288_plan(const struct plat_soc_smp *s, const struct plat_cpu *c,
                                uint32_t entry_pa, struct soc_step st[SOC_MAX_STEPS])
{
    uint32_t pd = c->mpidr & 0xffu, bit = (unsigned int)1u << pd;
    if (pd == 0u || pd > 3u || c->soc_reset < 0) {
        return 0;
    }
    uint64_t con = s->reg[RK_PMU] + RK_PMU_PWRDN_CON;
    uint64_t sts = s->reg[RK_PMU] + RK_PMU_PWRDN_ST;
    uint64_t rst = s->reg[RK_SOFTRST] + 4u * ((uint32_t)c->soc_reset / 16u);
    uint32_t rbit = (unsigned int)1u << ((uint32_t)c->soc_reset % 16u);
    unsigned int n = 0u;
    /* off, with the core held in reset (rockchip_smp_prepare_cpus) */
    st[n++] = (struct soc_step){ STEP_WRITE, rst, 0, rbit | rbit << 16 };
    st[n++] = (struct soc_step){ STEP_UPDATE, con, bit, bit };
    st[n++] = (struct soc_step){ STEP_POLL, sts, bit, bit };
    /* on, then out of reset (rockchip_boot_secondary) */
    st[n++] = (struct soc_step){ STEP_UPDATE, con, bit, 0 };
    st[n++] = (struct soc_step){ STEP_POLL, sts, bit, 0 };
    st[n++] = (struct soc_step){ STEP_WRITE, rst, 0, rbit << 16 };
    st[n++] = (struct soc_step){ STEP_DELAY_US, 0, 0, RK_ROM_SETTLE_US };
    return n + rk_mailbox(s, entry_pa, &st[n]);
}

static unsigned int rk3036_plan(const struct plat_soc_smp *s, const struct plat_cpu *c,
                                uint32_t entry_pa, struct soc_step st[SOC_MAX_STEPS])
{
    if ((c->mpidr & 0xffu) == 0u) {
        return 0;
    }
    st[0] = (struct soc_step){ STEP_DELAY_US, 0, 0, RK_ROM_SETTLE_US };
    return 1u + rk_mailbox(s, entry_pa, &st[1]);
}

const struct soc_smp_method soc_smp_rockchip[] = {
    { "rockchip,rk3066-smp", true, "Rockchip PMU + SRAM mailbox",
      "arch/arm/mach-rockchip/platsmp.c", 0, 0, rk3288_probe, rk3288_plan },
    { "rockchip,rk3036-smp", true, "Rockchip SRAM mailbox",
      "arch/arm/mach-rockchip/platsmp.c", 0, 0, rk3036_probe, rk3036_plan },
    { NULL, false, NULL, NULL, 0, 0, NULL, NULL },
};
