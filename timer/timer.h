/* Generic timer (ARM ARM B8): the counter as the hypervisor's clock. */
#ifndef TIMER_TIMER_H
#define TIMER_TIMER_H

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

#endif
