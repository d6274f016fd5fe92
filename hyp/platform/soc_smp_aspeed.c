/*
 * ASPEED AST2600 (enable-method "aspeed,ast2600-smp").  Followed: Linux
 * arch/arm/mach-aspeed/platsmp.c: the bootloader leaves the second core
 * in WFE polling the SCU's SMP mailbox (aspeed,ast2600-smpmem): BOOT_ADDR
 * at +0, BOOT_SIG at +4.  aspeed_g6_smp_prepare_cpus writes 0xBADABABA to
 * BOOT_SIG; aspeed_g6_boot_secondary writes 0 and then the entry to
 * BOOT_ADDR, then 0xABBAAB00 | the CPU number to BOOT_SIG, dsb_sev.  The
 * CPU number is the core's MPIDR Aff0 (cpu@f00, cpu@f01 in
 * aspeed-g6.dtsi: Linux's logical numbers are the same).
 *
 * The mailbox's address comes from the DT (SCU 0x1e6e2000 + 0x180 in
 * aspeed-g6.dtsi, through the SCU's ranges).  The CPU arrives in the mode
 * the bootloader's pen runs in: secure SVC for ASPEED's U-Boot, which
 * secondary_soc_entry takes to non-secure HYP; HYP as is.
 */
#include <stdio.h>
#include "soc_smp.h"

#define AST_BOOT_ADDR       0x00u
#define AST_BOOT_SIG        0x04u
#define AST_SIG_IDLE        0xbadababau
#define AST_SIG_GO          0xabbaab00u

static int ast2600_probe(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                         char *err, size_t errlen)
{
    if (soc_smp_node_reg(fdt, "aspeed,ast2600-smpmem", &s->reg[0], AST_BOOT_SIG + 4u) != 0) {
        (void)snprintf(err, errlen, "no aspeed,ast2600-smpmem node (the SMP mailbox)");
        return -1;
    }
    return 0;
}

static unsigned int ast2600_plan(const struct plat_soc_smp *s, const struct plat_cpu *c,
                                 uint32_t entry_pa, struct soc_step st[SOC_MAX_STEPS])
{
    uint32_t cpu = c->mpidr & 0xffu;
    if (cpu == 0u) {
        return 0;
    }
    st[0] = (struct soc_step){ STEP_WRITE, s->reg[0] + AST_BOOT_SIG, 0, AST_SIG_IDLE };
    st[1] = (struct soc_step){ STEP_WRITE, s->reg[0] + AST_BOOT_ADDR, 0, 0 };
    st[2] = (struct soc_step){ STEP_WRITE, s->reg[0] + AST_BOOT_ADDR, 0, entry_pa };
    st[3] = (struct soc_step){ STEP_WRITE, s->reg[0] + AST_BOOT_SIG, 0, AST_SIG_GO | cpu };
    return 4;
}

const struct soc_smp_method soc_smp_aspeed[] = {
    { "aspeed,ast2600-smp", true, "ASPEED SCU SMP mailbox", "arch/arm/mach-aspeed/platsmp.c",
      0, 0, ast2600_probe, ast2600_plan },
    { NULL, false, NULL, NULL, 0, 0, NULL, NULL },
};
