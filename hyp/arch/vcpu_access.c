/*
 * A debugger's access to a vCPU that is loaded on no CPU (its guest is
 * halted for gdb, hyp/gdb): its virtual addresses translated the
 * way its own accesses are (its registers: vcpu_reg.c).
 */
#include <arch/sysregs.h>
#include "vcpu.h"
#include "vm.h"

/*
 * The physical address of v's virtual address va, through its stage 1
 * (its saved SCTLR, TTBRs, TTBCR, DACR, PRRR/NMRR) and its guest's Stage-2,
 * by the ATS12NSOPR/ATS12NSOPW operation from Hyp mode (B4.2.6): the
 * guest's translation regime is put into this CPU's Non-secure PL1
 * registers for the moment.  Only where no vCPU is loaded (the next
 * vcpu_load writes them all again).  False: the translation faults.
 */
bool vcpu_translate(struct vcpu *v, uint32_t va, bool write, uint64_t *pa)
{
    struct vm *g = v->vm;
    sysreg_write_vttbr(s2_vttbr(&g->s2, g->vmid));
    sysreg_write_hcr(HCR_VM);
    cp15_restore(&v->cp15);
    isb();
    if (write) {
        sysreg_op_ats12nsopw(va);
    } else {
        sysreg_op_ats12nsopr(va);
    }
    isb();
    uint64_t par = sysreg_read_par64();
    sysreg_write_hcr(0u);
    isb();
    if ((par & PAR_F) != 0u) {
        return false;
    }
    if ((par & PAR_LPAE) != 0u) {
        *pa = (par & PAR64_PA_MASK) | (va & 0xfffu);
    } else if ((par & PAR_SS) != 0u) {
        uint32_t pa32 = ((uint32_t)par & PAR32_SS_MASK) | (va & ~PAR32_SS_MASK);
        *pa = pa32;
    } else {
        uint32_t pa32 = ((uint32_t)par & PAR32_PA_MASK) | (va & 0xfffu);
        *pa = pa32;
    }
    return true;
}
