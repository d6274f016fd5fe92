/*
 * Disks left out of the image (docs/building.md, "Rooms"): linked instead
 * of config_disk.c, a disk node is refused by name.
 */
#include <libfdt.h>
#include "config_internal.h"

bool config_is_disk(const void *fdt, int node)
{
    return fdt_node_check_compatible(fdt, node, "partita,disk") == 0;
}

void config_parse_disk(const void *fdt, int node, struct system_config *sys, struct cfg_ctx *c)
{
    cfg_room_absent(c, "node", fdt_get_name(fdt, node, NULL), "compatible", "disks");
}

void config_check_disks(struct system_config *sys, struct cfg_ctx *c)
{
}
