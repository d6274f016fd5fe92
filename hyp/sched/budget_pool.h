/*
 * The accounting of a partition's memory-bandwidth budget
 * (docs/configuration.md, "Memory-bandwidth budgets"): events per period,
 * pooled over all the partition's vCPUs.  Plain arithmetic, no registers
 * (hyp/sched/budget.c programs the PMU with it), so that the host unit
 * tests run it as it is.
 *
 * Why a pool with grants: each vCPU counts on its own CPU's reserved
 * counter, which can only be told "interrupt after N more events".  A CPU
 * takes a grant from the pool, programs its counter to overflow when the
 * grant is spent, and at that overflow charges what it counted and draws
 * the next grant.  The sum of the grants never exceeds the pool, so the
 * partition as a whole counts at most its budget plus, per vCPU, the
 * events between an overflow and the hypervisor taking its interrupt (the
 * skid, charged as debt at the next draw).  A vCPU that finds the pool
 * empty stops until the period ends; the others run on until their own
 * grants are spent.  Grants are a share of what is left (half of an equal
 * share when there are several vCPUs, all of it for one), never less than
 * BUDGET_GRANT_MIN events, so that the overflows per period stay few (about
 * 2 x vCPUs x log2(budget / BUDGET_GRANT_MIN)) and a vCPU idle with a
 * grant in hand holds back little of the pool.
 */
#ifndef HYP_SCHED_BUDGET_POOL_H
#define HYP_SCHED_BUDGET_POOL_H

#include <stdint.h>
#include <stdbool.h>

#define BUDGET_GRANT_MIN 256u

struct budget_pool {
    uint32_t events, period_us;         /* in force this period */
    uint32_t next_events, next_period_us;   /* from the next period on */
    uint32_t nvcpus;
    uint32_t period;                    /* the number of the period in force */
    int64_t left;                       /* events of this period not granted yet */
    /* what each of the last two periods counted and allowed (by parity:
     * a CPU charges its tail of period k at its refill for k + 1, which
     * may come after another CPU opened k + 1) */
    uint64_t used[2];
    uint32_t allowed[2];
    /* statistics, of the complete periods */
    uint64_t last_used, max_over;       /* max_over: the most over a budget */
    uint64_t total_used, total_allowed; /* over all of them */
    uint32_t periods, overruns;         /* overruns: periods over their budget */
    uint32_t throttles;                 /* vCPUs stopped for an empty pool */
};

/* a pool of events per period_us for nvcpus vCPUs; period 0 open */
void budget_pool_init(struct budget_pool *p, uint32_t events, uint32_t period_us,
                      uint32_t nvcpus);
/* the next grant, taken from the pool; 0: the pool is spent */
uint32_t budget_pool_draw(struct budget_pool *p);
/* a CPU counted n events in period k (its grant and skid); what it counted
 * past its grant (skid) is taken from the pool in force */
void budget_pool_charge(struct budget_pool *p, uint32_t k, uint32_t grant, uint32_t n);
/* period k begins (a no-op if it already has): the next budget in force,
 * the pool full less what the last one was overdrawn by, the period k - 2
 * complete in the statistics */
void budget_pool_open(struct budget_pool *p, uint32_t k);
/* a new budget from the next period on; false if events or period_us is 0 */
bool budget_pool_set(struct budget_pool *p, uint32_t events, uint32_t period_us);

#endif
