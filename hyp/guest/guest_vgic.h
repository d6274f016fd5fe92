#ifndef HYP_GUEST_VGIC_H
#define HYP_GUEST_VGIC_H

#include <stdbool.h>
#include <stdint.h>

struct guest;

/* a guest's distributor, timer and passthrough interrupts at its start */
void guest_vgic_init(struct guest *g);
/* a direct guest's distributor on the MMIO bus (dev: the guest): its SGIs
 * sent as physical ones, everything else as vgic_dist_handler */
struct mmio_access;
bool guest_vgic_direct_dist(void *dev, struct mmio_access *a, uint32_t offset);
/* a guest is gone: its passthrough interrupts off and deactivated */
void guest_vgic_release(struct guest *g);

#endif
