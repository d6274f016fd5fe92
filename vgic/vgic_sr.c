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

static inline uint32_t h_rd(uint32_t off) { return *(volatile uint32_t *)(gic_gich() + off); }
static inline void h_wr(uint32_t off, uint32_t v) { *(volatile uint32_t *)(gic_gich() + off) = v; }

static unsigned int nr_lrs(void)
{
    return (h_rd(GICH_VTR) & 0x3f) + 1;
}

void vgic_save(struct vgic_cpu *c)
{
    this_cpu()->vgic = NULL;
    c->vmcr = h_rd(GICH_VMCR);
    c->apr = h_rd(GICH_APR);
    c->hcr = h_rd(GICH_HCR);
    h_wr(GICH_HCR, 0);      /* no virtual interrupts for whoever comes next */
    unsigned int n = nr_lrs();
    for (unsigned int i = 0; i < n && i < VGIC_MAX_LRS; i++) {
        c->lrs[i] = (c->lr_used >> i) & 1 ? h_rd(GICH_LR0 + 4 * i) : 0;
        h_wr(GICH_LR0 + 4 * i, 0);
    }
}

void vgic_restore(struct vgic_cpu *c)
{
    this_cpu()->vgic = c;
    unsigned int n = nr_lrs();
    for (unsigned int i = 0; i < n && i < VGIC_MAX_LRS; i++)
        h_wr(GICH_LR0 + 4 * i, c->lrs[i]);
    h_wr(GICH_APR, c->apr);
    h_wr(GICH_VMCR, c->vmcr);
    h_wr(GICH_HCR, (c->hcr & GICH_HCR_UIE) | GICH_HCR_EN);
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
