/*
 * Passthrough SPIs of a guest with a virtual CPU interface: physical SPIs
 * forwarded hardware-linked (GICv2 5.2.1), whose pending and active state
 * as the guest reads and writes it (GICD_ISPENDR to GICD_ICACTIVER,
 * 4.3.7-4.3.10) is the physical interrupt's, and whose delivery follows
 * the guest's enable at once.  The hypervisor acknowledges one and puts it
 * in a list register; until the guest takes it, it is pending there while
 * the physical one is active, and a level one's line (the physical pending
 * bit of an active and pending interrupt, 3.2.4) still says whether it is
 * asserted.  The physical distributor comes in through the environment
 * (vgic_env hw_read, hw_write), so the unit tests model it.
 */
#ifndef VGIC_VGIC_PT_H
#define VGIC_VGIC_PT_H

#include "vgic.h"

static inline bool irq_passthrough(const struct vgic *d, const struct vgic_irq *irq,
                                   unsigned int intid)
{
    return irq->hw && (intid >= VGIC_NR_PRIVATE) && !d->direct && (d->env.hw_read != NULL);
}

/* GICD_ISPENDR's bit of intid as the guest reads it: the model's and the
 * list registers' view, and a passthrough SPI's physical one */
bool vgic_irq_pending(struct vgic *d, const struct vgic_irq *irq, unsigned int intid);
/* The state of a hardware interrupt as the guest set it (enable, priority,
 * target), to the physical distributor (vgic_env hw_update) */
void hw_mirror(struct vgic *d, unsigned int vcpu, unsigned int intid);
/* A guest's ISPENDR/ICPENDR write: false if intid is no passthrough SPI
 * (the caller sets the model's state), true when done */
bool hw_set_pending(struct vgic *d, struct vgic_irq *irq, unsigned int intid);
bool hw_clear_pending(struct vgic *d, struct vgic_irq *irq, unsigned int intid);
/* A guest's ISACTIVER/ICACTIVER write, mirrored (the caller sets the model) */
void hw_set_active(struct vgic *d, struct vgic_irq *irq, unsigned int intid, bool active);
/* The guest disabled it: a list register holding it pending is looked at */
void hw_recheck(struct vgic *d, struct vgic_irq *irq, unsigned int intid);
/*
 * A list register holding passthrough SPI irq, as the sync read it (lr):
 * true when it is withdrawn (the caller frees the list register) - pending,
 * not yet taken, and the guest disabled it or cleared its pending state,
 * or it is level-sensitive and its line dropped: a GIC would no longer
 * signal it (4.3.5, 4.3.8, 3.2.4).  Kept pending, c's next entry looks
 * again (VGIC_QUEUED_WATCH).
 */
bool hw_withdraw(struct vgic *d, struct vgic_cpu *c, struct vgic_irq *irq, uint32_t lr);
/* The hypervisor acknowledged passthrough SPI intid (before injecting it):
 * a new instance, so what was latched or withdrawn before is over, and a
 * latch the guest wrote is spent on this one.  Takes the lock */
void vgic_hw_acked(struct vgic *d, unsigned int intid);
#endif
