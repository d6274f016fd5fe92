/*
 * Secondary CPUs started the way each SoC's Linux port starts them (issue
 * 20): a table of start methods, one small file per family
 * (soc_smp_<family>.c), keyed by the DT's enable-method or the SoC's root
 * compatible, each entry citing the Linux file it follows.  A method reads
 * its register blocks from the DT (never a built-in address for a SoC it
 * does not know) and turns a CPU's start into a plan: register stores,
 * read-modify-writes, polls and delays.  Plans are pure, so the host unit
 * tests run them against register models of the real boards' DTs;
 * boot/smp.c carries them out on the hardware with soc_smp_run().
 *
 * However a SoC's boot ROM lets a secondary go, it enters Partita at
 * secondary_soc_entry (boot/entry.S), which takes it to non-secure HYP
 * from any mode it can: HYP as is; secure SVC/MON through Partita's secure
 * per-CPU set-up (boot/secure.S); non-secure SVC only through a ROM's HYP
 * entry call that the method names (TI OMAP5/DRA7: hyp_entry_smc).
 */
#ifndef HYP_PLATFORM_SOC_SMP_H
#define HYP_PLATFORM_SOC_SMP_H

#include <stdint.h>
#include <stddef.h>
#include "platform.h"

enum soc_step_op {
    STEP_WRITE,         /* *pa = value */
    STEP_UPDATE,        /* *pa = (*pa & ~mask) | value */
    STEP_POLL,          /* wait until (*pa & mask) == value */
    STEP_DELAY_US,      /* wait value microseconds */
};

struct soc_step {
    enum soc_step_op op;
    uint64_t pa;
    uint32_t mask, value;
};

#define SOC_MAX_STEPS 20

struct soc_smp_method {
    const char *key;            /* the enable-method, or a root compatible */
    bool by_enable_method;      /* key is an enable-method (else a compatible) */
    const char *name;           /* what the tables print */
    const char *source;         /* the Linux file it follows */
    uint32_t hyp_entry_smc;     /* non-secure SVC -> HYP ROM call (r12), 0: none */
    uint32_t cntfrq_smc;        /* ROM call setting CNTFRQ (r12, r0 = Hz), 0: none */
    /* the register blocks into s->reg, per-CPU data into p->cpus; 0 or -1 + err */
    int (*probe)(const void *fdt, struct platform *p, struct plat_soc_smp *s,
                 char *err, size_t errlen);
    /* CPU c's start, entering at entry_pa, into st; how many steps (0: cannot) */
    unsigned int (*plan)(const struct plat_soc_smp *s, const struct plat_cpu *c,
                         uint32_t entry_pa, struct soc_step st[SOC_MAX_STEPS]);
};

/* the families (one file each) */
extern const struct soc_smp_method soc_smp_omap5[], soc_smp_rockchip[], soc_smp_aspeed[],
    soc_smp_exynos[], soc_smp_sunxi[];

/*
 * Match the DT against the table and probe the method: CPUs still without
 * a method get CPU_METHOD_SOC when it can feed the method.  A method that
 * matches but cannot be fed leaves p->soc_smp.err saying why.
 */
void soc_smp_probe(const void *fdt, struct platform *p);

/* CPU c's plan (0 steps: the method cannot start this CPU) */
unsigned int soc_smp_plan(const struct platform *p, const struct plat_cpu *c, uint32_t entry_pa,
                          struct soc_step st[SOC_MAX_STEPS]);

/* The hardware (or a register model) a plan runs on. */
struct soc_io {
    uint32_t (*read32)(void *ctx, uint64_t pa);
    void (*write32)(void *ctx, uint64_t pa, uint32_t v);
    void (*delay_us)(void *ctx, uint32_t us);
    void *ctx;
};

#define SOC_POLL_TIMEOUT_US 10000

/* Carry out a plan: 0, or the index + 1 of the step that timed out */
int soc_smp_run(const struct soc_step *st, unsigned int n, const struct soc_io *io);

/* the DT's reg 0 of the first enabled node compatible with compat; 0 or -1 */
int soc_smp_node_reg(const void *fdt, const char *compat, uint64_t *base, uint64_t min_size);

#endif
