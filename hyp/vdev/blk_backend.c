/*
 * The backend side of a disk (blk_backend.h).  The driver partition's
 * queue is its own memory, which it may change at any time: Partita writes
 * the header and the slots it fills, reads a done slot once into a copy and
 * checks the copy against its own record of the slot (struct blk_own);
 * nothing it reads there is an address or an index it follows but the
 * slot's own number.
 */
#include <string.h>
#include "blk_backend.h"

_Static_assert(PARTITA_BLKQ_DATA_SIZE == BLK_DATA_MAX, "a slot holds the largest request");
_Static_assert(PARTITA_BLKQ_FRONTENDS_MAX == DISK_MAX_FRONTENDS, "a header per frontend");
_Static_assert(PARTITA_BLKQ_BACKING_MAX == DISK_BACKING_MAX, "the backing name fits");
_Static_assert(sizeof(struct partita_blkq_header) <= PARTITA_BLKQ_SLOTS_OFF, "header");
_Static_assert(PARTITA_BLKQ_SLOTS_OFF + PARTITA_BLKQ_SLOTS_MAX *
               sizeof(struct partita_blkq_slot) <= PARTITA_BLKQ_DATA_OFF, "slots");
_Static_assert(DISK_QUEUE_MIN >= PARTITA_BLKQ_DATA_OFF + PARTITA_BLKQ_DATA_SIZE, "one slot");
_Static_assert((VBLK_INFLIGHT_MAX <= 256u) && (DISK_MAX_FRONTENDS <= 256u), "uint8_t fe");

#define SLOT_BITS 8u        /* a driver's tag: the slot, and a sequence number above */

/* A slot's states (partita/blk_queue.h, an enumeration the guests' C shares)
 * as the slot's 32-bit state word holds them */
#define SLOT_FREE    ((uint32_t)PARTITA_BLKQ_FREE)
#define SLOT_REQUEST ((uint32_t)PARTITA_BLKQ_REQUEST)
#define SLOT_DONE    ((uint32_t)PARTITA_BLKQ_DONE)

static struct partita_blkq_slot *slot_at(const struct blk_backend *be, unsigned int i)
{
    return (struct partita_blkq_slot *)(be->q + PARTITA_BLKQ_SLOTS_OFF) + i;
}

static uint8_t *data_at(const struct blk_backend *be, unsigned int i)
{
    return be->q + PARTITA_BLKQ_DATA_OFF + (size_t)i * PARTITA_BLKQ_DATA_SIZE;
}

void blk_backend_init(struct blk_backend *be, const struct blk_backend_ops *ops, void *ctx)
{
    (void)memset(be, 0, sizeof(*be));
    be->ops = ops;
    be->ctx = ctx;
}

unsigned int blk_backend_add(struct blk_backend *be, struct vblk *fe,
                             const struct partita_blkq_frontend *info)
{
    unsigned int i = be->nfe++;
    be->fe[i] = fe;
    be->info[i] = *info;
    return i;
}

/* under lock: p at the back of the waiting requests (front: first) */
static void pend_put(struct blk_backend *be, struct blk_pending p, bool first)
{
    if (be->npend == BLKQ_PENDING_MAX) {     /* stale entries: a frontend's
                                              * table bounds the live ones */
        unsigned int kept = 0u;
        struct blk_pending tmp[BLKQ_PENDING_MAX];
        struct blk_req r;
        for (unsigned int k = 0u; k < be->npend; k++) {
            struct blk_pending e = be->pend[(be->pend_head + k) % BLKQ_PENDING_MAX];
            if (vblk_request(be->fe[e.fe], e.fe_tag, &r)) {
                tmp[kept++] = e;
            }
        }
        (void)memcpy(be->pend, tmp, kept * sizeof(tmp[0]));
        be->pend_head = 0u;
        be->npend = kept;
        if (kept == BLKQ_PENDING_MAX) {
            return;
        }
    }
    if (first) {
        be->pend_head = (be->pend_head + BLKQ_PENDING_MAX - 1u) % BLKQ_PENDING_MAX;
        be->pend[be->pend_head] = p;
    } else {
        be->pend[(be->pend_head + be->npend) % BLKQ_PENDING_MAX] = p;
    }
    be->npend++;
}

/* under lock: one waiting request into free slot i; false: it is no
 * longer its frontend's (dropped), the slot stays free */
static bool fill(struct blk_backend *be, unsigned int i, struct blk_pending p)
{
    struct blk_req r;
    struct vblk *fe = be->fe[p.fe];
    if (!vblk_request(fe, p.fe_tag, &r)) {
        return false;
    }
    if (r.type == VIRTIO_BLK_T_OUT && !vblk_write_data(fe, p.fe_tag, data_at(be, i))) {
        return false;
    }
    struct blk_own *o = &be->own[i];
    *o = (struct blk_own){ true, false, p.fe, p.fe_tag, ++be->seq << SLOT_BITS | i };
    struct partita_blkq_slot s = { SLOT_FREE, o->tag, p.fe, r.type, r.sector, r.len,
                                   0 };
    struct partita_blkq_slot *d = slot_at(be, i);
    (void)memcpy(d, &s, sizeof(s));
    /* the request and its data before the state that gives it over */
    __atomic_store_n(&d->state, SLOT_REQUEST, __ATOMIC_RELEASE);
    be->st.moved++;
    return true;
}

/* under lock: waiting requests into free slots, within the call's bound;
 * true when one was moved (the driver's interrupt is due) */
