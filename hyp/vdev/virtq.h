/*
 * Split virtqueues (virtio 1.x, section 2.7) in a guest's memory, read and
 * written by the hypervisor's device models.  The guest owns the rings, so
 * every address, length, index and descriptor number it wrote is checked
 * against its own RAM before it is followed, each value read once (the
 * guest may change it meanwhile): a bad one is an error code, never a
 * fault of the hypervisor.
 */
#ifndef HYP_VIRTQ_H
#define HYP_VIRTQ_H

#include <stdint.h>
#include <stdbool.h>

/* A guest's RAM as the hypervisor reaches it: IPA window -> host address */
struct gmem {
    uint64_t ipa, size;
    uint8_t *hva;           /* where the hypervisor maps it */
};

/* [ipa, ipa + len) inside the guest's RAM: its host address, else NULL */
static inline uint8_t *gmem_ptr(const struct gmem *m, uint64_t ipa, uint64_t len)
{
    if (!m->hva || ipa < m->ipa || len > m->size || ipa - m->ipa > m->size - len) {
        return NULL;
    }
    return m->hva + (ipa - m->ipa);
}

#define VIRTQ_NUM_MAX          256u

/* struct virtq_desc (2.7.5) */
#define VIRTQ_DESC_SIZE        16u
#define VIRTQ_DESC_F_NEXT      1u
#define VIRTQ_DESC_F_WRITE     2u
#define VIRTQ_DESC_F_INDIRECT  4u
/* struct virtq_avail (2.7.6): flags, idx, ring[num], used_event (16-bit) */
#define VIRTQ_AVAIL_F_NO_INTERRUPT 1u
#define VIRTQ_AVAIL_SIZE(n)    (6u + 2u * (n))
/* struct virtq_used (2.7.8): flags, idx, ring[num] of { id, len }, avail_event */
#define VIRTQ_USED_SIZE(n)     (6u + 8u * (n))
/* the alignment each part needs (2.7, table "Virtqueue Part Alignment") */
#define VIRTQ_DESC_ALIGN       16u
#define VIRTQ_AVAIL_ALIGN      2u
#define VIRTQ_USED_ALIGN       4u

/* What went wrong with a guest's queue (negative: the ring is malformed) */
enum virtq_error {
    VQ_ERR_SIZE = -1,       /* QueueNum 0, over the maximum or not a power of 2 */
    VQ_ERR_RING = -2,       /* a ring part unaligned or outside the guest's RAM */
    VQ_ERR_AVAIL_IDX = -3,  /* avail idx more than QueueNum ahead of the device */
    VQ_ERR_HEAD = -4,       /* a descriptor number past the table */
    VQ_ERR_LOOP = -5,       /* a chain longer than the table (a loop) */
    VQ_ERR_INDIRECT = -6,   /* an indirect descriptor (not offered) */
    VQ_ERR_BUFFER = -7,     /* a buffer outside the guest's RAM */
    VQ_ERR_DIRECTION = -8,  /* a buffer of the wrong direction for the queue */
    VQ_ERR_LENGTH = -9,     /* a chain longer than 4 GiB in all */
};
const char *virtq_strerror(int err);

/*
 * A place inside a chain the device has taken (popped) but not finished:
 * the descriptor it is at and how many of that descriptor's bytes it used
 * already.  A device that bounds the work of one exit keeps it across
 * exits and goes on from there (virtq_read_some).
 */
struct virtq_cursor {
    uint16_t head;              /* the chain's first descriptor (for the used ring) */
    uint16_t next;              /* the descriptor to visit next */
    uint32_t off;               /* bytes of it used already */
    uint32_t count;             /* descriptors of the chain left behind (loop check) */
    uint64_t total;             /* bytes of the chain used so far */
};

/* What one exit may still do on a queue: descriptors visited, bytes moved */
struct virtq_budget {
    uint32_t descs;
    uint32_t bytes;
};

struct virtq {
    uint32_t num;               /* QueueNum */
    bool ready;                 /* QueueReady, once checked */
    uint64_t desc, avail, used; /* IPAs the driver gave */
    uint16_t last_avail;        /* the next avail entry the device takes */
    uint16_t used_idx;          /* the device's copy of used idx */
    bool partial;               /* cur is a chain taken but not finished */
    struct virtq_cursor cur;
    /* host addresses of the parts, set by virtq_enable */
    uint8_t *d, *a, *u;
};

/* Forget the queue (device reset) */
void virtq_reset(struct virtq *q);
/* QueueReady = 1: check size and parts against m; 0 or a VQ_ERR_ */
int virtq_enable(struct virtq *q, const struct gmem *m);
/* The next chain's head: 1 (taken), 0 (none available), or a VQ_ERR_ */
int virtq_pop(struct virtq *q, uint16_t *head);
/*
 * Every walk below visits at most QueueNum descriptors of one chain (more
 * is a loop) and adds the descriptors it visited to *descs, so its caller
 * can bound the work of one exit across chains.
 */
/* Copy the chain's device-readable buffers into buf (cap bytes); *len is
 * their total length, which may exceed cap (the copy stops there: at most
 * cap bytes are moved).  0, or a VQ_ERR_ (any device-writable buffer is
 * one). */
int virtq_gather(const struct virtq *q, const struct gmem *m, uint16_t head, uint8_t *buf,
                 uint32_t cap, uint32_t *len, uint32_t *descs);
/* Start a cursor at the head of a chain just popped */
void virtq_cursor_start(struct virtq_cursor *c, uint16_t head);
/* Hand the chain's device-readable buffers from cursor c on to fn in
 * order (no copy), within budget b (each descriptor visited costs one of
 * b->descs, each byte handed over one of b->bytes): 1 the chain is done
 * (c->total bytes in all), 0 the budget ran out first (c says where to go
 * on), or a VQ_ERR_ (buffers before the bad one were handed over). */
int virtq_read_some(const struct virtq *q, const struct gmem *m, struct virtq_cursor *c,
                    struct virtq_budget *b,
                    void (*fn)(void *ctx, const uint8_t *p, uint32_t len), void *ctx);
/* Write a (alen bytes) then b (blen) into the chain's device-writable
 * buffers, walking no further than needed: 1 done, 0 they are too small
 * (the bytes written are no frame: the caller hands the chain back with
 * nothing in it), or a VQ_ERR_ (a device-readable buffer in it, ...).
 * *written: bytes written. */
int virtq_scatter(const struct virtq *q, const struct gmem *m, uint16_t head,
                  const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen,
                  uint32_t *written, uint32_t *descs);
/* One buffer of a chain as virtq_segments hands it over: checked against
 * the guest's RAM, its direction from the descriptor's F_WRITE */
struct virtq_seg {
    uint8_t *p;
    uint32_t len;
    bool write;
};
/* The chain's buffers, in order, into out (max > 0 entries): *n is how
 * many the chain has; when that is more than max, out holds the first
 * max - 1 and the chain's last in out[max - 1] (a device that takes only
 * max can still find where its answer goes).  0, or a VQ_ERR_. */
int virtq_segments(const struct virtq *q, const struct gmem *m, uint16_t head,
                   struct virtq_seg *out, uint32_t max, uint32_t *n, uint32_t *descs);
/* Return the chain to the driver with len bytes written */
void virtq_push(struct virtq *q, uint16_t head, uint32_t len);
/* Does the driver want an interrupt for used buffers (VIRTQ_AVAIL_F_NO_INTERRUPT)? */
bool virtq_wants_interrupt(const struct virtq *q);
/* Are buffers available that the device has not taken? (malformed: true) */
bool virtq_has_avail(const struct virtq *q);

#endif
