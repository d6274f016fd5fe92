/*
 * Samsung Exynos5 (no enable-method: by the SoC's root compatible).
 * Followed: Linux arch/arm/mach-exynos/platsmp.c, exynos_boot_secondary
 * and exynos_smp_prepare_cpus: the core (MPIDR Aff0) is powered through
 * the PMU if it is off (ARM_CORE_CONFIGURATION(n) = 0x2000 + 0x80 n gets
 * LOCAL_PWR_EN = 3, ARM_CORE_STATUS = + 4 follows within 10 ms; regs-pmu.h),
 * its entry goes to the boot register at the start of SYSRAM
 * (samsung,exynos4210-sysram; + 4 on the Exynos5420/5800: cpu_boot_reg),
 * and an SGI wakes the iROM's pen, which jumps there.
 *
 * Only what that path covers is taken:
 *  - no samsung,secure-firmware node: with one, Linux hands the address to
 *    the TrustZone firmware (firmware.c: SYSRAM-NS + 0x1c), which releases
 *    the CPU in non-secure SVC mode with no call to enter HYP: Partita could
 *    not run there;
 *  - one cluster: the Exynos5420/5422/5800 second cluster is started by
 *    MCPM (mcpm-exynos.c) in Linux, not by this path.
 * That leaves the Exynos5250 (two A15s); the iROM releases the CPU in the
 * secure world, and secondary_soc_entry takes it to non-secure HYP.
 */
#include <stdio.h>
#include "soc_smp.h"
#include "hyp/dt/dt_index.h"

#define EXYNOS_ARM_CORE_CONFIGURATION(n) (0x2000u + (0x80u * (n)))
#define EXYNOS_ARM_CORE_STATUS(n)        (0x2004u + (0x80u * (n)))
#define S5P_CORE_LOCAL_PWR_EN            0x3u

enum exynos_reg { EXY_PMU, EXY_BOOT };

static int exynos_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                        char *err, size_t errlen, const char *pmu, uint32_t boot_off)
{
    for (unsigned int i = 0u; i < p->ncpus; i++) {
        if ((p->cpus[i].mpidr & 0xffff00u) != 0u) {
            (void)snprintf(err, errlen, "a second CPU cluster: Linux starts it by MCPM, mcpm-exynos.c");
            return -1;
        }
    }
    if (dt_find_compatible(fdt, -1, "samsung,secure-firmware") >= 0) {
        (void)snprintf(err, errlen, "its TrustZone firmware (samsung,secure-firmware) releases "
                       "CPUs in non-secure SVC, with no HYP entry");
        return -1;
    }
    if (soc_smp_node_reg(fdt, pmu, &s->reg[EXY_PMU],
                         EXYNOS_ARM_CORE_STATUS((unsigned int)PLAT_MAX_CPUS) + 4u) != 0) {
        (void)snprintf(err, errlen, "no %s node", pmu);
        return -1;
    }
    if (soc_smp_node_reg(fdt, "samsung,exynos4210-sysram", &s->reg[EXY_BOOT],
                         boot_off + 4u) != 0) {
        (void)snprintf(err, errlen, "no samsung,exynos4210-sysram node (the boot register)");
        return -1;
    }
    s->reg[EXY_BOOT] += boot_off;
    return 0;
}

static int exynos5250_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                            char *err, size_t errlen)
{
    return exynos_probe(fdt, p, s, err, errlen, "samsung,exynos5250-pmu", 0);
}

static int exynos5420_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                            char *err, size_t errlen)
{
    return exynos_probe(fdt, p, s, err, errlen, "samsung,exynos5420-pmu", 4);
}

static int exynos5410_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                            char *err, size_t errlen)
{
    return exynos_probe(fdt, p, s, err, errlen, "samsung,exynos5410-pmu", 0);
}

static unsigned int exynos_plan(const struct plat_soc_smp *s, const struct plat_cpu *c,
                                uint32_t entry_pa, struct soc_step st[SOC_MAX_STEPS])
{
    uint32_t core = c->mpidr & 0xffu;
    if ((core == 0u) || (core >= (unsigned int)PLAT_MAX_CPUS) || ((c->mpidr & 0xffff00u) != 0u)) {
        return 0;
    }
    uint64_t conf = s->reg[EXY_PMU] + EXYNOS_ARM_CORE_CONFIGURATION(core);
    uint64_t stat = s->reg[EXY_PMU] + EXYNOS_ARM_CORE_STATUS(core);
    /* on (a no-op for a core that is on), and wait for the PMU to say so */
    st[0] = (struct soc_step){ STEP_UPDATE, conf, S5P_CORE_LOCAL_PWR_EN, S5P_CORE_LOCAL_PWR_EN };
    st[1] = (struct soc_step){ STEP_POLL, stat, S5P_CORE_LOCAL_PWR_EN, S5P_CORE_LOCAL_PWR_EN };
    st[2] = (struct soc_step){ STEP_WRITE, s->reg[EXY_BOOT], 0, entry_pa };
    return 3;
}

const struct soc_smp_method soc_smp_exynos[] = {
    { "samsung,exynos5250", false, "Exynos PMU + SYSRAM boot register",
      "arch/arm/mach-exynos/platsmp.c", 0, 0, exynos5250_probe, exynos_plan },
    { "samsung,exynos5410", false, "Exynos PMU + SYSRAM boot register",
      "arch/arm/mach-exynos/platsmp.c", 0, 0, exynos5410_probe, exynos_plan },
    { "samsung,exynos5420", false, "Exynos PMU + SYSRAM boot register",
      "arch/arm/mach-exynos/platsmp.c", 0, 0, exynos5420_probe, exynos_plan },
    { "samsung,exynos5800", false, "Exynos PMU + SYSRAM boot register",
      "arch/arm/mach-exynos/platsmp.c", 0, 0, exynos5420_probe, exynos_plan },
    { NULL, false, NULL, NULL, 0, 0, NULL, NULL },
};
