/*
 * A fake bank of GICH list registers (GICv2 IHI 0048B 5.3) and a tiny guest
 * CPU interface that acknowledges and ends what they hold: the hardware
 * side of the virtual distributor model (vgic/vgic_dist.c) for the unit
 * tests and the fuzzer.  FAKE_ASSERT is the host harness's assertion.
 */
#ifndef FAKE_LRS_H
#define FAKE_LRS_H

#include <stdbool.h>
#include <stdint.h>
#include "vgic/vgic.h"
#include "vgic/vgic_lr.h"

#ifndef FAKE_ASSERT
#define FAKE_ASSERT(c) assert_true(c)
#endif

/* ---- a fake list-register bank per vCPU ---- */

struct fake_lrs {
    unsigned int n;
    uint32_t lr[VGIC_MAX_LRS];
    bool underflow;
    uint32_t vmcr;
    unsigned int writes;
    unsigned int deactivated[16];   /* physical IDs the guest's EOI deactivated */
    unsigned int ndeact;
};

static uint32_t f_lr_mask(void *ctx)
{
    unsigned int n = ((struct fake_lrs *)ctx)->n;
    return n >= 32 ? ~0u : (1u << n) - 1;
}

static uint32_t f_read_lr(void *ctx, unsigned int i)
{
    struct fake_lrs *f = ctx;
    FAKE_ASSERT(i < f->n);
    return f->lr[i];
}

static void f_write_lr(void *ctx, unsigned int i, uint32_t v)
{
    struct fake_lrs *f = ctx;
    FAKE_ASSERT(i < f->n);
    f->lr[i] = v;
    f->writes++;
}

/* GICH_ELRSR (5.3.10): empty = no state and no pending EOI maintenance */
static uint32_t f_elrsr(void *ctx)
{
    struct fake_lrs *f = ctx;
    uint32_t e = 0;
    for (unsigned int i = 0; i < f->n; i++) {
        uint32_t v = f->lr[i];
        if (!(v & LR_STATE_MASK) && ((v & LR_HW) || !(v & LR_EOI)))
            e |= 1u << i;
    }
    return e;
}

static void f_set_underflow(void *ctx, bool on) { ((struct fake_lrs *)ctx)->underflow = on; }
static uint32_t f_vmcr(void *ctx) { return ((struct fake_lrs *)ctx)->vmcr; }

/* ---- a guest CPU interface over the fake list registers ---- */

/* GICV_IAR: the highest-priority pending LR above the mask becomes active.
 * Returns the LR index, or -1 (spurious). */
static int fake_ack(struct fake_lrs *f)
{
    uint32_t pmr = (f->vmcr >> 27) & 0x1f;
    int best = -1;
    for (unsigned int i = 0; i < f->n; i++) {
        uint32_t v = f->lr[i];
        if ((v & LR_STATE_MASK) != LR_PENDING || ((v >> 23) & 0x1f) >= pmr)
            continue;
        if (best < 0) {
            best = (int)i;
            continue;
        }
        uint32_t b = f->lr[best];
        uint32_t p = (v >> 23) & 0x1f, bp = (b >> 23) & 0x1f;
        if (p < bp || (p == bp && LR_VIRTID(v) < LR_VIRTID(b)))
            best = (int)i;
    }
    if (best >= 0)
        f->lr[best] = (f->lr[best] & ~LR_STATE_MASK) | LR_ACTIVE;
    return best;
}

/* GICV_EOIR for the interrupt acknowledged in LR i */
static void fake_eoi(struct fake_lrs *f, int i)
{
    FAKE_ASSERT(i >= 0 && (unsigned int)i < f->n);
    FAKE_ASSERT(f->lr[i] & LR_ACTIVE);
    f->lr[i] &= ~LR_STATE_MASK;
    if ((f->lr[i] & LR_HW) && f->ndeact < 16)
        f->deactivated[f->ndeact++] = (f->lr[i] >> 10) & 0x3ff;
}

/* the list registers of vCPU vcpu synced into the model (what
 * vgic/vgic_hw.c does with the real ones, under the distributor's lock) */
static inline void lr_sync_locked(struct vgic *d, unsigned int vcpu, const struct vgic_lr_ops *lr)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    lr_take_fired(c);
    uint32_t pt = 0;
    uint32_t stale = lr_sync_ended(d, vcpu, c, lr, false, &pt);
    lr_sync_pt(d, c, lr, pt);
    lr_zero(lr, stale);
}

static inline void vgic_sync_with(struct vgic *d, unsigned int vcpu,
                                   const struct vgic_lr_ops *lr)
{
    spin_lock(&d->lock);
    lr_sync_locked(d, vcpu, lr);
    spin_unlock(&d->lock);
}

#endif
