/*
 * A channel's doorbell page (docs/channels.md): the 4 KiB after the
 * channel's memory in each member, 32-bit registers only, at the offsets
 * of include/partita/chan_doorbell.h (CHAN_DB_*), the guests' own header.
 * Writing CHAN_DB_RING hands the ring to the page's sink, which raises
 * the doorbell in every other running member (hyp/guest/channel.c, the
 * wiring of a guest's channels): the device knows no guest, only its
 * channel, its member's index and its counters.
 */
#ifndef HYP_DOORBELL_H
#define HYP_DOORBELL_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/vdev/mmio.h"

struct doorbell;

/* Ring every other member of d's channel (the sink, set by the wiring) */
typedef void (*doorbell_ring_fn)(struct doorbell *d);

struct doorbell {
    uint32_t channel;           /* the channel's id */
    uint32_t member;            /* this member's index in it */
    uint32_t nmembers;          /* of the channel */
    bool read_only;             /* this member maps the memory read-only */
    /* doorbells raised in this member and rung by it since it started:
     * other members' CPUs add to received, so both are atomic */
    uint32_t received;
    uint32_t sent;
    doorbell_ring_fn ring;
};

/* The page's MMIO handler (an mmio_handler_t), dev a struct doorbell:
 * a 32-bit access at a 4-aligned offset, else an abort; reads of offsets
 * without a register return zero, writes to them do nothing */
bool doorbell_mmio(void *dev, struct mmio_access *a, uint32_t off);

#endif
