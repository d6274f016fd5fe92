/*
 * Memory-bandwidth budgets left out of the image (docs/building.md,
 * "Rooms"): linked instead of config_budget.c, a guest's memory-budget
 * or memory-budget-event is refused by name.
 */
#include "config_internal.h"

void config_parse_budget(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    cfg_prop_absent(fdt, node, g->name, "memory-budget", "memory-bandwidth budgets", c);
    cfg_prop_absent(fdt, node, g->name, "memory-budget-event", "memory-bandwidth budgets", c);
}

void config_check_budget(const struct config_host *h, const struct guest_config *g,
                         struct cfg_ctx *c)
{
}
