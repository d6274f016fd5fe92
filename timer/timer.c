#include <arch/sysregs.h>
#include "timer.h"

static uint32_t freq;

void timer_init(const struct platform *p)
{
    /* CNTFRQ is set by firmware (or by us in a secure start); the DT's
     * clock-frequency overrides it where firmware left it wrong. */
    freq = p->timer.clock_frequency ? p->timer.clock_frequency : sysreg_read_cntfrq();
    if (!freq) {
        freq = 62500000u;   /* CNTFRQ unset and no DT value: assume 62.5 MHz */
    }
}

uint32_t timer_freq(void)
{
    return freq;
}

uint64_t timer_now(void)
{
    isb();  /* CNTPCT reads may be speculated early without it (B8.1.2) */
    return sysreg_read_cntpct();
}

uint64_t timer_ticks_to_us(uint64_t ticks)
{
    return ticks * 1000000ULL / freq;
}

void timer_udelay(uint32_t us)
{
    uint64_t end = timer_now() + (uint64_t)us * freq / 1000000ULL;
    while (timer_now() < end) {
        ;
    }
}
