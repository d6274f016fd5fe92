/*
 * Networks left out of the image (docs/building.md, "Rooms"): linked
 * instead of network.c and the virtio network device; the configuration
 * has none (hyp/config/config_network_none.c refuses them).
 */
#include "network.h"

void networks_init(const struct system_config *sys)
{
}

int network_guest_start(struct guest *g)
{
    return 0;
}

void network_guest_stop(struct guest *g)
{
}

void network_print_stats(const struct guest *g)
{
}
