/*
 * Lazy VFP/NEON switching on shared CPUs.  The VFP holds the registers of
 * one vCPU, its owner (pcpus[].vfp_owner); any other vCPU runs with
 * HCPTR.TCP10/TCP11 set (B4.1.74), so its first VFP or Advanced SIMD
 * instruction traps (HSR EC 0x07, B3.13.6).  Only then are the owner's
 * d0-d31, FPSCR and FPEXC saved and the new one's restored (hyp/arch/vfp_sr.S),
 * and the instruction runs again, now untrapped.  A guest that does not
 * touch the VFP in its turn costs nothing.  Exclusive CPUs never trap:
 * their only vCPU owns the VFP for good.
 */
#include <stddef.h>
#include <arch/sysregs.h>
#include "vfp.h"
#include "hyp/platform/percpu.h"

bool vfp_trap(struct vcpu_vfp *mine)
{
    struct pcpu *c = this_cpu();
    if (c->vfp_owner == mine) {
        return false;   /* not a trap of ours (it owns the VFP already) */
    }
    sysreg_write_hcptr(VCPU_HCPTR);     /* HYP's own accesses trap too */
    isb();
    if (c->vfp_owner != NULL) {
        vfp_save(c->vfp_owner);
    }
    vfp_restore(mine);
    c->vfp_owner = mine;
    return true;        /* ELR_hyp is the instruction: it runs again */
}

uint32_t vfp_mvfr[2];

void vfp_id_init(void)
{
    sysreg_write_hcptr(VCPU_HCPTR);     /* CP10/CP11 open to HYP */
    isb();
    vfp_read_ids(vfp_mvfr);
}
