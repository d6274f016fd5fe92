/*
 * The sync half of the list registers (vgic_lr.h): taking back what the
 * hardware did with a vCPU's list registers (GICv2 5.3.13-5.3.14), and the
 * helpers the flush shares with it.  Inline code over a vgic_lr_ops table,
 * like vgic_lr.h, which includes it; callers hold the distributor lock
 * where the names say _locked.
 */
#ifndef VGIC_VGIC_LR_SYNC_H
#define VGIC_VGIC_LR_SYNC_H

#include <stddef.h>
#include "vgic.h"
#include "vgic_pt.h"

/* The vCPU an SPI is delivered to: the lowest one in its target list */
static inline int spi_target(struct vgic *d, const struct vgic_irq *irq)
{
    uint32_t t = irq->targets & (((unsigned int)1u << d->nr_vcpus) - 1u);
    return t ? __builtin_ctz(t) : -1;
}

static inline bool irq_wants_lr(const struct vgic_irq *irq, unsigned int intid)
{
    bool pend = irq->pending || (intid < 16u && irq->sgi_src);
    return pend && irq->enabled && !irq->in_lr;
}

/* irq (intid) wants a list register of vcpu: deliverable, and its own */
static inline bool irq_wants_lr_of(struct vgic *d, unsigned int vcpu,
                                   const struct vgic_irq *irq, unsigned int intid)
{
    return irq_wants_lr(irq, intid) &&
           ((intid < VGIC_NR_PRIVATE) || (spi_target(d, irq) == (int)vcpu));
}

static inline void mark(struct vgic_cpu *c, unsigned int intid)
{
    c->maybe[intid / 32u] |= (unsigned int)1u << (intid % 32u);
    c->maybe_words |= (unsigned int)1u << (intid / 32u);
}

/* an interrupt named by a list register we wrote: always in range */
static inline struct vgic_irq *lr_irq(struct vgic *d, struct vgic_cpu *c, unsigned int intid)
{
    return (intid < VGIC_NR_PRIVATE) ? &c->priv[intid] : &d->spi[intid - VGIC_NR_PRIVATE];
}

/* The interrupt of a list register the guest has ended: out of it, and
 * pending again if it is a level source still asserted */
static inline void lr_ended(struct vgic_irq *irq)
{
    irq->in_lr = false;
    if (!irq->edge && !irq->hw && irq->level) {
        irq->pending = true;
    }
}

/* List register i is free again: its interrupt (ended) back to the
 * distributor, looked for by the next flush if it wants one again */
static inline void lr_freed(struct vgic_cpu *c, unsigned int i, struct vgic_irq *irq,
                            unsigned int intid)
{
    c->lr_used &= ~((unsigned int)1u << i);
    if (irq_wants_lr(irq, intid)) {
        c->queued = true;
        mark(c, intid);
    }
}

/*
 * The guest changed the group or priority of an interrupt waiting in a
 * list register: a real distributor would signal it with the new ones
 * (4.3.4, 4.3.11), so the list register takes them while it is only
 * pending.  (Changing the priority of an active interrupt is UNPREDICTABLE.)
 */
static inline uint32_t lr_refresh(const struct vgic_irq *irq, uint32_t v)
{
    if ((v & LR_STATE_MASK) != LR_PENDING) {
        return v;
    }
    uint32_t kept = v & ~(LR_GROUP1 | LR_PRIO(0xffu));
    return kept | LR_PRIO(irq->priority) | (irq->group1 ? LR_GROUP1 : 0u);
}

static inline uint32_t lr_value(struct vgic_irq *irq, unsigned int intid)
{
    uint32_t v = LR_VIRTID(intid) | LR_PRIO(irq->priority) | LR_PENDING;
    if (irq->group1) {
        v |= LR_GROUP1;
    }
    if (irq->hw) {
        irq->pending = false;   /* the list register owns it now */
        v |= LR_HW | LR_PHYSID(irq->hwirq);
        /* never pending and active with HW set (GICv2 5.3.13; KVM's
         * populate_lr alike): a guest that wrote ISACTIVER gets it active */
        if (irq->active) {
            v = (v & ~LR_PENDING) | LR_ACTIVE;
        }
        return v;
    }
    if (intid < 16u) {
        unsigned int src = (unsigned int)__builtin_ctz(irq->sgi_src);
        irq->sgi_src &= (uint8_t)~((unsigned int)1u << src);
        v |= LR_CPUID(src);
        if (irq->sgi_src != 0u) {
            v |= LR_EOI;    /* more sources wait: hear when this one ends */
        }
    } else {
        irq->pending = false;
        if (!irq->edge) {
            v |= LR_EOI;    /* re-sample the level at EOI (5.2.2) */
        }
    }
    return v;
}

/* Free list registers written 0: nothing stale is left behind, so that
 * every list register a vCPU does not hold is empty (vgic_sr.c) */
static inline void lr_zero(const struct vgic_lr_ops *lr, uint32_t lrs)
{
    for (; lrs; lrs &= lrs - 1u) {
        lr->write_lr(lr->ctx, (unsigned int)__builtin_ctz(lrs), 0);
    }
}

/* The forwarded PPIs taken on the vCPU's own CPU since the last look
 * (vgic_ppi_fired): pending now, under the lock like every other source */
static inline void lr_take_fired(struct vgic_cpu *c)
{
    for (uint32_t f = c->ppi_fired; f; f &= f - 1u) {
        unsigned int id = 16u + (unsigned int)__builtin_ctz(f);
        c->priv[id].pending = true;
        mark(c, id);
    }
    c->ppi_fired = 0;
}

