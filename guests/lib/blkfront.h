/*
 * A small virtio-mmio block driver for test guests (virtio 1.x section
 * 5.2, modern register layout): one queue, one request at a time, polled.
 * A request is a header, up to BLKFRONT_SEGS data buffers of 4 KiB (the
 * device's SIZE_MAX) and a status byte.  The guest runs with its MMU and
 * caches on (mmu_enable), as the device is DMA coherent.
 */
#ifndef GUEST_BLKFRONT_H
#define GUEST_BLKFRONT_H

#include "guest.h"

#define BLKFRONT_QN      32              /* a chain of BLKFRONT_SEGS + 2 */
#define BLKFRONT_SEG     4096u
#define BLKFRONT_SEGS    16u
#define BLKFRONT_MAX     (BLKFRONT_SEG * BLKFRONT_SEGS)     /* bytes a request */
#define BLKFRONT_T_IN    0u
#define BLKFRONT_T_OUT   1u
#define BLKFRONT_T_FLUSH 4u
#define BLKFRONT_S_OK    0u
#define BLKFRONT_S_IOERR 1u
#define BLKFRONT_F_RO    (1u << 5)

struct blkfront_desc { uint64_t addr; uint32_t len; uint16_t flags, next; };

struct blkfront {
    uint32_t base, irq;
    uint64_t capacity;                  /* sectors */
    uint32_t features;                  /* the device's low word */
    struct blkfront_desc desc[BLKFRONT_QN] __attribute__((aligned(16)));
    volatile uint16_t avail[2 + BLKFRONT_QN + 1] __attribute__((aligned(4)));
    volatile uint32_t used[1 + 2 * BLKFRONT_QN + 1] __attribute__((aligned(4)));
    uint16_t avail_idx, last_used;
    struct { uint32_t type, reserved; uint64_t sector; } hdr __attribute__((aligned(16)));
    volatile uint8_t status;
};

/* From bootargs "blk=BASE,INTID": probe, negotiate, set the queue up.
 * false (and why printed) when there is no device or it refuses. */
bool blkfront_setup(struct blkfront *b);
/* One request: len bytes (a multiple of 512, at most BLKFRONT_MAX) of
 * buf to or from sector; waits for it.  The status byte the device wrote */
uint8_t blkfront_rw(struct blkfront *b, uint32_t type, uint64_t sector, void *buf, uint32_t len);
/* The same request given to the device, not waited for (the next
 * blkfront_rw would take its answer for its own: set the device up again) */
void blkfront_post(struct blkfront *b, uint32_t type, uint64_t sector, void *buf, uint32_t len);

#endif