static bool move(struct blk_backend *be)
{
    bool moved = false;
    unsigned int n = 0u;
    for (unsigned int i = 0u; be->q && i < be->nslots && be->npend && n < BLKQ_MOVES_PER_CALL;
         i++) {
        if (be->own[i].busy) {
            continue;
        }
        /* every request taken off the list counts, moved or stale */
        while (be->npend && n < BLKQ_MOVES_PER_CALL) {
            struct blk_pending p = be->pend[be->pend_head];
            be->pend_head = (be->pend_head + 1u) % BLKQ_PENDING_MAX;
            be->npend--;
            n++;
            if (fill(be, i, p)) {
                moved = true;
                break;
            }
        }
    }
    return moved;
}

void blk_backend_attach(struct blk_backend *be, uint8_t *q, uint32_t size)
{
    spin_lock(&be->lock);
    be->q = q;
    be->nslots = (size - PARTITA_BLKQ_DATA_OFF) / PARTITA_BLKQ_DATA_SIZE;
    if (be->nslots > PARTITA_BLKQ_SLOTS_MAX) {
        be->nslots = PARTITA_BLKQ_SLOTS_MAX;
    }
    be->generation++;
    (void)memset(q, 0, PARTITA_BLKQ_DATA_OFF);
    struct partita_blkq_header *h = (struct partita_blkq_header *)q;
    h->magic = PARTITA_BLKQ_MAGIC;
    h->version = PARTITA_BLKQ_VERSION;
    h->generation = be->generation;
    h->nslots = be->nslots;
    h->nfrontends = be->nfe;
    (void)memcpy(h->fe, be->info, sizeof(h->fe));
    bool moved = move(be);
    spin_unlock(&be->lock);
    if (moved) {
        be->ops->raise(be->ctx);
    }
}

void blk_backend_detach(struct blk_backend *be)
{
    spin_lock(&be->lock);
    /* in slot order, each before what waited already */
    for (unsigned int k = be->nslots; k > 0u; k--) {
        unsigned int i = k - 1u;
        struct blk_own *o = &be->own[i];
        if (o->busy && !o->cancelled) {
            pend_put(be, (struct blk_pending){ o->fe, o->fe_tag }, true);
            be->st.requeued++;
        }
        o->busy = false;
    }
    be->q = NULL;
    spin_unlock(&be->lock);
}

void blk_backend_submit(struct blk_backend *be, unsigned int fi, uint32_t fe_tag)
{
    spin_lock(&be->lock);
    pend_put(be, (struct blk_pending){ (uint8_t)fi, fe_tag }, false);
    bool moved = move(be);
    spin_unlock(&be->lock);
    if (moved) {
        be->ops->raise(be->ctx);
    }
}

void blk_backend_dropped(struct blk_backend *be, unsigned int fi)
{
    struct blk_req r;
    spin_lock(&be->lock);
    for (unsigned int i = 0u; i < be->nslots; i++) {
        struct blk_own *o = &be->own[i];
        if (o->busy && o->fe == fi && !vblk_request(be->fe[fi], o->fe_tag, &r)) {
            o->cancelled = true;
        }
    }
    spin_unlock(&be->lock);
}

/* under lock: done slot i's answer, read once; bit fe of *kick: that
 * frontend may have more requests to give */
static void take_answer(struct blk_backend *be, unsigned int i, uint32_t *kick)
{
    struct partita_blkq_slot a;
    (void)memcpy(&a, slot_at(be, i), sizeof(a));
    struct blk_own *o = &be->own[i];
    be->st.answers++;
    if (!o->busy) {
        be->st.bad_answers++;
        be->ops->report(be->ctx, "an answer in a slot that holds no request");
    } else if (o->cancelled) {
        o->busy = false;
    } else {
        struct vblk *fe = be->fe[o->fe];
        int rc;
        if (a.tag != o->tag) {
            /* a status no answer may have: the request fails as a wrong
             * answer, counted on its frontend too */
            rc = vblk_complete(fe, o->fe_tag, UINT8_MAX, NULL, 0);
        } else {
            uint8_t status = a.status > UINT8_MAX ? UINT8_MAX : (uint8_t)a.status;
            rc = vblk_complete(fe, o->fe_tag, status, data_at(be, i), a.len);
        }
        if (rc == -2) {
            be->st.bad_answers++;
            be->ops->report(be->ctx, "an answer with a wrong tag, length or status");
        }
        o->busy = false;
        *kick |= 1u << o->fe;
    }
    __atomic_store_n(&slot_at(be, i)->state, SLOT_FREE, __ATOMIC_RELAXED);
}

uint32_t blk_backend_done(struct blk_backend *be)
{
    uint32_t kick = 0u, taken = 0u, left = 0u;
    spin_lock(&be->lock);
    for (unsigned int i = 0u; be->q && i < be->nslots; i++) {
        uint32_t state = __atomic_load_n(&slot_at(be, i)->state, __ATOMIC_ACQUIRE);
        if (state != SLOT_DONE) {
            continue;
        }
        if (taken == BLKQ_DONE_PER_CALL) {
            left++;
            continue;
        }
        take_answer(be, i, &kick);
        taken++;
    }
    bool moved = move(be);
    spin_unlock(&be->lock);
    if (moved) {
        be->ops->raise(be->ctx);
    }
    for (unsigned int f = 0u; f < be->nfe; f++) {
        if ((kick & (1u << f)) != 0u) {
            vblk_kick(be->fe[f]);
        }
    }
    return left;
}

void blk_backend_stats_get(struct blk_backend *be, struct blk_backend_stats *out,
                           unsigned int *waiting)
{
    spin_lock(&be->lock);
    *out = be->st;
    *waiting = be->npend;
    spin_unlock(&be->lock);
}
