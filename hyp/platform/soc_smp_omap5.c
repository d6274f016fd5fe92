/*
 * TI OMAP5 and DRA7/AM57xx (dual Cortex-A15): the second CPU waits in the
 * boot ROM, which sends it to the address in the MPU wakeup generator's
 * AUX_CORE_BOOT_1 once it is woken; Linux then holds it until
 * AUX_CORE_BOOT_0 names it.  Followed: Linux arch/arm/mach-omap2/omap-smp.c
 * (omap4_smp_prepare_cpus, omap4_boot_secondary: on OMAP5/DRA7, where
 * omap_secure_apis_support() is false, plain stores to AUX_CORE_BOOT_1 and
 * then 0x20 to AUX_CORE_BOOT_0, dsb_sev) and omap-headsmp.S
 * (omap5_secondary_hyp_startup: a CPU is held until AUX_CORE_BOOT_0 >> 5 is
 * its MPIDR CPU number, then the ROM's secure API call API_HYP_ENTRY,
 * r12 = 0x102, r0 = where to go, returns it in HYP mode).
 *
 * The ROM starts the CPU in non-secure SVC mode, where Partita cannot run:
 * secondary_soc_entry makes the same two ROM calls Linux's secondary path
 * makes, set_cntfreq() (OMAP5_DRA7_MON_SET_CNTFRQ_INDEX, r12 = 0x109,
 * r0 = the boot CPU's CNTFRQ: only the secure side can write it) and then
 * API_HYP_ENTRY back to itself, now in HYP.  Partita's own pen holds the
 * CPU until its turn, so the AUX_CORE_BOOT_0 store only matches Linux's.
 *
 * The wakeup generator's base comes from the DT's ti,omap4-wugen-mpu node
 * (0x48281000 on both SoCs: omap5.dtsi, dra7.dtsi; AUX_CORE_BOOT0_PA
 * 0x48281800 in omap-headsmp.S).
 */
#include <stdio.h>
#include "soc_smp.h"

#define WUGEN_AUX_CORE_BOOT_0 0x800u    /* omap-wakeupgen.h OMAP_AUX_CORE_BOOT_0 */
#define WUGEN_AUX_CORE_BOOT_1 0x804u    /* OMAP_AUX_CORE_BOOT_1 */
#define AUX_CORE_BOOT_0_CPU_SHIFT 5     /* omap-headsmp.S: "lsr #5", MPIDR CPU */
#define OMAP_API_HYP_ENTRY 0x102        /* omap-secure.h API_HYP_ENTRY */
#define OMAP5_DRA7_MON_SET_CNTFRQ 0x109 /* omap-secure.h OMAP5_DRA7_MON_SET_CNTFRQ_INDEX */
#define OMAP5_CORES 2u                  /* omap-smp.c OMAP5_CORE_COUNT */

static int omap5_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                       char *err, size_t errlen)
{
    if (soc_smp_node_reg(fdt, "ti,omap4-wugen-mpu", &s->reg[0],
                         WUGEN_AUX_CORE_BOOT_1 + 4u) != 0) {
        (void)snprintf(err, errlen, "no ti,omap4-wugen-mpu node with AUX_CORE_BOOT registers");
        return -1;
    }
    return 0;
}

static unsigned int omap5_plan(const struct plat_soc_smp *s, const struct plat_cpu *c,
                               uint32_t entry_pa, struct soc_step st[SOC_MAX_STEPS])
{
    uint32_t cpu = c->mpidr & 0xffu;
    if (((c->mpidr & 0xffff00u) != 0u) || (cpu == 0u) || (cpu >= OMAP5_CORES)) {
        return 0;       /* the ROM waits for CPU 1 of cluster 0 only */
    }
    st[0] = (struct soc_step){ STEP_WRITE, s->reg[0] + WUGEN_AUX_CORE_BOOT_1, 0, entry_pa };
    st[1] = (struct soc_step){ STEP_WRITE, s->reg[0] + WUGEN_AUX_CORE_BOOT_0, 0,
                               cpu << AUX_CORE_BOOT_0_CPU_SHIFT };
    return 2;
}

const struct soc_smp_method soc_smp_omap5[] = {
    { "ti,omap5", false, "TI OMAP5 AUX_CORE_BOOT + ROM HYP entry",
      "arch/arm/mach-omap2/omap-smp.c", OMAP_API_HYP_ENTRY, OMAP5_DRA7_MON_SET_CNTFRQ,
      omap5_probe, omap5_plan },
    { "ti,dra7", false, "TI DRA7 AUX_CORE_BOOT + ROM HYP entry",
      "arch/arm/mach-omap2/omap-smp.c", OMAP_API_HYP_ENTRY, OMAP5_DRA7_MON_SET_CNTFRQ,
      omap5_probe, omap5_plan },
    { NULL, false, NULL, NULL, 0, 0, NULL, NULL },
};
