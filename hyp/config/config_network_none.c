/*
 * Networks left out of the image (docs/building.md, "Rooms"): linked
 * instead of config_network.c, a network node is refused by name.
 */
#include <libfdt.h>
#include "config_internal.h"

bool config_is_network(const void *fdt, int node)
{
    return fdt_node_check_compatible(fdt, node, "partita,network") == 0;
}

void config_parse_network(const void *fdt, int node, struct system_config *sys,
                          struct cfg_ctx *c)
{
    cfg_room_absent(c, "node", fdt_get_name(fdt, node, NULL), "compatible", "networks");
}

void config_check_networks(struct system_config *sys, struct cfg_ctx *c)
{
}
