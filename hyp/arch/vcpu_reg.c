/*
 * A debugger's access to the registers of a vCPU that is loaded on no CPU
 * (its guest is halted for gdb, hyp/gdb): in the saved state.  No
 * hardware here: linked by the host unit tests too.
 */
#include <arch/sysregs.h>
#include "vcpu.h"

/* Rn as the guest sees it in its current mode (B9.2.1): banked SP and LR,
 * the FIQ mode's own r8-r12; r15 is the PC */
uint32_t *vcpu_saved_reg(struct vcpu *v, unsigned int n)
{
    struct vcpu_banked *b = &v->banked;
    uint32_t mode = v->regs.cpsr & PSR_MODE_MASK;
    if (n == 15u) {
        return &v->regs.pc;
    }
    if ((n >= 8u) && (n <= 12u) && (mode == PSR_MODE_FIQ)) {
        return &(&b->r8_fiq)[n - 8u];
    }
    if (n < 13u) {
        return &v->regs.r[n];
    }
    switch (mode) {
    case PSR_MODE_SVC: return n == 13u ? &b->sp_svc : &b->lr_svc;
    case PSR_MODE_ABT: return n == 13u ? &b->sp_abt : &b->lr_abt;
    case PSR_MODE_UND: return n == 13u ? &b->sp_und : &b->lr_und;
    case PSR_MODE_IRQ: return n == 13u ? &b->sp_irq : &b->lr_irq;
    case PSR_MODE_FIQ: return n == 13u ? &b->sp_fiq : &b->lr_fiq;
    default:           return n == 13u ? &b->sp_usr : &v->regs.lr_usr;
    }
}
