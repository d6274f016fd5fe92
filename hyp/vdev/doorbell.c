/*
 * A channel's doorbell page (doorbell.h): its registers.  What a ring
 * does is the sink's.
 */
#include <partita/chan_doorbell.h>
#include "doorbell.h"

bool doorbell_mmio(void *dev, struct mmio_access *a, uint32_t off)
{
    struct doorbell *d = dev;
    if ((a->size != 4u) || ((off & 3u) != 0u)) {
        return false;       /* an abort: the page has 32-bit registers only */
    }
    if (a->write) {
        if (off == CHAN_DB_RING) {
            d->ring(d);
        }
        return true;
    }
    switch (off) {
    case CHAN_DB_ID:
        a->value = d->channel;
        break;
    case CHAN_DB_MEMBER:
        a->value = d->member | (d->nmembers << CHAN_DB_MEMBER_COUNT_SHIFT) |
                   (d->read_only ? CHAN_DB_MEMBER_READ_ONLY : 0u);
        break;
    case CHAN_DB_RECEIVED:
        a->value = __atomic_load_n(&d->received, __ATOMIC_RELAXED);
        break;
    case CHAN_DB_SENT:
        a->value = __atomic_load_n(&d->sent, __ATOMIC_RELAXED);
        break;
    default:
        a->value = 0u;
        break;
    }
    return true;
}
