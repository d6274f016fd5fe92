/*
 * Hypervisor deadlines on the hypervisor's own physical timer (CNTHP,
 * ARM ARM B8.1.4, PPI 10 = INTID 26): guests never see or touch it.
 * One deadline per physical CPU, with a callback run from its interrupt.
 */
#ifndef TIMER_HYP_TIMER_H
#define TIMER_HYP_TIMER_H

#include <stdint.h>

typedef void (*hyp_timer_fn)(void);

/* once per CPU: take the interrupt, timer off */
void hyp_timer_cpu_init(void);
/* run fn on this CPU when CNTPCT reaches deadline (replaces any earlier) */
void hyp_timer_set(uint64_t deadline, hyp_timer_fn fn);
void hyp_timer_cancel(void);

#endif
