/*
 * Offsets of C structures used by assembly, generated at build time into
 * build/include/asm-offsets.h (as Hafnium's offsets.c does), so the two
 * can never disagree.
 */
#include <stddef.h>
#include "vcpu.h"

#define DEFINE(sym, val) __asm__ volatile("\n.ascii \"->" #sym " %0\"" : : "i"(val))

void asm_offsets(void);
void asm_offsets(void)
{
    DEFINE(VCPU_REGS_R0, offsetof(struct vcpu_regs, r));
    DEFINE(VCPU_REGS_LR, offsetof(struct vcpu_regs, lr_usr));
    DEFINE(VCPU_REGS_PC, offsetof(struct vcpu_regs, pc));
    DEFINE(VCPU_REGS_CPSR, offsetof(struct vcpu_regs, cpsr));
    /* hyp/arch/entry.S moves pc and cpsr with one LDRD/STRD */
    _Static_assert(offsetof(struct vcpu_regs, cpsr) == offsetof(struct vcpu_regs, pc) + 4 &&
                   offsetof(struct vcpu_regs, pc) % 8 == 0, "pc, cpsr: a doubleword");
    DEFINE(VCPU_REGS_HOST_SP, offsetof(struct vcpu_regs, host_sp));
    /* guest_run looks at these after every exit: the regs come first, so
     * the vcpu and its regs have one address */
    _Static_assert(offsetof(struct vcpu, regs) == 0, "regs first");
    DEFINE(VCPU_VGIC, offsetof(struct vcpu, vgic));
    /* requests and vgic.queued: adjacent words, one LDRD */
    DEFINE(VCPU_REQUESTS, offsetof(struct vcpu, requests));
    DEFINE(VCPU_VGIC_QUEUED, offsetof(struct vcpu, vgic.queued));
    _Static_assert(offsetof(struct vcpu, vgic.queued) ==
                   offsetof(struct vcpu, requests) + 4 &&
                   offsetof(struct vcpu, requests) % 4 == 0 &&
                   offsetof(struct vcpu, requests) < 256 &&
                   sizeof(((struct vcpu *)0)->vgic.queued) == 4 &&
                   sizeof(((struct vcpu *)0)->requests) == 4, "requests, queued: LDRD");
}
