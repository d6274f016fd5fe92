/*
 * Memory-bandwidth budgets left out of the image (docs/building.md,
 * "Rooms"): linked instead of budget.c, budget_ctl.c and budget_pool.c.
 * No guest has a budget (hyp/config/config_budget_none.c refuses them),
 * so nothing counts and nothing is held.
 */
#include "budget.h"

bool budget_init(const struct system_config *sys, struct vm *(*vm_of)(unsigned int i))
{
    return true;
}

void budget_vcpu_on(struct vcpu *v)
{
}

bool budget_fill(unsigned int id, struct partita_budget *o)
{
    return false;
}

bool budget_set(unsigned int id, uint32_t events, uint32_t period_us)
{
    return false;
}
