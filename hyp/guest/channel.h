/*
 * Channels at run time (docs/channels.md): the shared memory mapped into
 * each member's Stage-2, the doorbell page each member sees after it, and
 * ringing: a virtual SPI raised in every other member.
 */
#ifndef HYP_CHANNEL_H
#define HYP_CHANNEL_H

#include <stdint.h>
#include "hyp/config/guest_config.h"

struct guest;
struct stage2;

/* The doorbell page: hyp/vdev/doorbell.h, its registers
 * include/partita/chan_doorbell.h's CHAN_DB_* */

/* Boot: clear every channel's memory (nothing of an earlier boot leaks) */
void channels_init(const struct system_config *sys);
/* The channels' lines of the monitor's memory map */
void channel_print_map(void);
/* The guest's channels for `stats`: doorbells rung and raised in it */
void channel_print_stats(const struct guest *g);
/* the doorbells of g's k-th channel: rung by it, raised in it */
void channel_counts(const struct guest *g, unsigned int k, uint32_t *rung, uint32_t *raised);
/* Stage-2 entries for the guest's channels (at guest start) */
int channel_map(const struct guest_config *c, struct stage2 *s2);
/* The doorbell pages on the guest's MMIO bus, counters reset (at guest start) */
int channel_guest_start(struct guest *g);
/* Ring channel id from guest g: 0, or -2 (PSCI_INVALID_PARAMETERS) if g is no member */
int channel_ring(struct guest *g, uint32_t id);
/* channel_at, channel_max_doorbell: hyp/config/channel_query.h */
#include "hyp/config/channel_query.h"

#endif
