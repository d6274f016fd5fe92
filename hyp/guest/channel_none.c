/*
 * Channels left out of the image (docs/building.md, "Rooms"): linked
 * instead of channel.c; the configuration has none
 * (hyp/config/config_channel_none.c refuses them).
 */
#include <partita/hvc.h>
#include "channel.h"

void channels_init(const struct system_config *sys)
{
}

void channel_print_map(void)
{
}

void channel_print_stats(const struct guest *g)
{
}

void channel_counts(const struct guest *g, unsigned int k, uint32_t *rung, uint32_t *raised)
{
    *rung = 0u;
    *raised = 0u;
}

int channel_map(const struct guest_config *c, struct stage2 *s2)
{
    return 0;
}

int channel_guest_start(struct guest *g)
{
    return 0;
}

/* as channel.c's answer to a guest that is member of no channel */
int channel_ring(struct guest *g, uint32_t id)
{
    return PSCI_INVALID_PARAMETERS;
}
