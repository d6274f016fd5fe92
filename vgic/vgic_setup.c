/*
 * The virtual distributor's set-up (vgic/vgic_dist.c is the model): its
 * state at a guest's start, a vCPU's interrupts at its reset, and the
 * interrupts linked to hardware (GICv2 spec IHI 0048B, 4.3 for the reset
 * values of the registers; 5.2.1 for hardware interrupts).
 */
#include <string.h>
#include "vgic.h"
#include "vgic_lr.h"

void vgic_init(struct vgic *d, unsigned int nr_irqs, unsigned int nr_vcpus,
               struct vgic_cpu *const *cpus, const struct vgic_env *env)
{
    (void)memset(d->spi, 0, sizeof(d->spi));
    d->ctlr = 0u;
    d->direct = false;
    d->nr_irqs = (nr_irqs > VGIC_MAX_IRQS) ? VGIC_MAX_IRQS : ((nr_irqs + 31u) & ~31u);
    d->nr_vcpus = (nr_vcpus > VGIC_MAX_VCPUS) ? VGIC_MAX_VCPUS : nr_vcpus;
    d->env = *env;
    /* a uniprocessor distributor's SPIs all target its one CPU, and its
     * GICD_ITARGETSRs are read-only (GICv2 4.3.12) */
    if (d->nr_vcpus == 1u) {
        for (unsigned int j = 0u; j < (d->nr_irqs - VGIC_NR_PRIVATE); j++) {
            d->spi[j].targets = 1;
        }
    }
    /* ITLinesNumber, CPUNumber, no SecurityExtn (GICv2 4.3.2) */
    d->typer = (d->nr_irqs / 32u - 1u) | ((d->nr_vcpus - 1u) << 5);
    for (unsigned int i = 0u; i < d->nr_vcpus; i++) {
        d->cpu[i] = cpus[i];
        (void)memset(d->cpu[i], 0, sizeof(*d->cpu[i]));
        d->cpu[i]->dist = d;
        d->cpu[i]->id = i;
        for (unsigned int j = 0u; j < 16u; j++) {
            d->cpu[i]->priv[j].edge = true;     /* SGIs are edge (4.3.13) */
            d->cpu[i]->priv[j].enabled = true;  /* and always enabled here */
        }
    }
}

void vgic_vcpu_reset(struct vgic *d, unsigned int vcpu)
{
    /* under the lock: the guest's other vCPUs may be sending it SGIs or
     * retargeting SPIs this very moment (a CPU_ON racing an SGI flood) */
    spin_lock(&d->lock);
    struct vgic_cpu *c = d->cpu[vcpu];
    for (unsigned int j = 0u; j < VGIC_NR_PRIVATE; j++) {
        struct vgic_irq *irq = &c->priv[j];
        irq->pending = irq->active = irq->in_lr = false;
        irq->sgi_src = 0;
        irq->level = false;
    }
    for (unsigned int j = 0u; j < (d->nr_irqs - VGIC_NR_PRIVATE); j++) {
        if (d->spi[j].in_lr && spi_target(d, &d->spi[j]) == (int)vcpu) {
            d->spi[j].in_lr = false;
        }
    }
    c->lr_used = 0u;
    c->queued = c->underflow = false;
    c->ppi_fired = 0;
    c->hcr = c->vmcr = c->apr = 0u;
    (void)memset(c->lrs, 0, sizeof(c->lrs));
    spin_unlock(&d->lock);
}

void vgic_hw_resync_private(struct vgic *d, unsigned int vcpu)
{
    if (!d->direct || vcpu >= d->nr_vcpus || !d->env.hw_update) {
        return;
    }
    spin_lock(&d->lock);
    for (unsigned int j = 16u; j < VGIC_NR_PRIVATE; j++) {
        struct vgic_irq *irq = &d->cpu[vcpu]->priv[j];
        if (irq->hw) {
            d->env.hw_update(d->env.ctx, j, irq, vcpu);
        }
    }
    spin_unlock(&d->lock);
}

void vgic_set_hw(struct vgic *d, unsigned int vcpu, unsigned int intid, unsigned int hwirq)
{
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq != NULL) {
        irq->hw = true;
        irq->hwirq = (uint16_t)hwirq;
    }
}
