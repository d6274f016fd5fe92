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

#endif
