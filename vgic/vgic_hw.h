/* The virtual GIC on the real hardware: GICH, maintenance, forwarding. */
#ifndef VGIC_VGIC_HW_H
#define VGIC_VGIC_HW_H

#include <stdbool.h>
#include "vgic.h"

/* once per physical CPU, after gic_cpu_init */
void vgic_hw_cpu_init(void);
/*
 * A PMU counter is the hypervisor's (hyp/sched/budget.c): own() is asked
 * first at every PMU interrupt and answers true when it was its counter's
 * alone; guest_bits are the PMINTENSET bits that are the guests'.
 */
void vgic_hw_pmu_reserve(uint32_t guest_bits, bool (*own)(void));
/* GICH state with the vCPU (vgic/vgic_sr.c); between the two, c is this
 * physical CPU's loaded interface (pcpu.vgic) */
void vgic_save(struct vgic_cpu *c);
void vgic_restore(struct vgic_cpu *c);
/* list registers before entering the guest (hyp/arch/entry.S, when
 * c->queued says anything waits) */
void vgic_cpu_flush(struct vgic_cpu *c);
/* an interrupt c's vCPU would take is pending: wake it from WFI */
bool vgic_cpu_wants_wake(struct vgic_cpu *c);
/* the same for a vCPU that is away from its CPU: from its saved GICH state */
bool vgic_saved_wants_wake(struct vgic *d, unsigned int vcpu);
/* MMIO handler for a guest's distributor at VBOARD_GICD_IPA: dev is its
 * struct vgic, the caller the vCPU loaded on this CPU */
bool vgic_dist_handler(void *dev, struct mmio_access *a, uint32_t offset);

#define GICH_HCR    0x000u
#define GICH_VTR    0x004u
#define GICH_VMCR   0x008u
#define GICH_MISR   0x010u
#define GICH_EISR0  0x020u
#define GICH_ELRSR0 0x030u
#define GICH_ELRSR1 0x034u
#define GICH_APR    0x0f0u
#define GICH_LR0    0x100u
#define GICH_HCR_EN  (1u << 0)
#define GICH_HCR_UIE (1u << 1)

#endif
