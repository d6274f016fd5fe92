/* A guest's RAM in its Stage-2 (guest_ram.c); pure, unit-tested */
#ifndef HYP_GUEST_RAM_H
#define HYP_GUEST_RAM_H

#include "hyp/config/guest_config.h"
#include "mm/stage2.h"

/* Map the guest's RAM at its IPA: 0, or -1 when a table cannot be had */
int guest_ram_map(struct stage2 *s2, const struct guest_config *c);

#endif
