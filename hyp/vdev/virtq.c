/*
 * Split virtqueues in guest memory (virtq.h).  The guest writes the rings
 * while the hypervisor reads them: each field is loaded once into a local
 * and checked there; the ring indices are ordered against the entries
 * with barriers as virtio 1.x section 2.7.13 asks of the two sides
 * (a DMB on ARMv7: __atomic_thread_fence).
 */
#include <string.h>
#include "virtq.h"

const char *virtq_strerror(int err)
{
    switch (err) {
    case VQ_ERR_SIZE: return "queue size is 0, over 256 or not a power of 2";
    case VQ_ERR_RING: return "a ring is unaligned or outside the guest's RAM";
    case VQ_ERR_AVAIL_IDX: return "avail idx runs more than the queue size ahead";
    case VQ_ERR_HEAD: return "a descriptor number past the table";
    case VQ_ERR_LOOP: return "a descriptor chain loops";
    case VQ_ERR_INDIRECT: return "an indirect descriptor (not negotiated)";
    case VQ_ERR_BUFFER: return "a buffer outside the guest's RAM";
    case VQ_ERR_DIRECTION: return "a buffer of the wrong direction";
    case VQ_ERR_LENGTH: return "a chain longer than 4 GiB";
    default: break;
    }
    return "?";
}

static uint16_t load16(const uint8_t *p)
{
    return __atomic_load_n((const uint16_t *)p, __ATOMIC_RELAXED);
}

void virtq_reset(struct virtq *q)
{
    (void)memset(q, 0, sizeof(*q));
}

int virtq_enable(struct virtq *q, const struct gmem *m)
{
    uint32_t n = q->num;
    if (!n || n > VIRTQ_NUM_MAX || (n & (n - 1u))) {
        return VQ_ERR_SIZE;
    }
    if ((q->desc & (VIRTQ_DESC_ALIGN - 1u)) || (q->avail & (VIRTQ_AVAIL_ALIGN - 1u)) ||
        (q->used & (VIRTQ_USED_ALIGN - 1u))) {
        return VQ_ERR_RING;
    }
    q->d = gmem_ptr(m, q->desc, (uint64_t)VIRTQ_DESC_SIZE * n);
    q->a = gmem_ptr(m, q->avail, VIRTQ_AVAIL_SIZE(n));
    q->u = gmem_ptr(m, q->used, VIRTQ_USED_SIZE(n));
    if (!q->d || !q->a || !q->u) {
        return VQ_ERR_RING;
    }
    q->last_avail = 0;
    q->used_idx = 0;
    q->partial = false;
    q->ready = true;
    return 0;
}

/* avail->idx - last_avail: how many the driver has made available */
static int avail_pending(const struct virtq *q)
{
    uint16_t idx = load16(&q->a[2]);
    uint16_t pending = (uint16_t)(idx - q->last_avail);
    int r = (int)pending;
    if (pending > q->num) {
        r = VQ_ERR_AVAIL_IDX;
    }
    return r;
}

int virtq_pop(struct virtq *q, uint16_t *head)
{
    int pending = avail_pending(q);
    if (pending <= 0) {
        return pending;
    }
    /* the entry was written before the index that made it ours */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint16_t h = load16(&q->a[4u + (2u * (q->last_avail & (q->num - 1u)))]);
    if (h >= q->num) {
        return VQ_ERR_HEAD;
    }
    q->last_avail++;
    *head = h;
    return 1;
}

bool virtq_has_avail(const struct virtq *q)
{
    return q->ready && avail_pending(q) != 0;
}

/* One descriptor of a chain, copied out of the guest's table and checked */
struct seg {
    uint8_t *p;
    uint32_t len;
    bool write;
    bool more;              /* F_NEXT: next is the chain's next descriptor */
    uint16_t next;
};

/* Descriptor i of q's table, read once and checked: 1, or a VQ_ERR_ */
static int read_desc(const struct virtq *q, const struct gmem *m, uint16_t i, struct seg *s)
{
    struct virtq_desc_read {
        uint64_t addr;
        uint32_t len;
        uint16_t flags, next;
    } d;
    (void)memcpy(&d, q->d + (size_t)i * VIRTQ_DESC_SIZE, sizeof(d));    /* read once */
    if ((d.flags & VIRTQ_DESC_F_INDIRECT) != 0u) {
        return VQ_ERR_INDIRECT;
    }
    s->p = gmem_ptr(m, d.addr, d.len);
    if (!s->p) {
        return VQ_ERR_BUFFER;
    }
    s->len = d.len;
    s->write = (d.flags & VIRTQ_DESC_F_WRITE) != 0u;
    s->more = (d.flags & VIRTQ_DESC_F_NEXT) != 0u;
    if (s->more && d.next >= q->num) {
        return VQ_ERR_HEAD;
    }
    s->next = d.next;
    return 1;
}

struct walk {
    const struct virtq *q;
    const struct gmem *m;
    uint16_t next;
    bool more;
    unsigned int count;
};

