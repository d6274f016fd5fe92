/*
 * The list-register half of the virtual GIC (GICv2 5.3.13-5.3.14): taking
 * back what the hardware did with a vCPU's list registers (sync, in
 * vgic_lr_sync.h) and filling them with its best pending interrupts (flush).
 *
 * Inline code over a vgic_lr_ops table, instantiated twice: by the unit
 * tests with their list-register model (tests/unit/vgic/test_vgic.c), by vgic_hw.c with
 * GICH's own static const ops, which the compiler then calls directly - the
 * interrupt delivery fast path without an indirect call per register, and
 * still one implementation, the one the unit tests run.
 * Callers hold the distributor lock where the names say _locked.  The
 * others take it without masking IRQs: they run in HYP, which never unmasks
 * them (boot/entry.S masks them at entry; the IRQ vector's HYP half is only a
 * backstop), so there is no handler to race with on this CPU.
 */
#ifndef VGIC_VGIC_LR_H
#define VGIC_VGIC_LR_H

#include "vgic_lr_sync.h"

struct candidate {
    unsigned int intid;
    struct vgic_irq *irq;
};

/*
 * The best max pending, enabled interrupts of the vCPU not yet in a list
 * register, highest priority (lowest value) first, ties by INTID.  Returns
 * how many there are in all, which may exceed max.
 */
static inline void keep_best(struct candidate *out, unsigned int max, unsigned int *n,
                      unsigned int id, struct vgic_irq *irq)
{
    if (*n == max && out[*n - 1u].irq->priority <= irq->priority) {
        return;
    }
    unsigned int j = *n < max ? (*n)++ : *n - 1u;
    while (j > 0u && out[j - 1u].irq->priority > irq->priority) {
        out[j] = out[j - 1u];
        j--;
    }
    out[j] = (struct candidate){ id, irq };
}

/*
 * A walk over the interrupts of a vCPU's "maybe" bitmap that want one of
 * its list registers.  The bits of those that do not (or no longer) are
 * cleared on the way, and words found empty leave maybe_words: the
 * sorted placement's (collect).
 */
struct maybe_walk {
    struct vgic_cpu *c;
    uint32_t words, bits;   /* words still to visit; this word's bits */
    unsigned int w;
};

static inline struct maybe_walk maybe_walk_start(struct vgic *d, unsigned int vcpu)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    return (struct maybe_walk){ c, c->maybe_words, 0, 0 };
}

/* The next such interrupt: its INTID, with *irq; or -1 at the end */
static inline int maybe_walk_next(struct vgic *d, unsigned int vcpu, struct maybe_walk *m,
                                  struct vgic_irq **irq)
{
    struct vgic_cpu *c = m->c;
    for (;;) {
        while (!m->bits) {
            if (!m->words) {
                return -1;
            }
            m->w = (unsigned int)__builtin_ctz(m->words);
            m->words &= m->words - 1u;
            m->bits = c->maybe[m->w];
            if (!m->bits) {
                c->maybe_words &= ~((unsigned int)1u << m->w);
            }
        }
        unsigned int id = m->w * 32u + (unsigned int)__builtin_ctz(m->bits);
        m->bits &= m->bits - 1u;
        struct vgic_irq *i = lr_irq(d, c, id);
        if (irq_wants_lr_of(d, vcpu, i, id)) {
            *irq = i;
            return (int)id;
        }
        c->maybe[m->w] &= ~((unsigned int)1u << (id % 32u));
    }
}

static inline unsigned int collect(struct vgic *d, unsigned int vcpu, struct candidate *out,
                            unsigned int max, unsigned int *kept)
{
    unsigned int total = 0u, n = 0u;
    struct maybe_walk m = maybe_walk_start(d, vcpu);
    struct vgic_irq *irq;
    for (int id; (id = maybe_walk_next(d, vcpu, &m, &irq)) >= 0; total++) {
        keep_best(out, max, &n, (unsigned int)id, irq);
    }
    *kept = n;
    return total;
}

/* A pending-only list register of lower priority than prio, to make room */
static inline int lr_victim(struct vgic *d, unsigned int vcpu, const struct vgic_lr_ops *lr,
                     uint8_t prio)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    int victim = -1;
    uint32_t worst = (uint32_t)prio >> 3;
    for (uint32_t used = c->lr_used; used; used &= used - 1u) {
        unsigned int i = (unsigned int)__builtin_ctz(used);
        uint32_t v = lr->read_lr(lr->ctx, i);
        uint32_t p = (v >> 23) & 0x1fu;
        if ((v & LR_STATE_MASK) == LR_PENDING && p > worst) {
            worst = p;
            victim = (int)i;
        }
    }
    return victim;
}

