/* Lazy VFP/NEON switching on shared CPUs (vfp.c, vfp_sr.S). */
#ifndef HYP_ARCH_VFP_H
#define HYP_ARCH_VFP_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/sysregs.h>

/* HCPTR for every guest (B4.1.74): trace registers trap (TTA); RES1 bits.
 * VFP/NEON (TCP10, TCP11) trap only on a shared CPU, for the vCPU whose
 * registers are not the ones in the VFP (vfp.c) */
#define VCPU_HCPTR       (HCPTR_TTA | HCPTR_RES1)

/* The VFP/NEON registers (layout used by hyp/arch/vfp_sr.S) */
struct vcpu_vfp {
    uint32_t fpexc, fpscr;
    uint64_t d[32];
};

/*
 * An HCPTR trap of a vCPU whose VFP registers are saved in mine: make them
 * the VFP's (saving the owner's first).  False when mine already owns the
 * VFP: then the trap was not a lazy switch.
 */
bool vfp_trap(struct vcpu_vfp *mine);
void vfp_save(struct vcpu_vfp *s);
/* MVFR0, MVFR1 as the CPU has them, read once at boot (vfp_id_init) for
 * guests whose ID registers trap (HCR.TID3 traps VMRS of them too) */
extern uint32_t vfp_mvfr[2];
void vfp_id_init(void);
void vfp_read_ids(uint32_t ids[2]);
void vfp_restore(const struct vcpu_vfp *s);

#endif
