/*
 * Banked registers of the guest's PL1 modes, read and written from HYP with
 * MRS/MSR (banked register), ARM ARM B9.3.9/B9.3.12.  Saved only when the
 * vCPU leaves its physical CPU.
 */
#include "vcpu.h"

#define RD(reg, var) __asm__ volatile("mrs %0, " #reg : "=r"(var))
#define WR(reg, var) __asm__ volatile("msr " #reg ", %0" : : "r"(var))

void banked_save(struct vcpu_banked *b)
{
    RD(SP_usr, b->sp_usr);
    RD(SP_svc, b->sp_svc); RD(LR_svc, b->lr_svc); RD(SPSR_svc, b->spsr_svc);
    RD(SP_abt, b->sp_abt); RD(LR_abt, b->lr_abt); RD(SPSR_abt, b->spsr_abt);
    RD(SP_und, b->sp_und); RD(LR_und, b->lr_und); RD(SPSR_und, b->spsr_und);
    RD(SP_irq, b->sp_irq); RD(LR_irq, b->lr_irq); RD(SPSR_irq, b->spsr_irq);
    RD(r8_fiq, b->r8_fiq); RD(r9_fiq, b->r9_fiq); RD(r10_fiq, b->r10_fiq);
    RD(r11_fiq, b->r11_fiq); RD(r12_fiq, b->r12_fiq);
    RD(SP_fiq, b->sp_fiq); RD(LR_fiq, b->lr_fiq); RD(SPSR_fiq, b->spsr_fiq);
}

void banked_restore(const struct vcpu_banked *b)
{
    WR(SP_usr, b->sp_usr);
    WR(SP_svc, b->sp_svc); WR(LR_svc, b->lr_svc); WR(SPSR_svc, b->spsr_svc);
    WR(SP_abt, b->sp_abt); WR(LR_abt, b->lr_abt); WR(SPSR_abt, b->spsr_abt);
    WR(SP_und, b->sp_und); WR(LR_und, b->lr_und); WR(SPSR_und, b->spsr_und);
    WR(SP_irq, b->sp_irq); WR(LR_irq, b->lr_irq); WR(SPSR_irq, b->spsr_irq);
    WR(r8_fiq, b->r8_fiq); WR(r9_fiq, b->r9_fiq); WR(r10_fiq, b->r10_fiq);
    WR(r11_fiq, b->r11_fiq); WR(r12_fiq, b->r12_fiq);
    WR(SP_fiq, b->sp_fiq); WR(LR_fiq, b->lr_fiq); WR(SPSR_fiq, b->spsr_fiq);
}
