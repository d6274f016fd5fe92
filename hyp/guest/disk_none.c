/*
 * Disks left out of the image (docs/building.md, "Rooms"): linked instead
 * of disk.c and the block device; the configuration has none
 * (hyp/config/config_disk_none.c refuses them).
 */
#include <partita/hvc.h>
#include "disk.h"

void disks_init(const struct system_config *sys)
{
}

int disk_guest_start(struct guest *g)
{
    return 0;
}

void disk_guest_stop(struct guest *g)
{
}

/* as disk.c's answer to a guest that drives no disk */
int disk_done(struct guest *g, uint32_t disk)
{
    return PSCI_INVALID_PARAMETERS;
}

/* with no disk configured, a guest has no disk to count or print */
unsigned int disk_guest_counts(const struct guest *g, struct disk_counts *out)
{
    return 0;
}

void disk_print_stats(const struct guest *g)
{
}
