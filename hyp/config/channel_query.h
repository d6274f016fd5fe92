/*
 * Questions about a guest's channels that only need its configuration:
 * asked by the trap layer (abort reports) and the guest's vGIC set-up.
 */
#ifndef HYP_CONFIG_CHANNEL_QUERY_H
#define HYP_CONFIG_CHANNEL_QUERY_H

#include <stdint.h>
#include <stddef.h>
#include "guest_config.h"

/* the highest of c's purely virtual SPIs: its channels' doorbells, its
 * network devices' and its virtio console's interrupts (0: none) */
static inline uint32_t channel_max_doorbell(const struct guest_config *c)
{
    uint32_t m = 0u;
    for (unsigned int k = 0u; k < c->nchannels; k++) {
        if (c->channels[k].doorbell > m) {
            m = c->channels[k].doorbell;
        }
    }
    for (unsigned int k = 0u; k < c->nnets; k++) {
        if (c->nets[k].irq > m) {
            m = c->nets[k].irq;
        }
    }
    if (c->vcon && c->vcon_irq > m) {
        m = c->vcon_irq;
    }
    return m;
}

/* the name of c's channel whose window holds ipa, or NULL */
static inline const char *channel_at(const struct guest_config *c, uint64_t ipa)
{
    for (unsigned int k = 0u; k < c->nchannels; k++) {
        if (ipa >= c->channels[k].ipa && ipa - c->channels[k].ipa < c->channels[k].size) {
            return c->channels[k].name;
        }
    }
    return NULL;
}

#endif
