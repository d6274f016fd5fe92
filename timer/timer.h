/* Generic timer (ARM ARM B8): the counter as the hypervisor's clock. */
#ifndef TIMER_TIMER_H
#define TIMER_TIMER_H

#include <stdbool.h>
#include <stdint.h>
#include "hyp/platform/platform.h"

void timer_init(const struct platform *p);
uint32_t timer_freq(void);
uint64_t timer_now(void);           /* CNTPCT, counter ticks */
uint64_t timer_ticks_to_us(uint64_t ticks);
void timer_udelay(uint32_t us);

/* A configured period as counter ticks: the one conversion of them (a
 * 32-bit count of us or ms, so the product fits 64 bits at any CNTFRQ) */
static inline uint64_t timer_us_to_ticks(uint32_t us)
{
    return ((uint64_t)us * timer_freq()) / 1000000u;
}

static inline uint64_t timer_ms_to_ticks(uint32_t ms)
{
    return ((uint64_t)ms * timer_freq()) / 1000u;
}

/*
 * A busy wait for another CPU: true once us have passed since t0, looking
 * at the counter only every TIMER_WAIT_LOOKS calls (*looks counts them,
 * from 0).  Under QEMU every counter read takes QEMU's global lock, which
 * the CPU waited for needs to take the interrupt that makes it answer: a
 * waiter reading the counter back to back kept that CPU from its kick for
 * over a second on a loaded host (gdb's halt, test_gdb_reads_only_a_
 * restarted_life, docs/qemu-versions.md).  On a Cortex-A15 a look costs a
 * few loads, so a wait ends at most a few microseconds late.
 */
#define TIMER_WAIT_LOOKS 1024u

static inline bool timer_waited_us(uint64_t t0, uint32_t us, uint32_t *looks)
{
    *looks += 1u;
    return ((*looks % TIMER_WAIT_LOOKS) == 0u) && (timer_ticks_to_us(timer_now() - t0) >= us);
}

#endif