static inline void lr_evict(struct vgic *d, unsigned int vcpu, const struct vgic_lr_ops *lr,
                     unsigned int i)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    uint32_t v = lr->read_lr(lr->ctx, i);
    unsigned int intid = LR_VIRTID(v);
    struct vgic_irq *irq = lr_irq(d, c, intid);
    if (intid < 16u && !(v & LR_HW)) {
        irq->sgi_src |= (uint8_t)((unsigned int)1u << ((v >> 10) & 7u));
    } else {
        irq->pending = true;
    }
    irq->in_lr = false;
    mark(c, intid);
    c->lr_used &= ~((unsigned int)1u << i);
    lr->write_lr(lr->ctx, i, 0);
}

/* Put irq (intid) in free list register i */
static inline void lr_place(struct vgic_cpu *c, const struct vgic_lr_ops *lr, unsigned int i,
                            struct vgic_irq *irq, unsigned int intid)
{
    lr->write_lr(lr->ctx, i, lr_value(irq, intid));
    irq->in_lr = true;
    c->lr_intid[i] = (uint16_t)intid;
    c->lr_used |= (unsigned int)1u << i;
    c->stats.injected++;
}

/*
 * The best interrupts into the list registers, evicting pending-only ones of
 * lower priority when they are full.  Returns whether some still wait.
 * Out of line: the rare case, kept from crowding the common one's registers.
 */
static __attribute__((noinline)) bool place_sorted(struct vgic *d, unsigned int vcpu,
                                                   const struct vgic_lr_ops *lr, uint32_t all)
{
    struct candidate cand[VGIC_MAX_LRS];
    struct vgic_cpu *c = d->cpu[vcpu];
    /* all: at least list register 0 (GICH_VTR.ListRegs is the count - 1) */
    unsigned int n, nlr = 32u - (unsigned int)__builtin_clz(all);
    bool left = collect(d, vcpu, cand, nlr, &n) > n;
    if (left) {
        c->stats.overflow++;
    }
    for (unsigned int k = 0u; k < n; k++) {
        uint32_t free = all & ~c->lr_used;
        int i = free ? __builtin_ctz(free) : -1;
        if (i < 0) {
            i = lr_victim(d, vcpu, lr, cand[k].irq->priority);
            if (i < 0) {
                return true;    /* all list registers busy with better ones */
            }
            lr_evict(d, vcpu, lr, (unsigned int)i);
            left = true;        /* the evicted one waits again */
        }
        lr_place(c, lr, (unsigned int)i, cand[k].irq, cand[k].intid);
    }
    return left;
}

/*
 * The one interrupt that wants a list register when exactly one does (the
 * common case: one IPI, one timer tick): its INTID, with *out, and its bit
 * cleared; or -1 for none, -2 for more than one (the bits of all that want
 * one kept).  Clears the bits of those that do not want one on the way.
 * Its own loop rather than maybe_walk's: it empties each word it visits at
 * once (the one found goes into a list register) and stops at the second;
 * through maybe_walk a first delivery (a doorbell) costs ~10 more.
 */
static inline int only_candidate(struct vgic *d, unsigned int vcpu, struct vgic_cpu *c,
                                 struct vgic_irq **out)
{
    int found = -1;
    for (uint32_t words = c->maybe_words; words; words &= words - 1u) {
        unsigned int w = (unsigned int)__builtin_ctz(words);
        for (uint32_t bits = c->maybe[w]; bits; bits &= bits - 1u) {
            unsigned int id = w * 32u + (unsigned int)__builtin_ctz(bits);
            struct vgic_irq *irq = lr_irq(d, c, id);
            if (!irq_wants_lr_of(d, vcpu, irq, id)) {
                continue;
            }
            if (found >= 0) {
                mark(c, (unsigned int)found);   /* its word may be cleared */
                return -2;
            }
            found = (int)id;
            *out = irq;
        }
        c->maybe[w] = 0u;
        c->maybe_words &= ~((unsigned int)1u << w);
    }
    return found;
}

