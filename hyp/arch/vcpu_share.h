/*
 * What a vCPU on a shared CPU keeps while it is away (hyp/sched/sched_share.c
 * runs the turns): its VFP registers, switched lazily by the HCPTR trap,
 * its PMU, and its place in the CPU's round.
 */
#ifndef HYP_ARCH_VCPU_SHARE_H
#define HYP_ARCH_VCPU_SHARE_H

#include <stdint.h>
#include <stdbool.h>
#include "vfp.h"
#include "pmu.h"

struct vcpu;

struct vcpu_share {
    struct vcpu_vfp vfp;
    struct vcpu *next;          /* ring of the vCPUs on this CPU */
    int64_t budget;             /* counter ticks left in this round */
    uint64_t slice;             /* the guest's time-slice-us in ticks */
    bool blocked;               /* in WFI, away until it has an interrupt */
    bool boost;                 /* woken with budget: runs ahead of its turn */
    bool ppi_active;            /* the virtual timer's PPI was active */
    bool pmu_ppi_active;        /* so was the PMU's */
    struct pmu_regs pmu;        /* its PMU while away, once it used it */
    uint32_t switches;          /* times it was put on its CPU */
    uint64_t run_ticks;         /* time it ran */
};

#endif
