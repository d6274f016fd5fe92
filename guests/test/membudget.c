/*
 * A memory hog for memory-bandwidth budgets (tests/system/test_budget.py):
 * every vCPU retires instructions as fast as it can, forever - the event
 * the tests budget under -icount is instructions retired (0x08), which
 * QEMU counts exactly there.  vCPU 0 first prints PMCR.N, the counters it
 * was given (one less than the CPU's: the hypervisor keeps the highest).
 *
 * Each vCPU takes its virtual timer's interrupt every TICK_US, as a
 * kernel's tick would: QEMU 7.2 notices a PMU counter's overflow only at
 * the CPU's next exception (target/arm pmevcntr_op_finish arms its timer
 * one event short), so the tick bounds how late the hypervisor sees the
 * budget spent there (on hardware the interrupt comes at once).
 *
 * bootargs hostile=1: it also tries to outrun its budget: interrupts
 * masked, WFE between bursts, and writes that would stop, reset or
 * reprogram the highest counter (selected with PMSELR, through PMCR.P
 * and E, PMCNTENCLR, PMINTENCLR, PMOVSR) - all between its bursts, each
 * a trap, which is when QEMU sees the overflow then.
 */
#include "guest.h"

#define PSCI_CPU_ON     0x84000003u
#define PMU_WR(crm, op2, v) __asm__ volatile("mcr p15, 0, %0, c9, " #crm ", " #op2 \
                                             : : "r"((uint32_t)(v)) : "memory")
#define PMU_RD(crm, op2) ({ uint32_t _v; \
    __asm__ volatile("mrc p15, 0, %0, c9, " #crm ", " #op2 : "=r"(_v)); _v; })
#define PMCR_N(v)       (((v) >> 11) & 0x1f)
#define PMCR_P          (1u << 1)
#define PMCR_C          (1u << 2)
/* Cortex-A15: 6 event counters, so the hypervisor's is number 5 */
#define HIGHEST         5u
#define BURST           100000u
#define TICK_US         50u
#define VTIMER_PPI      27u
#define GICD_CTLR       (GICD_BASE + 0x000)
#define GICD_ISENABLER0 (GICD_BASE + 0x100)
#define GICC_CTLR       (GICC_BASE + 0x000)
#define GICC_PMR        (GICC_BASE + 0x004)
#define GICC_IAR        (GICC_BASE + 0x00c)
#define GICC_EOIR       (GICC_BASE + 0x010)

static uint32_t tick;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) == VTIMER_PPI)
        vtimer_arm(cntvct() + tick);
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

/* this vCPU's tick (its CPU interface and timer PPI are its own) */
static void tick_start(void)
{
    mmio_write32(GICD_ISENABLER0, 1u << VTIMER_PPI);
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
    vtimer_arm(cntvct() + tick);
    __asm__ volatile("cpsie i");
}

static uint32_t hostile;

static void attack(void)
{
    __asm__ volatile("cpsid if");
    PMU_WR(c12, 5, HIGHEST);            /* PMSELR: the hypervisor's counter */
    PMU_WR(c13, 2, 0x80000000u);        /* PMXEVCNTR: far from overflowing */
    PMU_WR(c13, 1, 0);                  /* PMXEVTYPER: another event */
    PMU_WR(c12, 2, ~0u);                /* PMCNTENCLR: every counter off */
    PMU_WR(c14, 2, ~0u);                /* PMINTENCLR: no overflow interrupt */
    PMU_WR(c12, 3, ~0u);                /* PMOVSR: overflows forgotten */
    PMU_WR(c12, 0, PMCR_P | PMCR_C);    /* PMCR: counters reset, E clear */
    for (int i = 0; i < 4; i++)
        __asm__ volatile("sev\n wfe");  /* (the SEV makes the WFE return) */
}

static void __attribute__((noreturn)) work(void)
{
    tick_start();
    for (;;) {
        if (hostile)
            attack();
        uint32_t n = BURST;
        __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n) : : "cc");
    }
}

void guest_secondary(unsigned int cpu)
{
    work();
}

void guest_main(uint32_t dtb)
{
    bootarg_u32("hostile", &hostile);
    tick = (uint32_t)(cntfrq() / (1000000u / TICK_US));
    mmio_write32(GICD_CTLR, 1);
    gprintf("membudget: PMCR.N %lu%s\n", (unsigned long)PMCR_N(PMU_RD(c12, 0)),
            hostile ? ", hostile" : "");
    struct smc_ret r = hvc_call(PSCI_CPU_ON, 1, (uint32_t)secondary_start, 1);
    gprintf("membudget: vCPU 1 on: %ld\n", (long)(int32_t)r.r0);
    work();
}
