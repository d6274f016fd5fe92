/*
 * Hypervisor deadlines on the hypervisor's own physical timer (CNTHP,
 * ARM ARM B8.1.4, PPI 10 = INTID 26): guests never see or touch it.
 * CNTHP has one comparator per physical CPU; it is multiplexed between a
 * few fixed users (slots), each with one deadline and a callback run from
 * the interrupt.  The comparator always holds the earliest armed deadline.
 */
#ifndef TIMER_HYP_TIMER_H
#define TIMER_HYP_TIMER_H

#include <stdint.h>

typedef void (*hyp_timer_fn)(void);

enum hyp_timer_slot {
    HYP_TIMER_WATCHDOG,     /* boot CPU: the guests' watchdogs */
    HYP_TIMER_SLICE,        /* shared CPUs: end of the running vCPU's slice */
    HYP_TIMER_VTIMER,       /* shared CPUs: a vCPU that is away's virtual timer */
    HYP_TIMER_SLOTS
};
/* exclusive CPUs: the refill of their vCPU's memory-bandwidth budget
 * (hyp/sched/budget.c).  A guest with a budget has its CPUs alone, so the
 * shared CPUs' slot serves, and no slot more makes every shared CPU's
 * switch look at one more deadline */
#define HYP_TIMER_BUDGET HYP_TIMER_SLICE

/* once per CPU: take the interrupt, timer off */
void hyp_timer_cpu_init(void);
/* run fn on this CPU when CNTPCT reaches deadline (replaces the slot's
 * earlier deadline; the other slots keep theirs) */
void hyp_timer_set(enum hyp_timer_slot slot, uint64_t deadline, hyp_timer_fn fn);
void hyp_timer_cancel(enum hyp_timer_slot slot);
/* a shared CPU's switch: the slice's end and the first virtual timer of
 * the vCPUs away (either HYP_TIMER_NEVER: none) in one call, with one
 * comparator write */
#define HYP_TIMER_NEVER (~0ULL)
void hyp_timer_set_share(uint64_t slice_end, uint64_t vtimer, hyp_timer_fn fn);

#endif
