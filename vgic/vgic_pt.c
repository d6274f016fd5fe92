/*
 * Passthrough SPIs' pending and active state (vgic_pt.h): the physical
 * distributor's, seen and changed through the guest's distributor.  All
 * under the distributor lock, called by the register accessors
 * (vgic_dist.c) and the list-register sync (vgic_lr.h).  Like KVM's vgic
 * (irq->hw, vgic_irq_set_phys_active): what the hypervisor acknowledged
 * and has not yet given the guest is given back to the distributor when
 * the guest no longer wants it.
 */
#include "vgic_pt.h"
#include "vgic_lr.h"

static bool phys_pending(const struct vgic *d, const struct vgic_irq *irq)
{
    uint32_t w = d->env.hw_read(d->env.ctx, GICD_ISPENDR + (4u * (irq->hwirq / 32u)));
    return (w >> (irq->hwirq % 32u)) & 1u;
}

/* bank: GICD_ISPENDR, GICD_ICPENDR, GICD_ISACTIVER or GICD_ICACTIVER */
static void phys_write(const struct vgic *d, const struct vgic_irq *irq, uint32_t bank)
{
    d->env.hw_write(d->env.ctx, bank + 4u * (irq->hwirq / 32u), (unsigned int)1u << (irq->hwirq % 32u));
}

/*
 * Pending: in the model, or in a list register and not yet taken.  A
 * passthrough SPI's is also the physical one's: a level one's is its line,
 * even while forwarded to a list register (the physical one is then
 * active, and pending while the line is high), or what the guest wrote to
 * GICD_ISPENDR until it takes it; an edge one's is also the edge the
 * hypervisor took and forwarded.
 */
bool vgic_irq_pending(struct vgic *d, const struct vgic_irq *irq, unsigned int intid)
{
    bool virt = irq->pending || (irq->in_lr && !irq->active) || (intid < 16u && irq->sgi_src);
    if (!irq_passthrough(d, irq, intid)) {
        return virt;
    }
    bool latched = irq->pt & (VGIC_PT_LATCHED | VGIC_PT_TAKEN);
    return phys_pending(d, irq) || ((irq->edge || latched) && virt);
}

/* A passthrough SPI's, or a direct guest's hardware interrupt's; a PPI of
 * a guest with a virtual interface is left to its list registers */
void hw_mirror(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    if ((intid < VGIC_NR_PRIVATE) && !d->direct) {
        return;
    }
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq->hw && d->env.hw_update) {
        d->env.hw_update(d->env.ctx, intid, irq, (unsigned int)spi_target(d, irq));
    }
}

/* Pended in the physical distributor: taken and forwarded if enabled, and
 * pending for the guest until it takes it (latched) */
bool hw_set_pending(struct vgic *d, struct vgic_irq *irq, unsigned int intid)
{
    if (!irq_passthrough(d, irq, intid)) {
        return false;
    }
    phys_write(d, irq, GICD_ISPENDR);
    irq->pt |= VGIC_PT_LATCHED;
    return true;
}

void hw_recheck(struct vgic *d, struct vgic_irq *irq, unsigned int intid)
{
    int owner = spi_target(d, irq);
    if (!irq->in_lr || owner < 0 || !irq_passthrough(d, irq, intid)) {
        return;
    }
    /* its owner's next flush, before the guest runs on (hw_withdraw) */
    d->cpu[owner]->queued |= VGIC_QUEUED_WATCH;
    if (d->env.kick != NULL) {
        d->env.kick(d->env.ctx, (unsigned int)owner);
    }
}

/*
 * GICD_ICPENDR (4.3.8): the physical pending latch cleared (a level one
 * whose line is high stays pending, as on any GIC).  What the hypervisor
 * took and has not yet given the guest is given back: waiting in the
 * model, the physical one is deactivated here; in a list register, its
 * owner's flush withdraws it.  Once the guest has taken it (active)
 * nothing of it is pending.
 */
bool hw_clear_pending(struct vgic *d, struct vgic_irq *irq, unsigned int intid)
{
    if (!irq_passthrough(d, irq, intid)) {
        return false;
    }
    phys_write(d, irq, GICD_ICPENDR);
    irq->pt &= (uint8_t)~(VGIC_PT_LATCHED | VGIC_PT_TAKEN);
    if (irq->pending && !irq->in_lr) {
        irq->pending = false;
        phys_write(d, irq, GICD_ICACTIVER);
    } else if (irq->in_lr && !irq->active) {
        irq->pt |= VGIC_PT_UNPEND;
        hw_recheck(d, irq, intid);
    } else {
        /* otherwise nothing to do */
    }
    return true;
}

/* Active in the physical distributor too, so that it is not signalled
 * again meanwhile (3.2.4); made inactive only if the guest had it active,
 * not while the hypervisor holds it for a list register */
void hw_set_active(struct vgic *d, struct vgic_irq *irq, unsigned int intid, bool active)
{
    if (!irq_passthrough(d, irq, intid)) {
        return;
    }
    if (active) {
        phys_write(d, irq, GICD_ISACTIVER);
    } else if (irq->active) {
        phys_write(d, irq, GICD_ICACTIVER);
    } else {
        /* otherwise nothing to do */
    }
}

/*
 * Withdrawn: the virtual interrupt leaves the list register and the
 * physical one is deactivated, so that its state is the distributor's
 * again - still pending there if its line is high (taken again when
 * enabled), an edge or a latch not cleared pended again.
 */
bool hw_withdraw(struct vgic *d, struct vgic_cpu *c, struct vgic_irq *irq, uint32_t lr)
{
    if ((lr & LR_ACTIVE) != 0u) {
        irq->pt &= VGIC_PT_LATCHED;     /* taken; a new latch waits for the next */
    }
    if ((lr & LR_STATE_MASK) != LR_PENDING) {
        return false;
    }
    bool latched = irq->pt & (VGIC_PT_LATCHED | VGIC_PT_TAKEN);
    bool unpend = irq->pt & VGIC_PT_UNPEND;
    bool level_gone = !irq->edge && !latched && !phys_pending(d, irq);
    if (irq->enabled && !unpend && !level_gone) {
        c->queued |= VGIC_QUEUED_WATCH;
        return false;
    }
    if ((irq->edge || latched) && !unpend) {
        phys_write(d, irq, GICD_ISPENDR);
    }
    irq->pt = 0;
    irq->pending = false;
    irq->in_lr = false;
    phys_write(d, irq, GICD_ICACTIVER);
    return true;
}

void vgic_hw_acked(struct vgic *d, unsigned int intid)
{
    spin_lock(&d->lock);
    struct vgic_irq *irq = vgic_get_irq(d, 0, intid);
    if (irq && irq_passthrough(d, irq, intid)) {
        irq->pt = irq->pt & VGIC_PT_LATCHED ? VGIC_PT_TAKEN : 0u;
    }
    spin_unlock(&d->lock);
}
