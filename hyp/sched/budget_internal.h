/* What budget.c (the PMU, the timer) and budget_ctl.c (reading and
 * changing budgets) share; not for the rest of the hypervisor. */
#ifndef HYP_SCHED_BUDGET_INTERNAL_H
#define HYP_SCHED_BUDGET_INTERNAL_H

#include <stdint.h>
#include "budget_pool.h"
#include "hyp/config/guest_config.h"
#include "hyp/lib/spinlock.h"

/* one partition's budget; pool.events 0: it has none */
struct budget {
    spinlock_t lock;
    struct budget_pool pool;
    uint64_t period_end;        /* of the period in force (CNTPCT) */
    uint32_t event;             /* the PMU event counted */
};

extern struct budget budgets[GUEST_MAX];

#endif
