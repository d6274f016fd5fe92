/*
 * Channels left out of the image (docs/building.md, "Rooms"): linked
 * instead of config_channel.c, a channel node is refused by name.
 */
#include <libfdt.h>
#include "config_internal.h"

bool config_is_channel(const void *fdt, int node)
{
    return fdt_node_check_compatible(fdt, node, "partita,channel") == 0;
}

void config_parse_channel(const void *fdt, int node, struct system_config *sys,
                          struct cfg_ctx *c)
{
    cfg_room_absent(c, "node", fdt_get_name(fdt, node, NULL), "compatible", "channels");
}

void config_check_channels(const struct config_host *h, struct system_config *sys,
                           struct cfg_ctx *c)
{
}
