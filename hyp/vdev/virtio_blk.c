/*
 * The virtio block device of a frontend (virtio_blk.h).  A request is
 * taken off the queue whole: its chain's buffers are checked against the
 * frontend's RAM once, kept in the request's slot, and used again only
 * while the slot is that request's; a reset, a queue set up again or a
 * detach empties every slot, so a late completion touches nothing.
 */
#include <string.h>
#include "virtio_blk.h"

_Static_assert((size_t)offsetof(struct vblk, dev) == 0u, "the transport's device is the disk");

static uint32_t vblk_config_read(struct vmmio *d, uint32_t off, unsigned int size)
{
    const struct vblk *b = (const struct vblk *)d;     /* dev is the first member */
    uint8_t cfg[VBLK_CONFIG_SIZE] = { 0 };
    const uint32_t size_max = BLK_SIZE_MAX, seg_max = BLK_SEG_MAX;
    (void)memcpy(cfg + VBLK_CONFIG_CAPACITY, &b->capacity, sizeof(b->capacity));
    (void)memcpy(cfg + VBLK_CONFIG_SIZE_MAX, &size_max, sizeof(size_max));
    (void)memcpy(cfg + VBLK_CONFIG_SEG_MAX, &seg_max, sizeof(seg_max));
    uint32_t v = 0u;
    for (unsigned int i = 0u; i < size; i++) {
        if (off + i < VBLK_CONFIG_SIZE) {
            v |= (uint32_t)cfg[off + i] << (8u * i);
        }
    }
    return v;
}

#define VBLK_FEATURES (VIRTIO_F_VERSION_1 | VIRTIO_BLK_F_SIZE_MAX | VIRTIO_BLK_F_SEG_MAX | \
                       VIRTIO_BLK_F_FLUSH)

static const struct vmmio_ops vblk_ops_rw = {
    .device_id = VIRTIO_ID_BLOCK,
    .features = VBLK_FEATURES,
    .nqueues = 1,
    .config_read = vblk_config_read,
};

static const struct vmmio_ops vblk_ops_ro = {
    .device_id = VIRTIO_ID_BLOCK,
    .features = VBLK_FEATURES | VIRTIO_BLK_F_RO,
    .nqueues = 1,
    .config_read = vblk_config_read,
};

static void set_up(struct vblk *b, struct gmem mem)
{
    vmmio_init(&b->dev, b->read_only ? &vblk_ops_ro : &vblk_ops_rw, mem);
    b->epoch = b->dev.epoch;
}

void vblk_init(struct vblk *b, const struct vblk_ops *ops, void *ctx, uint64_t capacity,
               bool read_only)
{
    (void)memset(b, 0, sizeof(*b));
    b->ops = ops;
    b->ctx = ctx;
    b->capacity = capacity;
    b->read_only = read_only;
    set_up(b, (struct gmem){ 0, 0, NULL });
}

/* under lock: empty every slot; true if a request was in flight */
static bool drop_all(struct vblk *b)
{
    bool any = false;
    for (unsigned int i = 0u; i < VBLK_INFLIGHT_MAX; i++) {
        if (b->slot[i].busy) {
            b->slot[i].busy = false;
            b->slot[i].use++;
            b->st.dropped++;
            any = true;
        }
    }
    b->epoch = b->dev.epoch;
    return any;
}

void vblk_attach(struct vblk *b, struct gmem mem)
{
    spin_lock(&b->lock);
    bool dropped = drop_all(b);
    set_up(b, mem);
    b->attached = true;
    spin_unlock(&b->lock);
    if (dropped) {
        b->ops->dropped(b->ctx, b);
    }
}

void vblk_detach(struct vblk *b)
{
    spin_lock(&b->lock);
    bool dropped = drop_all(b);
    b->attached = false;
    set_up(b, (struct gmem){ 0, 0, NULL });
    spin_unlock(&b->lock);
    if (dropped) {
        b->ops->dropped(b->ctx, b);
    }
}

/* under lock: a malformed ring stops the device; true the first time */
static bool vblk_fail(struct vblk *b, int err)
{
    if ((b->dev.status & VIRTIO_STATUS_NEEDS_RESET) != 0u) {
        return false;
    }
    vmmio_fail(&b->dev, err);
    b->st.errors++;
    b->ops->report(b->ctx, virtq_strerror(err));
    return true;
}

/* under lock: hand the chain back with its status byte written */
static bool finish(struct vblk *b, struct vblk_slot *s, uint8_t status, uint32_t data_len)
{
    struct virtq *q = &b->dev.q[VBLK_QUEUE];
    s->segs[s->req.status.seg].p[s->req.status.off] = status;
    b->st.failed += status != VIRTIO_BLK_S_OK;
    virtq_push(q, s->head, data_len + 1u);
    if (!virtq_wants_interrupt(q)) {
        return false;
    }
    b->dev.isr |= VMMIO_INT_VRING;
    return true;
}

/* under lock: the next request off the queue into a free slot.  1: *tag
 * is for the backend; 0: none taken (no request, no free slot, not
 * live); 2 (an interrupt due) or 3 (none): one answered at once; or a
 * VQ_ERR_ */
