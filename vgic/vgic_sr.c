/*
 * GICH state switched with a vCPU (GICv2 5.3): HCR, VMCR (the guest's view
 * of its CPU interface control, PMR and BPR), APR and the list registers.
 * Saved only when the vCPU leaves its physical CPU.
 */
#include <arch/sysregs.h>
#include "vgic_hw.h"
#include "gic.h"
#include "vgic_lr.h"
#include "hyp/platform/percpu.h"

/* GICH's base is loaded once per call: a volatile store through it could
 * alias the pointer variable itself, so the compiler would reload it */
static inline uint32_t h_rd(volatile uint8_t *gich, uint32_t off)
{
    return *(volatile uint32_t *)(gich + off);
}
static inline void h_wr(volatile uint8_t *gich, uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(gich + off) = v;
}

/*
 * Only the list registers the vCPU holds (lr_used) move: every other one
 * is empty, as they are at reset (GICv2 5.3.13) and as every list register
 * freed, evicted or saved is written 0 (vgic_lr.h, below), so the next
 * vCPU finds them empty too.  A vCPU reset (vgic_vcpu_reset) clears
 * lr_used, so its stale saved copies are never restored.
 */
void vgic_save(struct vgic_cpu *c)
{
    volatile uint8_t *gich = gic_gich();
    this_cpu()->vgic = NULL;
    c->vmcr = h_rd(gich, GICH_VMCR);
    c->apr = h_rd(gich, GICH_APR);
    c->hcr = h_rd(gich, GICH_HCR);
    h_wr(gich, GICH_HCR, 0);    /* no virtual interrupts for whoever comes next */
    for (uint32_t used = c->lr_used; used; used &= used - 1u) {
        unsigned int i = (unsigned int)__builtin_ctz(used);
        c->lrs[i] = h_rd(gich, GICH_LR0 + (4u * i));
        h_wr(gich, GICH_LR0 + (4u * i), 0);
    }
}

void vgic_restore(struct vgic_cpu *c)
{
    volatile uint8_t *gich = gic_gich();
    this_cpu()->vgic = c;
    for (uint32_t used = c->lr_used; used; used &= used - 1u) {
        unsigned int i = (unsigned int)__builtin_ctz(used);
        h_wr(gich, GICH_LR0 + (4u * i), c->lrs[i]);
    }
    h_wr(gich, GICH_APR, c->apr);
    h_wr(gich, GICH_VMCR, c->vmcr);
    h_wr(gich, GICH_HCR, (c->hcr & GICH_HCR_UIE) | GICH_HCR_EN);
}

/* The saved list registers and VMCR as list-register ops (read only) */
static uint32_t saved_read_lr(void *ctx, unsigned int i)
{
    return ((const struct vgic_cpu *)ctx)->lrs[i];
}
static uint32_t saved_vmcr(void *ctx)
{
    return ((const struct vgic_cpu *)ctx)->vmcr;
}

bool vgic_saved_wants_wake(struct vgic *d, unsigned int vcpu)
{
    const struct vgic_lr_ops ops = { .read_lr = saved_read_lr, .vmcr = saved_vmcr,
                                     .ctx = d->cpu[vcpu] };
    return vgic_has_pending_with(d, vcpu, &ops);
}
