/*
 * The performance monitors (PMUv2, ARM ARM C12 and B4.1.116-B4.1.133) for
 * guests.  Every PMU access of a guest traps (HDCR.TPM, TPMCR) and is
 * carried out on the real registers by pmu_access, which keeps two things
 * true the hardware alone would not: Hyp mode is never counted (PMXEVTYPER
 * and PMCCFILTR lose NSH), and a guest reaches only the counters it was
 * given.  On a CPU of its own a vCPU's PMU state lives in the hardware; on
 * a shared CPU it is saved and restored with the vCPU once it has used the
 * PMU (hyp/sched/sched_share.c), which costs the others nothing.
 */
#ifndef HYP_ARCH_PMU_H
#define HYP_ARCH_PMU_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/sysregs.h>

/* event counters a guest may have (Cortex-A15 has 6, A7 4) */
#define PMU_MAX_COUNTERS 8u
/* the counter bits of PMCNTENSET and friends: event counters, cycle counter */
#define PMU_CCNT_BIT     ((unsigned int)1u << 31)

/* A vCPU's PMU registers while it is away from its (shared) CPU */
struct pmu_regs {
    uint32_t pmcr, selr, userenr, cntenset, intenset, ovsr, ccntr, ccfiltr;
    uint32_t evtyper[PMU_MAX_COUNTERS], evcntr[PMU_MAX_COUNTERS];
};

/* the event counters guests get: PMCR.N, at most PMU_MAX_COUNTERS, read
 * once at boot (pmu_init; HDCR.HPMN), and their bits in PMCNTENSET and
 * friends with the cycle counter's */
extern uint32_t pmu_hpmn, pmu_guest_bits;
/* HDCR's PMU fields for a guest: HPMN, and HPME once a counter is reserved */
extern uint32_t pmu_hdcr;
void pmu_init(void);
/*
 * The highest event counter for the hypervisor (memory-bandwidth budgets,
 * hyp/sched/budget.c), before any guest starts: guests get one counter
 * less.  False if there is none.  pmu_reserved is its number,
 * PMU_NONE_RESERVED before.
 */
#define PMU_NONE_RESERVED 32u
extern unsigned int pmu_reserved;
bool pmu_reserve(void);
/* the reserved counter on this CPU: count event (guests' PL1 and PL0
 * only) from count, its overflow interrupt enabled, an earlier overflow
 * forgotten; and its value now, *ovf its overflow flag */
void pmu_budget_program(uint32_t event, uint32_t count);
uint32_t pmu_budget_read(uint32_t *ovf);
/* Does the CPU have a PMUv2 to give (ID_DFR0.PerfMon)? */
bool pmu_present(void);
/* Nothing counts or interrupts, every counter and filter zero: a PMU no
 * earlier guest left anything in */
void pmu_quiet(void);
/* the loaded vCPU's PMU state out, then stopped (pmu.c: what may stay); and back */
void pmu_save(struct pmu_regs *r);
void pmu_restore(const struct pmu_regs *r);
/*
 * A guest's MRC (read: *val gets the value) or MCR (*val is written) to
 * the PMU register c9, CRm, opc2 (opc1 0), carried out on the real one.
 * False if there is no such register (the guest then takes UNDEFINED).
 */
bool pmu_access(uint32_t crm, uint32_t opc2, bool read, uint32_t *val);
/* an exclusive CPU's vCPU is back: the PMU interrupt enables its
 * overflow took away while it was not (vgic/vgic_hw.c) are its again */
struct pcpu;
void pmu_unpark(struct pcpu *c);

#endif
