/*
 * The memory-bandwidth budgets of the partitions, as the monitor and the
 * control partition see and change them (budget.h); the PMU and timer side
 * is budget.c.  No registers here: the host unit tests link it.
 */
#include <string.h>
#include <partita/manage_abi.h>
#include "budget.h"
#include "budget_internal.h"
#include "hyp/config/guest_config.h"

struct budget budgets[GUEST_MAX];

bool budget_fill(unsigned int id, struct partita_budget *o)
{
    if (id >= GUEST_MAX || !budgets[id].pool.events) {
        return false;
    }
    struct budget *b = &budgets[id];
    spin_lock(&b->lock);
    const struct budget_pool p = b->pool;
    spin_unlock(&b->lock);
    (void)memset(o, 0, sizeof(*o));
    o->events = p.events;
    o->period_us = p.period_us;
    o->next_events = p.next_events;
    o->next_period_us = p.next_period_us;
    o->event = budgets[id].event;
    o->period = p.period;
    o->last_used_lo = (uint32_t)p.last_used;
    o->last_used_hi = (uint32_t)(p.last_used >> 32);
    o->periods = p.periods;
    o->overruns = p.overruns;
    o->max_over_lo = (uint32_t)p.max_over;
    o->max_over_hi = (uint32_t)(p.max_over >> 32);
    o->total_used_lo = (uint32_t)p.total_used;
    o->total_used_hi = (uint32_t)(p.total_used >> 32);
    o->total_allowed_lo = (uint32_t)p.total_allowed;
    o->total_allowed_hi = (uint32_t)(p.total_allowed >> 32);
    o->throttles = p.throttles;
    return true;
}

bool budget_set(unsigned int id, uint32_t events, uint32_t period_us)
{
    if (id >= GUEST_MAX || !budgets[id].pool.events || period_us < GUEST_BUDGET_PERIOD_MIN_US ||
        period_us > GUEST_BUDGET_PERIOD_MAX_US) {
        return false;
    }
    struct budget *b = &budgets[id];
    spin_lock(&b->lock);
    bool ok = budget_pool_set(&b->pool, events, period_us);
    spin_unlock(&b->lock);
    return ok;
}
