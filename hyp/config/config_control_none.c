/*
 * The control partition left out of the image (docs/building.md,
 * "Rooms"): linked instead of config_control.c, a guest's control or
 * control-guests is refused by name.
 */
#include "config_internal.h"

void config_parse_control(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    g->control = 0u;
    g->control_guests = 0u;
    cfg_prop_absent(fdt, node, g->name, "control", "the control partition", c);
    cfg_prop_absent(fdt, node, g->name, "control-guests", "the control partition", c);
}

void config_check_control(const void *fdt, int root, struct system_config *sys,
                          struct cfg_ctx *c)
{
}