/* 1: *s is the next buffer; 0: the chain ended; or a VQ_ERR_ */
static int walk_next(struct walk *w, struct seg *s)
{
    if (!w->more) {
        return 0;
    }
    if (++w->count > w->q->num) {
        return VQ_ERR_LOOP;
    }
    int r = read_desc(w->q, w->m, w->next, s);
    if (r < 0) {
        return r;
    }
    w->more = s->more;
    w->next = s->next;
    return 1;
}

int virtq_gather(const struct virtq *q, const struct gmem *m, uint16_t head, uint8_t *buf,
                 uint32_t cap, uint32_t *len, uint32_t *descs)
{
    struct walk w = { q, m, head, true, 0 };
    struct seg s;
    uint64_t total = 0u;
    int r;
    while ((r = walk_next(&w, &s)) > 0) {
        ++*descs;
        if (s.write) {
            return VQ_ERR_DIRECTION;
        }
        if (total < cap) {
            (void)memcpy(buf + total, s.p, s.len < cap - total ? s.len : cap - (uint32_t)total);
        }
        total += s.len;
        if (total > UINT32_MAX) {
            return VQ_ERR_LENGTH;
        }
    }
    *len = (uint32_t)total;
    return r;
}

int virtq_segments(const struct virtq *q, const struct gmem *m, uint16_t head,
                   struct virtq_seg *out, uint32_t max, uint32_t *n, uint32_t *descs)
{
    struct walk w = { q, m, head, true, 0 };
    struct seg s;
    uint32_t count = 0u;
    int r;
    while ((r = walk_next(&w, &s)) > 0) {
        ++*descs;
        out[count < max ? count : max - 1u] = (struct virtq_seg){ s.p, s.len, s.write };
        count++;
    }
    *n = count;
    return r;
}

void virtq_cursor_start(struct virtq_cursor *c, uint16_t head)
{
    *c = (struct virtq_cursor){ .head = head, .next = head };
}

int virtq_read_some(const struct virtq *q, const struct gmem *m, struct virtq_cursor *c,
                    struct virtq_budget *b,
                    void (*fn)(void *ctx, const uint8_t *p, uint32_t len), void *ctx)
{
    for (;;) {
        if (!b->descs || !b->bytes) {
            return 0;
        }
        /* a descriptor visited again after a pause is read (and checked)
         * again: the guest may have changed it, which hurts only itself */
        if (!c->off && ++c->count > q->num) {
            return VQ_ERR_LOOP;
        }
        struct seg s;
        int r = read_desc(q, m, c->next, &s);
        if (r < 0) {
            return r;
        }
        b->descs--;
        if (s.write) {
            return VQ_ERR_DIRECTION;
        }
        if (c->off < s.len) {
            uint32_t n = s.len - c->off < b->bytes ? s.len - c->off : b->bytes;
            fn(ctx, s.p + c->off, n);
            b->bytes -= n;
            c->off += n;
            c->total += n;
            if (c->off < s.len) {
                return 0;       /* the bytes ran out inside this descriptor */
            }
        }
        if (!s.more) {
            return 1;
        }
        c->next = s.next;
        c->off = 0u;
    }
}

int virtq_scatter(const struct virtq *q, const struct gmem *m, uint16_t head,
                  const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen,
                  uint32_t *written, uint32_t *descs)
{
    struct walk w = { q, m, head, true, 0 };
    struct seg s;
    uint32_t done = 0u, total = alen + blen;
    int r = 0;
    *written = 0u;
    /* no further than the bytes need: the rest of the chain is not read */
    while (done < total && (r = walk_next(&w, &s)) > 0) {
        ++*descs;
        if (!s.write) {
            return VQ_ERR_DIRECTION;
        }
        for (uint32_t off = 0u; off < s.len && done < total;) {
            const uint8_t *src = done < alen ? a + done : b + (done - alen);
            uint32_t left = done < alen ? alen - done : total - done;
            uint32_t n = s.len - off < left ? s.len - off : left;
            (void)memcpy(s.p + off, src, n);
            off += n;
            done += n;
        }
    }
    if (done < total && r < 0) {
        return r;
    }
    *written = done;
    return done == total;
}

void virtq_push(struct virtq *q, uint16_t head, uint32_t len)
{
    uint8_t *e = &q->u[4u + (8u * (q->used_idx & (q->num - 1u)))];
    const uint32_t elem[2] = { head, len };
    (void)memcpy(e, elem, sizeof(elem));
    q->used_idx++;
    /* the entry (and the buffer's contents) before the index that hands it over */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n((uint16_t *)(q->u + 2), q->used_idx, __ATOMIC_RELAXED);
}

bool virtq_wants_interrupt(const struct virtq *q)
{
    /* the driver's flag is read after the used idx it concerns was written */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return !(load16(q->a) & VIRTQ_AVAIL_F_NO_INTERRUPT);
}
