/* The fuzz targets of the virtio devices (fuzz_net.c, fuzz_vcon.c): the
 * most work a driver can name in one queue. */
#ifndef TESTS_UNIT_FUZZ_RINGS_H
#define TESTS_UNIT_FUZZ_RINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "hyp/vdev/virtq.h"
#include "fuzz_input.h"

/*
 * Ready queue q's whole descriptor table one chain over the guest's RAM
 * (ram_ipa, ram_size), every avail entry its head.  The lengths are one
 * byte, the whole RAM or the input's; with loops, a flag of the input
 * makes the last descriptor lead back to the first (a chain without end).
 * device_writes: the buffers are the device's to write (a receive queue).
 */
static inline void fuzz_max_chains(const struct virtq *q, bool device_writes, bool loops,
                                   uint64_t ram_ipa, uint32_t ram_size, struct input *in)
{
    if (!q->ready)
        return;
    uint32_t kind = take(in, 1), len = kind % 3 == 0 ? 1 : kind % 3 == 1 ? ram_size : take(in, 4);
    uint16_t flags = (device_writes ? VIRTQ_DESC_F_WRITE : 0) | VIRTQ_DESC_F_NEXT;
    bool loop = loops && (kind & 0x80);
    for (uint32_t i = 0; i < q->num; i++) {
        uint8_t *d = q->d + 16 * i;
        uint16_t f = i + 1 < q->num || loop ? flags : flags & ~VIRTQ_DESC_F_NEXT;
        uint16_t next = (uint16_t)((i + 1) % q->num);
        memcpy(d, &ram_ipa, 8);
        memcpy(d + 8, &len, 4);
        memcpy(d + 12, &f, 2);
        memcpy(d + 14, &next, 2);
    }
    for (uint32_t i = 0; i < q->num; i++)
        memset(q->a + 4 + 2 * i, 0, 2);
    uint16_t idx = (uint16_t)(q->last_avail + q->num);
    memcpy(q->a + 2, &idx, 2);
}

#endif