static int take(struct vblk *b, uint32_t *tag)
{
    struct virtq *q = &b->dev.q[VBLK_QUEUE];
    unsigned int i = 0u;
    while (i < VBLK_INFLIGHT_MAX && b->slot[i].busy) {
        i++;
    }
    if (i == VBLK_INFLIGHT_MAX || !b->attached || !vmmio_live(&b->dev) || !q->ready) {
        return 0;
    }
    struct vblk_slot *s = &b->slot[i];
    uint32_t n = 0u, descs = 0u;
    int r = virtq_pop(q, &s->head);
    if (r <= 0) {
        return r;
    }
    r = virtq_segments(q, &b->dev.mem, s->head, s->segs, BLK_CHAIN_MAX, &n, &descs);
    if (r == 0) {
        r = blk_parse(s->segs, n, b->capacity, b->read_only, &s->req);
    }
    if (r < 0) {
        return r;
    }
    b->st.requests++;
    if (r == 0) {
        b->st.answered++;
        return finish(b, s, s->req.answer, 0) ? 2 : 3;
    }
    s->busy = true;
    s->use++;
    *tag = s->use << VBLK_TAG_SLOT_BITS | i;
    return 1;
}

void vblk_kick(struct vblk *b)
{
    bool irq = false;
    for (unsigned int k = 0u; k < VBLK_REQS_PER_EXIT; k++) {
        uint32_t tag = 0u;
        spin_lock(&b->lock);
        int r = take(b, &tag);
        if (r < 0) {
            irq |= vblk_fail(b, r);
        }
        irq |= r == 2;
        spin_unlock(&b->lock);
        if (r == 1) {
            b->ops->submit(b->ctx, b, tag);
        } else if (r <= 0) {
            break;
        } else {
            /* otherwise nothing to do */
        }
    }
    if (irq) {
        b->ops->raise(b->ctx);
    }
}

bool vblk_mmio(void *dev, struct mmio_access *a, uint32_t off)
{
    struct vblk *b = dev;
    spin_lock(&b->lock);
    bool was_failed = b->dev.status & VIRTIO_STATUS_NEEDS_RESET;
    bool ok = vmmio_access(&b->dev, a, off);
    /* a reset or a queue set up again: what was in flight is forgotten */
    bool dropped = b->dev.epoch != b->epoch && drop_all(b);
    uint32_t notified = b->dev.notified;
    b->dev.notified = 0u;
    /* its interrupt handler reads the status first: take what the bound left */
    bool more = ok && !a->write && (off == VMMIO_INTERRUPT_STATUS) &&
                virtq_has_avail(&b->dev.q[VBLK_QUEUE]);
    bool failed = !was_failed && (b->dev.status & VIRTIO_STATUS_NEEDS_RESET);
    if (failed) {
        b->st.errors++;
        b->ops->report(b->ctx, virtq_strerror(b->dev.error));
    }
    spin_unlock(&b->lock);
    if (dropped) {
        b->ops->dropped(b->ctx, b);
    }
    if (failed) {
        b->ops->raise(b->ctx);
    }
    if ((notified & (1u << VBLK_QUEUE)) || more) {
        vblk_kick(b);
    }
    return ok;
}

/* under lock: the slot tag names while it is that request's, or NULL */
static struct vblk_slot *slot_of(struct vblk *b, uint32_t tag)
{
    uint32_t i = tag & VBLK_TAG_SLOT_MASK;
    if (i >= VBLK_INFLIGHT_MAX || !b->slot[i].busy ||
        b->slot[i].use != tag >> VBLK_TAG_SLOT_BITS) {
        return NULL;
    }
    return &b->slot[i];
}

bool vblk_request(struct vblk *b, uint32_t tag, struct blk_req *r)
{
    spin_lock(&b->lock);
    struct vblk_slot *s = slot_of(b, tag);
    if (s != NULL) {
        *r = s->req;
    }
    spin_unlock(&b->lock);
    return s != NULL;
}

bool vblk_write_data(struct vblk *b, uint32_t tag, uint8_t *dst)
{
    spin_lock(&b->lock);
    struct vblk_slot *s = slot_of(b, tag);
    if (s && s->req.type == VIRTIO_BLK_T_OUT) {
        blk_copy_out(s->segs, s->req.data, dst, s->req.len);
    }
    spin_unlock(&b->lock);
    return s && s->req.type == VIRTIO_BLK_T_OUT;
}

int vblk_complete(struct vblk *b, uint32_t tag, uint8_t status, const uint8_t *data,
                  uint32_t len)
{
    int rc = 0;
    bool irq = false;
    spin_lock(&b->lock);
    struct vblk_slot *s = slot_of(b, tag);
    if (!s) {
        b->st.bad_completions++;
        spin_unlock(&b->lock);
        return -1;
    }
    /* a read's data whole with OK, nothing else; no status but these */
    uint32_t want = status == VIRTIO_BLK_S_OK && s->req.type == VIRTIO_BLK_T_IN ? s->req.len : 0u;
    if ((status != VIRTIO_BLK_S_OK && status != VIRTIO_BLK_S_IOERR) || len != want) {
        b->st.bad_completions++;
        status = VIRTIO_BLK_S_IOERR;
        want = 0u;
        rc = -2;
    }
    if (want != 0u) {
        blk_copy_in(s->segs, s->req.data, data, want);
    }
    b->st.completed++;
    s->busy = false;
    if (vmmio_live(&b->dev)) {
        /* the bytes a frontend was answered: a read's data, a write done */
        if (status == VIRTIO_BLK_S_OK) {
            b->st.read_bytes += want;
            b->st.written_bytes += (s->req.type == VIRTIO_BLK_T_OUT) ? s->req.len : 0u;
        }
        irq = finish(b, s, status, want);
    }
    spin_unlock(&b->lock);
    if (irq) {
        b->ops->raise(b->ctx);
    }
    return rc;
}

void vblk_stats_get(struct vblk *b, struct vblk_stats *out)
{
    spin_lock(&b->lock);
    *out = b->st;
    spin_unlock(&b->lock);
}
