/*
 * The backend side of a disk (docs/disks.md): the requests of its
 * frontends' virtio block devices (virtio_blk.h) moved into the queue in
 * the driver partition's own RAM (include/partita/blk_queue.h), and the
 * answers moved back.  Partita keeps, for every slot it fills, which
 * frontend and which of its requests it is; the driver partition sees a
 * slot, a tag and the request's type, sector, length and data, never an
 * address of a frontend.  Requests wait here while the driver partition
 * is not running or its slots are full; those it held when it stops go
 * to its next life.  Pure: the owner (the guests' lifecycle) attaches and
 * detaches the driver's queue and routes the frontends' hooks here.
 *
 * Locks: the backend's lock, then a frontend's (vblk_* calls under it);
 * a frontend calls in (submit, dropped) holding none of its own.
 */
#ifndef HYP_BLK_BACKEND_H
#define HYP_BLK_BACKEND_H

#include <stdint.h>
#include <stdbool.h>
#include <partita/blk_queue.h>
#include "hyp/config/guest_config.h"
#include "virtio_blk.h"

/* requests waiting for a slot: every frontend's whole table at once */
#define BLKQ_PENDING_MAX       (DISK_MAX_FRONTENDS * VBLK_INFLIGHT_MAX)
/*
 * The work of one call or exit (docs/threat-model.md): at most
 * BLKQ_MOVES_PER_CALL requests put into slots (each a write's data of at
 * most BLK_DATA_MAX bytes) and BLKQ_DONE_PER_CALL answers taken; the rest
 * go on at the driver's next PARTITA_HC_BLK_DONE, which the answers to the
 * requests just moved bring.
 */
#define BLKQ_MOVES_PER_CALL    8u
#define BLKQ_DONE_PER_CALL     8u

struct blk_backend_ops {
    void (*raise)(void *ctx);                   /* the driver's request interrupt */
    void (*report)(void *ctx, const char *why); /* a wrong answer, under the lock */
};

struct blk_own {
    bool busy;                          /* the slot holds a request of ours */
    bool cancelled;                     /* its frontend dropped it: freed silently */
    uint8_t fe;
    uint32_t fe_tag;                    /* the frontend device's tag */
    uint32_t tag;                       /* the one the driver partition sees */
};

struct blk_pending {
    uint8_t fe;
    uint32_t fe_tag;
};

struct blk_backend_stats {
    uint32_t moved;                     /* requests put into slots (again, too) */
    uint32_t answers;                   /* answers taken */
    uint32_t bad_answers;               /* for a free slot, a wrong tag, length or status */
    uint32_t requeued;                  /* held by a driver that stopped */
};

struct blk_backend {
    spinlock_t lock;
    const struct blk_backend_ops *ops;
    void *ctx;
    unsigned int nfe;
    struct vblk *fe[DISK_MAX_FRONTENDS];
    struct partita_blkq_frontend info[DISK_MAX_FRONTENDS];
    uint8_t *q;                         /* the driver's queue; NULL: not running */
    uint32_t nslots;
    uint32_t generation, seq;
    struct blk_own own[PARTITA_BLKQ_SLOTS_MAX];
    struct blk_pending pend[BLKQ_PENDING_MAX];
    unsigned int pend_head, npend;
    struct blk_backend_stats st;
};

void blk_backend_init(struct blk_backend *be, const struct blk_backend_ops *ops, void *ctx);
/* A frontend, as the driver partition will see it: its index */
unsigned int blk_backend_add(struct blk_backend *be, struct vblk *fe,
                             const struct partita_blkq_frontend *info);
/* The driver partition starts with its queue at q (size bytes, a
 * configuration the validator accepted): a new header, and what waits */
void blk_backend_attach(struct blk_backend *be, uint8_t *q, uint32_t size);
/* It stops (or crashes): what it held waits for its next life, first */
void blk_backend_detach(struct blk_backend *be);
/* Frontend fi's device has a request (vblk_ops.submit) */
void blk_backend_submit(struct blk_backend *be, unsigned int fi, uint32_t fe_tag);
/* Frontend fi's device dropped what was in flight (vblk_ops.dropped) */
void blk_backend_dropped(struct blk_backend *be, unsigned int fi);
/* Its counters and the requests waiting for a slot, a snapshot under its lock */
void blk_backend_stats_get(struct blk_backend *be, struct blk_backend_stats *out,
                           unsigned int *waiting);
/* PARTITA_HC_BLK_DONE: take the answers; done slots left unread */
uint32_t blk_backend_done(struct blk_backend *be);

#endif
