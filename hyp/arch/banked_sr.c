/*
 * Banked registers of the guest's PL1 modes, read and written from HYP with
 * MRS/MSR (banked register), ARM ARM B9.3.9/B9.3.12.  Saved only when the
 * vCPU leaves its physical CPU.  One list, used both ways.
 */
#include "vcpu.h"

#define BANKED_REGS(X)                                                       \
    X(SP_usr, sp_usr)                                                        \
    X(SP_svc, sp_svc) X(LR_svc, lr_svc) X(SPSR_svc, spsr_svc)                \
    X(SP_abt, sp_abt) X(LR_abt, lr_abt) X(SPSR_abt, spsr_abt)                \
    X(SP_und, sp_und) X(LR_und, lr_und) X(SPSR_und, spsr_und)                \
    X(SP_irq, sp_irq) X(LR_irq, lr_irq) X(SPSR_irq, spsr_irq)                \
    X(r8_fiq, r8_fiq) X(r9_fiq, r9_fiq) X(r10_fiq, r10_fiq)                  \
    X(r11_fiq, r11_fiq) X(r12_fiq, r12_fiq)                                  \
    X(SP_fiq, sp_fiq) X(LR_fiq, lr_fiq) X(SPSR_fiq, spsr_fiq)

#define RD(reg, field) __asm__ volatile("mrs %0, " #reg : "=r"(b->field));
#define WR(reg, field) __asm__ volatile("msr " #reg ", %0" : : "r"(b->field));

void banked_save(struct vcpu_banked *b)
{
    BANKED_REGS(RD)
}

void banked_restore(const struct vcpu_banked *b)
{
    BANKED_REGS(WR)
}
