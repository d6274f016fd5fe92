/*
 * A virtio block device (virtio 1.x section 5.2) of a frontend guest,
 * served by a backend elsewhere (docs/disks.md).  The device takes
 * requests off the frontend's queue, answers at once those blk_parse
 * refuses, and keeps the others in its table of requests in flight, each
 * named to the backend by a tag; the backend copies a write's data out
 * (vblk_write_data) and completes with a status and a read's data
 * (vblk_complete).  The backend never sees an address of the frontend.
 * Pure: the owner gives it the guest's RAM and the hooks.
 *
 * Locks: the device's lock is never held while calling the owner's hooks,
 * so the backend may call in holding its own lock (backend, then device).
 */
#ifndef HYP_VIRTIO_BLK_H
#define HYP_VIRTIO_BLK_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/lib/spinlock.h"
#include "virtio_mmio.h"
#include "blk_req.h"

#define VIRTIO_ID_BLOCK        2u
#define VIRTIO_BLK_F_SIZE_MAX  (1ull << 1)
#define VIRTIO_BLK_F_SEG_MAX   (1ull << 2)
#define VIRTIO_BLK_F_RO        (1ull << 5)
#define VIRTIO_BLK_F_FLUSH     (1ull << 9)
/* the configuration space (5.2.4): capacity le64, size_max, seg_max */
#define VBLK_CONFIG_CAPACITY   0u
#define VBLK_CONFIG_SIZE_MAX   8u
#define VBLK_CONFIG_SEG_MAX    12u
#define VBLK_CONFIG_SIZE       24u
#define VBLK_QUEUE             0u       /* requestq: the one queue */

/*
 * Requests in flight per device: when the table is full, the rest wait in
 * the frontend's queue, taken as completions free slots.  A tag is the
 * slot in its low VBLK_TAG_SLOT_BITS and the slot's use count above, so a
 * completion for a request of an earlier use (before a reset) matches
 * nothing.
 */
#define VBLK_INFLIGHT_MAX      16u
#define VBLK_TAG_SLOT_BITS     8u
#define VBLK_TAG_SLOT_MASK     (((unsigned int)1u << VBLK_TAG_SLOT_BITS) - 1u)
/*
 * The work of one exit (docs/threat-model.md): at most
 * VBLK_REQS_PER_EXIT chains taken, each walked whole (at most QueueNum
 * descriptors), and each moving at most BLK_DATA_MAX bytes; requests left
 * go on at the next notify, InterruptStatus read or completion.
 */
#define VBLK_REQS_PER_EXIT     16u

struct vblk;

struct vblk_ops {
    /* a request for the backend, tag naming it */
    void (*submit)(void *ctx, struct vblk *b, uint32_t tag);
    /* the frontend's requests in flight are dropped (reset, detach) */
    void (*dropped)(void *ctx, struct vblk *b);
    void (*raise)(void *ctx);
    void (*report)(void *ctx, const char *why);
};

struct vblk_slot {
    bool busy;
    uint16_t head;
    uint32_t use;                       /* bumped at every take and drop */
    struct blk_req req;
    struct virtq_seg segs[BLK_CHAIN_MAX];
};

struct vblk_stats {
    uint32_t requests;                  /* taken off the queue */
    uint32_t answered;                  /* answered at once (IOERR, UNSUPP) */
    uint32_t completed;                 /* completed by the backend */
    uint32_t failed;                    /* answered with a status other than OK */
    uint64_t read_bytes;                /* of the reads completed OK */
    uint64_t written_bytes;             /* of the writes completed OK */
    uint32_t bad_completions;           /* matching nothing, or failed for a wrong
                                         * length or status (IOERR) */
    uint32_t dropped;                   /* in flight at a reset or detach */
    uint32_t errors;                    /* malformed rings (NEEDS_RESET) */
};

struct vblk {
    struct vmmio dev;                   /* first: config_read finds the device */
    spinlock_t lock;
    bool attached;
    uint64_t capacity;
    bool read_only;
    const struct vblk_ops *ops;
    void *ctx;
    uint32_t epoch;                     /* dev.epoch the slots belong to */
    struct vblk_slot slot[VBLK_INFLIGHT_MAX];
    struct vblk_stats st;
};

/* Its counters, a snapshot under its lock */
void vblk_stats_get(struct vblk *b, struct vblk_stats *out);
void vblk_init(struct vblk *b, const struct vblk_ops *ops, void *ctx, uint64_t capacity,
               bool read_only);
void vblk_attach(struct vblk *b, struct gmem mem);
/* Its guest stops: the requests in flight are dropped, its RAM never
 * touched again until it is attached */
void vblk_detach(struct vblk *b);
/* The guest's access to the registers (mmio_handler_t) */
bool vblk_mmio(void *dev, struct mmio_access *a, uint32_t off);
/* Take requests off the queue within one exit's bound; submits each */
void vblk_kick(struct vblk *b);
/* The request tag names: its type, sector and length; false when tag
 * names no request in flight */
bool vblk_request(struct vblk *b, uint32_t tag, struct blk_req *r);
/* Copy a write's data (r.len bytes) into dst: false as vblk_request */
bool vblk_write_data(struct vblk *b, uint32_t tag, uint8_t *dst);
/*
 * The backend completes tag with status and, for a read, len bytes of
 * data: 0 done; -1 tag matches nothing in flight (counted, nothing else
 * changes); -2 the status or length is wrong for it (counted, the request
 * fails with IOERR).  Raises the frontend's interrupt if due.
 */
int vblk_complete(struct vblk *b, uint32_t tag, uint8_t status, const uint8_t *data,
                  uint32_t len);

#endif
