/* The accounting of memory-bandwidth budgets: budget_pool.h says why so. */
#include <string.h>
#include "budget_pool.h"

void budget_pool_init(struct budget_pool *p, uint32_t events, uint32_t period_us,
                      uint32_t nvcpus)
{
    (void)memset(p, 0, sizeof(*p));
    p->events = p->next_events = events;
    p->period_us = p->next_period_us = period_us;
    p->nvcpus = nvcpus ? nvcpus : 1u;
    p->left = events;
    p->allowed[0] = events;
}

uint32_t budget_pool_draw(struct budget_pool *p)
{
    if (p->left <= 0) {
        return 0;
    }
    uint64_t left = (uint64_t)p->left;
    uint64_t share = (p->nvcpus == 1u) ? left : (left / (2u * p->nvcpus));
    if (share < BUDGET_GRANT_MIN) {
        share = (left < BUDGET_GRANT_MIN) ? left : BUDGET_GRANT_MIN;
    }
    /* a counter counts 2^32 events at most before it wraps twice */
    if (share > 0x7fffffffu) {
        share = 0x7fffffffu;
    }
    p->left -= (int64_t)share;
    return (uint32_t)share;
}

void budget_pool_charge(struct budget_pool *p, uint32_t k, uint32_t grant, uint32_t n)
{
    p->used[k & 1u] += n;
    /* the skid is paid from what is left (of the period in force, also for
     * a CPU still charging the last one: the debt moves on with the pool) */
    if (n > grant) {
        uint32_t skid = n - grant;
        p->left -= (int64_t)skid;
    }
}

void budget_pool_open(struct budget_pool *p, uint32_t k)
{
    uint32_t ahead = k - p->period;     /* serial numbers: k is new if ahead */
    if ((int32_t)ahead <= 0) {
        return;
    }
    /* only k - 2 shares the slot k takes; every CPU charged it at its own
     * refill for k - 1, long before this one (a period apart) */
    unsigned int s = k & 1u;
    if (k >= 2u) {
        uint64_t u = p->used[s], a = p->allowed[s];
        p->last_used = u;
        p->periods++;
        p->total_used += u;
        p->total_allowed += a;
        if (u > a) {
            p->overruns++;
            if (u - a > p->max_over) {
                p->max_over = u - a;
            }
        }
    }
    p->events = p->next_events;
    p->period_us = p->next_period_us;
    p->used[s] = 0u;
    p->allowed[s] = p->events;
    /* what was counted past the last pool (skids, an overflow seen late)
     * is owed: the new pool is that much smaller, down to nothing for as
     * many periods as it takes */
    p->left = (int64_t)p->events + (p->left < 0 ? p->left : 0);
    p->period = k;
}

bool budget_pool_set(struct budget_pool *p, uint32_t events, uint32_t period_us)
{
    if (!events || !period_us) {
        return false;
    }
    p->next_events = events;
    p->next_period_us = period_us;
    return true;
}
