/*
 * Allwinner A31/A31s (enable-method "allwinner,sun6i-a31") and A23/A33/R16
 * ("allwinner,sun8i-a23").  Followed: Linux arch/arm/mach-sunxi/platsmp.c,
 * sun6i_smp_boot_secondary and sun8i_smp_boot_secondary: the entry in the
 * CPU configuration block's PRIVATE0 register (read by the boot ROM when
 * the core leaves reset), the core and its L1 cache held in reset, on the
 * A31 its debug access off and its power clamp opened step by step
 * (0xff >> i, i = 0..8) with 10 ms to settle, the PRCM's power-off gate for
 * it cleared, 1 ms, then its reset released (CPU_RST_CTRL = 3) and, on the
 * A31, debug access back.  The CPU number is the MPIDR Aff0 (one cluster).
 *
 * The register blocks come from the DT's PRCM and cpuconfig nodes
 * (allwinner,sun6i-a31-prcm / -cpuconfig, allwinner,sun8i-a23-prcm /
 * -cpuconfig), as sun6i_smp_prepare_cpus and sun8i_smp_prepare_cpus find
 * them.  The core starts from reset in the secure world; secondary_soc_entry
 * takes it to non-secure HYP.  U-Boot adds PSCI to these boards' DTs, and
 * PSCI is preferred when it is there (as Linux does): this method is for a
 * DT without it.
 */
#include <stdio.h>
#include "soc_smp.h"

#define CPUCFG_CPU_RST_CTRL(cpu)    (((cpu) + 1u) * 0x40u)
#define CPUCFG_GEN_CTRL             0x184u
#define CPUCFG_PRIVATE0             0x1a4u
#define CPUCFG_DBG_CTL1             0x1e4u
#define CPUCFG_RST_RELEASE          3u          /* core and its reset logic out */
#define PRCM_CPU_PWROFF             0x100u
#define PRCM_CPU_PWR_CLAMP(cpu)     (((cpu) * 4u) + 0x140u)
#define SUNXI_CORES                 4u

enum sunxi_reg { SUNXI_PRCM, SUNXI_CPUCFG };

static int sunxi_probe(const void *fdt, struct plat_soc_smp *s, char *err, size_t errlen,
                       const char *prcm, const char *cpucfg)
{
    if (soc_smp_node_reg(fdt, prcm, &s->reg[SUNXI_PRCM],
                         PRCM_CPU_PWR_CLAMP(SUNXI_CORES)) != 0) {
        (void)snprintf(err, errlen, "no %s node", prcm);
        return -1;
    }
    if (soc_smp_node_reg(fdt, cpucfg, &s->reg[SUNXI_CPUCFG], CPUCFG_DBG_CTL1 + 4u) != 0) {
        (void)snprintf(err, errlen, "no %s node", cpucfg);
        return -1;
    }
    return 0;
}

static int sun6i_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                       char *err, size_t errlen)
{
    return sunxi_probe(fdt, s, err, errlen, "allwinner,sun6i-a31-prcm",
                       "allwinner,sun6i-a31-cpuconfig");
}

static int sun8i_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                       char *err, size_t errlen)
{
    return sunxi_probe(fdt, s, err, errlen, "allwinner,sun8i-a23-prcm",
                       "allwinner,sun8i-a23-cpuconfig");
}

/* entry, core and L1 in reset; (A31) debug off; *n steps so far */
static unsigned int sunxi_hold(const struct plat_soc_smp *s, uint32_t cpu, uint32_t entry_pa,
                               bool debug, struct soc_step *st)
{
    uint64_t cfg = s->reg[SUNXI_CPUCFG];
    unsigned int n = 0u;
    st[n] = (struct soc_step){ STEP_WRITE, cfg + CPUCFG_PRIVATE0, 0, entry_pa };
    n++;
    uint32_t rst = CPUCFG_CPU_RST_CTRL(cpu);
    st[n] = (struct soc_step){ STEP_WRITE, cfg + rst, 0, 0 };
    n++;
    st[n] = (struct soc_step){ STEP_UPDATE, cfg + CPUCFG_GEN_CTRL, (unsigned int)1u << cpu, 0 };
    n++;
    if (debug) {
        st[n] = (struct soc_step){ STEP_UPDATE, cfg + CPUCFG_DBG_CTL1, (unsigned int)1u << cpu, 0 };
        n++;
    }
    return n;
}

/* the power-off gate cleared, 1 ms, out of reset */
static unsigned int sunxi_release(const struct plat_soc_smp *s, uint32_t cpu, struct soc_step *st)
{
    st[0] = (struct soc_step){ STEP_UPDATE, s->reg[SUNXI_PRCM] + PRCM_CPU_PWROFF, (unsigned int)1u << cpu, 0 };
    st[1] = (struct soc_step){ STEP_DELAY_US, 0, 0, 1000 };
    st[2] = (struct soc_step){ STEP_WRITE, s->reg[SUNXI_CPUCFG] + CPUCFG_CPU_RST_CTRL(cpu), 0,
                               CPUCFG_RST_RELEASE };
    return 3;
}

static bool sunxi_cpu(const struct plat_cpu *c, uint32_t *cpu)
{
    *cpu = c->mpidr & 0xffu;
    return (c->mpidr & 0xffff00u) == 0u && *cpu > 0u && *cpu < SUNXI_CORES;
}

static unsigned int sun6i_plan(const struct plat_soc_smp *s, const struct plat_cpu *c,
                               uint32_t entry_pa, struct soc_step st[SOC_MAX_STEPS])
{
    uint32_t cpu;
    if (!sunxi_cpu(c, &cpu)) {
        return 0;
    }
    unsigned int n = sunxi_hold(s, cpu, entry_pa, true, st);
    for (uint32_t i = 0u; i <= 8u; i++) {      /* open the power clamp gradually */
        st[n] = (struct soc_step){ STEP_WRITE, s->reg[SUNXI_PRCM] + PRCM_CPU_PWR_CLAMP(cpu),
                                     0, (unsigned int)0xffu >> i };
        n++;
    }
    st[n] = (struct soc_step){ STEP_DELAY_US, 0, 0, 10000 };
    n++;
    n += sunxi_release(s, cpu, &st[n]);
    st[n] = (struct soc_step){ STEP_UPDATE, s->reg[SUNXI_CPUCFG] + CPUCFG_DBG_CTL1,
                                 (unsigned int)1u << cpu, (unsigned int)1u << cpu };
    n++;
    return n;
}

static unsigned int sun8i_plan(const struct plat_soc_smp *s, const struct plat_cpu *c,
                               uint32_t entry_pa, struct soc_step st[SOC_MAX_STEPS])
{
    uint32_t cpu;
    if (!sunxi_cpu(c, &cpu)) {
        return 0;
    }
    unsigned int n = sunxi_hold(s, cpu, entry_pa, false, st);
    return n + sunxi_release(s, cpu, &st[n]);
}

const struct soc_smp_method soc_smp_sunxi[] = {
    { "allwinner,sun6i-a31", true, "Allwinner A31 PRCM + CPUCFG",
      "arch/arm/mach-sunxi/platsmp.c", 0, 0, sun6i_probe, sun6i_plan },
    { "allwinner,sun8i-a23", true, "Allwinner A23 PRCM + CPUCFG",
      "arch/arm/mach-sunxi/platsmp.c", 0, 0, sun8i_probe, sun8i_plan },
    { NULL, false, NULL, NULL, 0, 0, NULL, NULL },
};
