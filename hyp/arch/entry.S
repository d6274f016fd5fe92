/*
 * The world switch's assembly part: only the general registers.
 *
 * While a guest runs, SP_hyp points just past regs.lr_usr in its vcpu_regs,
 * so the exception entry saves r0-r12 and LR_usr with one PUSH straight into
 * the vCPU, then picks up the HYP stack saved by guest_enter.  Everything
 * else (banked registers, CP15, timer, vGIC) stays in the CPU.
 */
#include <arch/sysregs.h>
#include "asm-offsets.h"

    .syntax unified
    .arm
    .text

/* uint32_t guest_enter(struct vcpu_regs *regs): runs the guest until an exit */
    .globl guest_enter
guest_enter:
    push    {r4-r12, lr}
    str     sp, [r0, #VCPU_REGS_HOST_SP]
    ldrd    r2, r3, [r0, #VCPU_REGS_PC]     @ pc and cpsr, adjacent (vcpu.h)
    msr     ELR_hyp, r2
    msr     spsr_cxsf, r3
    add     sp, r0, #VCPU_REGS_PC
    ldr     lr, [r0, #VCPU_REGS_LR]
    ldm     r0, {r0-r12}
    eret

/* exception entry from a guest: r0-r12, lr already pushed; r0 = reason */
    .globl guest_exit
guest_exit:
    mrs     r2, ELR_hyp
    mrs     r3, spsr
    strd    r2, r3, [sp, #VCPU_REGS_PC]
    ldr     sp, [sp, #VCPU_REGS_HOST_SP]
    pop     {r4-r12, pc}
