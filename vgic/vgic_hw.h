/* The virtual GIC on the real hardware: GICH, maintenance, forwarding. */
#ifndef VGIC_VGIC_HW_H
#define VGIC_VGIC_HW_H

#include <stdbool.h>
#include "vgic.h"

struct vcpu;
struct guest;

/* once per physical CPU, after gic_cpu_init */
void vgic_hw_cpu_init(void);
/* a guest's distributor, timer and passthrough interrupts at its start */
void vgic_guest_init(struct guest *g);
/* a guest is gone: its passthrough interrupts off and deactivated */
void vgic_guest_release(struct guest *g);
/* GICH state with the vCPU (vgic/vgic_sr.c) */
void vgic_save(struct vgic_cpu *c);
void vgic_restore(const struct vgic_cpu *c);
/* list registers before entering the guest, if anything waits */
static inline bool vgic_needs_flush(const struct vgic_cpu *c) { return c->queued; }
void vgic_vcpu_flush(struct vcpu *v);
bool vgic_vcpu_wants_wake(struct vcpu *v);
/* the same for a vCPU that is away from its CPU: from its saved GICH state */
bool vgic_saved_wants_wake(struct vgic *d, unsigned int vcpu);
/* MMIO handler for the guest's distributor at VBOARD_GICD_IPA */
bool vgic_dist_handler(void *dev, struct mmio_access *a, uint32_t offset);

#define GICH_HCR    0x000
#define GICH_VTR    0x004
#define GICH_VMCR   0x008
#define GICH_MISR   0x010
#define GICH_EISR0  0x020
#define GICH_ELRSR0 0x030
#define GICH_ELRSR1 0x034
#define GICH_APR    0x0f0
#define GICH_LR0    0x100
#define GICH_HCR_EN  (1u << 0)
#define GICH_HCR_UIE (1u << 1)

#endif