/* The list registers we hold that are not empty: read back (out of line:
 * the interrupt delivery path finds the ones it wrote ended).  Returns
 * those of passthrough SPIs still pending or active, for lr_sync_pt. */
static __attribute__((noinline)) uint32_t lr_sync_busy(struct vgic *d, struct vgic_cpu *c,
                                                       const struct vgic_lr_ops *lr,
                                                       uint32_t busy)
{
    uint32_t pt = 0u;
    for (uint32_t used = busy; used; used &= used - 1u) {
        unsigned int i = (unsigned int)__builtin_ctz(used);
        uint32_t v = lr->read_lr(lr->ctx, i);
        unsigned int intid = LR_VIRTID(v);
        struct vgic_irq *irq = lr_irq(d, c, intid);
        irq->active = (v & LR_ACTIVE) != 0u;
        if ((v & LR_STATE_MASK) != 0u) {
            if ((v & LR_HW) && irq_passthrough(d, irq, intid)) {
                pt |= (unsigned int)1u << i;
            }
            /* still pending or active in the hardware; if it came again
             * meanwhile, hear when the guest ends this one (EOI maintenance,
             * 5.3.9), or nothing brings the next one in */
            uint32_t nv = v;
            if (!(v & (LR_HW | LR_EOI)) && (irq->pending || (intid < 16u && irq->sgi_src))) {
                nv |= LR_EOI;
            }
            if (c->lr_stale) {
                nv = lr_refresh(irq, nv);
            }
            if (nv != v) {
                lr->write_lr(lr->ctx, i, nv);
            }
            continue;
        }
        /* ended with EOI maintenance asked for */
        lr->write_lr(lr->ctx, i, 0);    /* clears its EISR bit (5.3.9) */
        lr_ended(irq);
        lr_freed(c, i, irq, intid);
    }
    return pt;
}

/*
 * The list registers of passthrough SPIs that lr_sync_busy found: each
 * withdrawn if a GIC would no longer signal it, or watched (hw_withdraw).
 * Apart from lr_sync_busy, and in the flush reached by a tail call
 * (flush_pt): the calls it makes clobber every caller-saved register, and
 * GCC's interprocedural register allocation (-fipa-ra) would otherwise
 * keep the interrupt delivery path's values out of them around its sync.
 */
static __attribute__((noinline, cold)) void lr_sync_pt(struct vgic *d, struct vgic_cpu *c,
                                                       const struct vgic_lr_ops *lr,
                                                       uint32_t pt)
{
    for (; pt; pt &= pt - 1u) {
        unsigned int i = (unsigned int)__builtin_ctz(pt);
        /* read again: lr_sync_busy may have refreshed its priority or
         * group, never its state */
        uint32_t v = lr->read_lr(lr->ctx, i);
        if (hw_withdraw(d, c, lr_irq(d, c, LR_VIRTID(v)), v)) {
            lr->write_lr(lr->ctx, i, 0);
            c->lr_used &= ~((unsigned int)1u << i);
        }
    }
}

/*
 * Take back what the hardware did with our list registers.  The ones the
 * guest has ended are found from GICH_ELRSR alone, without reading them
 * (their interrupt is in lr_intid); the others are read.  With refill (the
 * flush), an ended interrupt that wants a list register again - the next
 * IPI of the same SGI, the next tick of the timer - goes straight back into
 * the one it had, unless the distributor is off or the SPI went elsewhere:
 * neither a second write nor a walk for it.  (Its priority is not weighed
 * against the others waiting: when the list registers are full, the
 * sorted placement evicts it like any pending-only one.)  Returns the
 * ended ones now free but not yet written 0 (lr_zero): the flush reuses
 * one of them without writing it twice.  The busy ones that hold
 * passthrough SPIs go to *pt, for lr_sync_pt (left alone if none is busy).
 */
static inline __attribute__((always_inline)) uint32_t
lr_sync_ended(struct vgic *d, unsigned int vcpu, struct vgic_cpu *c,
              const struct vgic_lr_ops *lr, bool refill, uint32_t *pt)
{
    uint32_t used = c->lr_used;
    uint32_t empty = used & lr->empty(lr->ctx);
    uint32_t stale = empty;
    for (uint32_t e = empty; e; e &= e - 1u) {
        unsigned int i = (unsigned int)__builtin_ctz(e);
        unsigned int intid = c->lr_intid[i];
        struct vgic_irq *irq = lr_irq(d, c, intid);
        irq->active = false;
        lr_ended(irq);
        if (refill && (d->ctlr & 1u) && irq_wants_lr_of(d, vcpu, irq, intid)) {
            lr->write_lr(lr->ctx, i, lr_value(irq, intid));
            irq->in_lr = true;
            c->stats.injected++;
            /* nothing to look for (and no word, if that was its last) */
            c->maybe[intid / 32u] &= ~((unsigned int)1u << (intid % 32u));
            if (!c->maybe[intid / 32u]) {
                c->maybe_words &= ~((unsigned int)1u << (intid / 32u));
            }
            stale &= ~((unsigned int)1u << i);
            continue;
        }
        lr_freed(c, i, irq, intid);
    }
    /* the flush's: nothing waits once it is done, but for what the busy
     * ones ask for (a passthrough SPI held pending to look at again,
     * VGIC_QUEUED_WATCH, hw_withdraw): cleared between the two */
    if (refill) {
        c->queued = false;
    }
    if ((used & ~empty) != 0u) {
        *pt = lr_sync_busy(d, c, lr, used & ~empty);
    }
    c->lr_stale = false;
    return stale;
}

#endif
