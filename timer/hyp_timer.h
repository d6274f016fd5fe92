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

/* once per CPU: take the interrupt, timer off */
void hyp_timer_cpu_init(void);
/* run fn on this CPU when CNTPCT reaches deadline (replaces the slot's
 * earlier deadline; the other slots keep theirs) */
void hyp_timer_set(enum hyp_timer_slot slot, uint64_t deadline, hyp_timer_fn fn);
void hyp_timer_cancel(enum hyp_timer_slot slot);
/* two slots at once with one comparator write (a shared CPU's switch:
 * the slice's end and the first timer of the vCPUs away); a deadline of
 * 0 here cancels its slot */
void hyp_timer_set2(enum hyp_timer_slot a, uint64_t da, enum hyp_timer_slot b, uint64_t db,
                    hyp_timer_fn fn);

#endif