/* The flush's end: left, whether interrupts still wait */
static inline __attribute__((always_inline)) void
flush_end(struct vgic *d, struct vgic_cpu *c, const struct vgic_lr_ops *lr, bool left)
{
    /* ask for a maintenance interrupt when the list registers run (nearly)
     * empty - underflow, GICv2 5.3.2 */
    if (left != c->underflow) {
        c->underflow = left;
        lr->set_underflow(lr->ctx, left);
    }
    if (left) {
        c->queued = true;
    }
    spin_unlock(&d->lock);
}

/*
 * The flush's second half, under the lock, which it releases: the
 * interrupts waiting placed.  The common case, one interrupt and a free
 * list register, goes straight in (into one of stale, the ended ones the
 * sync freed but did not write 0, if any: written once); more than that,
 * or none free, sorts.
 */
static inline __attribute__((always_inline)) void
flush_place(struct vgic *d, unsigned int vcpu, struct vgic_cpu *c,
            const struct vgic_lr_ops *lr, uint32_t stale)
{
    bool left = false;
    if ((d->ctlr & 1u) && c->maybe_words) {
        /* every list register we do not hold is empty or in stale: sync
         * frees, evict and save write 0, so GICH_ELRSR need not be read */
        uint32_t all = lr->lr_mask(lr->ctx);
        uint32_t free = all & ~c->lr_used;
        struct vgic_irq *irq = NULL;
        int id = only_candidate(d, vcpu, c, &irq);
        if (id >= 0 && free) {
            unsigned int i = (unsigned int)__builtin_ctz(stale ? stale : free);
            stale &= ~((unsigned int)1u << i);
            lr_place(c, lr, i, irq, (unsigned int)id);
        } else if (id != -1) {
            if (id >= 0) {
                mark(c, (unsigned int)id);
            }
            lr_zero(lr, stale);
            stale = 0u;
            left = place_sorted(d, vcpu, lr, all);
        } else {
            /* otherwise nothing to do */
        }
    }
    lr_zero(lr, stale);
    flush_end(d, c, lr, left);
}

/* The rest of a flush whose sync found passthrough SPIs in busy list
 * registers (pt): those looked at first, then the placement, all of it
 * sorted (place_sorted: the common case's shortcut is not worth its
 * size here) */
static __attribute__((noinline, cold)) void flush_pt(struct vgic *d, unsigned int vcpu,
                                                     const struct vgic_lr_ops *lr,
                                                     uint32_t stale, uint32_t pt)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    lr_sync_pt(d, c, lr, pt);
    lr_zero(lr, stale);
    bool left = (d->ctlr & 1u) && c->maybe_words &&
                place_sorted(d, vcpu, lr, lr->lr_mask(lr->ctx));
    flush_end(d, c, lr, left);
}

/*
 * Before the guest runs: what the hardware did with the list registers
 * taken back, then the interrupts waiting placed (flush_place).  queued is
 * cleared by the sync, before the busy list registers are read, so that
 * what they ask for stays (VGIC_QUEUED_WATCH), or here when there is no
 * sync: one store on either path.
 */
static inline void vgic_flush_with(struct vgic *d, unsigned int vcpu,
                                   const struct vgic_lr_ops *lr)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    spin_lock(&d->lock);
    lr_take_fired(c);
    uint32_t stale = 0u, pt = 0u;
    if (c->lr_used != 0u) {
        stale = lr_sync_ended(d, vcpu, c, lr, true, &pt);
    } else {
        c->queued = false;
    }
    if (pt != 0u) {
        flush_pt(d, vcpu, lr, stale, pt);     /* a tail call: nothing live */
    } else {
        flush_place(d, vcpu, c, lr, stale);
    }
}

static inline bool vgic_has_pending_with(struct vgic *d, unsigned int vcpu,
                                         const struct vgic_lr_ops *lr)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    if ((c->queued & ~VGIC_QUEUED_WATCH) != 0u) {
        return true;
    }
    /* a pending list register above the guest's priority mask (VMCR.VMPriMask) */
    uint32_t pmr = (lr->vmcr(lr->ctx) >> 27) & 0x1fu;
    for (uint32_t used = c->lr_used; used; used &= used - 1u) {
        uint32_t v = lr->read_lr(lr->ctx, (unsigned int)__builtin_ctz(used));
        if ((v & LR_PENDING) && ((v >> 23) & 0x1fu) < pmr) {
            return true;
        }
    }
    return false;
}

#endif
