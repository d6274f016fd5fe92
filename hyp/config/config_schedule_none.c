/*
 * Cyclic schedules left out of the image (docs/building.md, "Rooms"):
 * linked instead of config_schedule.c, a schedule node is refused by name.
 */
#include <libfdt.h>
#include "config_internal.h"

bool config_is_schedule(const void *fdt, int node)
{
    return fdt_node_check_compatible(fdt, node, "partita,schedule") == 0;
}

void config_parse_schedule(const void *fdt, int node, struct system_config *sys,
                           struct cfg_ctx *c)
{
    cfg_room_absent(c, "node", fdt_get_name(fdt, node, NULL), "compatible", "schedules");
}

void config_check_schedules(const struct config_host *h, struct system_config *sys,
                            struct cfg_ctx *c)
{
}

bool config_cpu_scheduled(const struct system_config *sys, unsigned int cpu)
{
    return false;
}
