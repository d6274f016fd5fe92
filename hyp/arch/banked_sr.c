/*
 * Banked registers of the guest's PL1 modes, read and written from HYP with
 * MRS/MSR (banked register), ARM ARM B9.3.9/B9.3.12.  Saved only when the
 * vCPU leaves its physical CPU.  Every one is switched: a guest writes
 * each of them without a trap.  Four at a time (sr4.h), in the order of
 * struct vcpu_banked.
 */
#include "vcpu.h"
#include "sr4.h"

#define MRS_TO(var, reg) __asm__ volatile("mrs %0, " #reg : "=r"(var))
#define MSR_FROM(reg, var) __asm__ volatile("msr " #reg ", %0" : : "r"(var))

/* all but SPSR_fiq, in groups of four adjacent fields */
#define BANKED_GROUPS(G)                                                     \
    G(SP_usr, sp_usr, SP_svc, sp_svc, LR_svc, lr_svc, SPSR_svc, spsr_svc)    \
    G(SP_abt, sp_abt, LR_abt, lr_abt, SPSR_abt, spsr_abt, SP_und, sp_und)    \
    G(LR_und, lr_und, SPSR_und, spsr_und, SP_irq, sp_irq, LR_irq, lr_irq)    \
    G(SPSR_irq, spsr_irq, r8_fiq, r8_fiq, r9_fiq, r9_fiq, r10_fiq, r10_fiq)  \
    G(r11_fiq, r11_fiq, r12_fiq, r12_fiq, SP_fiq, sp_fiq, LR_fiq, lr_fiq)

#define CHECK(R1, f1, R2, f2, R3, f3, R4, f4) SR4_ADJACENT(struct vcpu_banked, f1, f2, f3, f4);
BANKED_GROUPS(CHECK)
_Static_assert((sizeof(struct vcpu_banked) == (21u * 4u)) &&
               ((size_t)offsetof(struct vcpu_banked, spsr_fiq) == (20u * 4u)), "the 21st: SPSR_fiq");

#define SAVE(...) SR4_SAVE(MRS_TO, b, __VA_ARGS__);
#define RESTORE(...) SR4_RESTORE(MSR_FROM, b, __VA_ARGS__);

void banked_save(struct vcpu_banked *b)
{
    BANKED_GROUPS(SAVE)
    uint32_t spsr;
    MRS_TO(spsr, SPSR_fiq);
    b->spsr_fiq = spsr;
}

void banked_restore(const struct vcpu_banked *b)
{
    BANKED_GROUPS(RESTORE)
    MSR_FROM(SPSR_fiq, b->spsr_fiq);
}
