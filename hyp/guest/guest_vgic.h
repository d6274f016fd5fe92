#ifndef HYP_GUEST_VGIC_H
#define HYP_GUEST_VGIC_H

struct guest;

/* a guest's distributor, timer and passthrough interrupts at its start */
void guest_vgic_init(struct guest *g);
/* a guest is gone: its passthrough interrupts off and deactivated */
void guest_vgic_release(struct guest *g);

#endif
