/*
 * The world switch's assembly part, and the one loop that runs a guest:
 * enter, take an exit, call its handler, go back in - until the vCPU or its
 * CPU is wanted elsewhere.  Only the general registers move here.
 *
 * While a guest runs, SP_hyp points just past regs.lr_usr in its vcpu_regs,
 * so the exception entry saves r0-r12 and LR_usr with one PUSH straight into
 * the vCPU, then picks up the HYP stack saved by guest_run.  Everything
 * else (banked registers, CP15, timer, vGIC) stays in the CPU.
 *
 * Saving all of r0-r12 costs no more than saving r0-r3 and r12: one STM is
 * one instruction (the count make bench measures), and the full frame is
 * what a handler that switches vCPUs, injects an exception or reads a
 * transfer register by number needs anyway.
 */
#include <arch/sysregs.h>
#include "asm-offsets.h"

    .syntax unified
    .arm                            @ C is T32: each global label a C caller
                                    @ reaches is .type %function, so that
                                    @ the linker makes its BL a BLX
    .text

/*
 * void guest_run(struct vcpu *v, const exit_fn *table, const volatile uint32_t *attention)
 *
 * Returns once v->requests or *attention is non-zero after an exit's
 * handler; new work for v's list registers (v->vgic.queued) is flushed
 * here, before going (back) in.  The frame:
 * table at [sp], attention at [sp, #4], then the AAPCS callee-saved
 * registers of the caller.
 */
    .globl guest_run
    .type   guest_run, %function
guest_run:
    push    {r1-r11, lr}                @ 12 words: SP stays 8-byte aligned
    str     sp, [r0, #VCPU_REGS_HOST_SP]
    mov     r4, r0
    /* the caller looked at requests and attention: the guest runs at least
     * until its next exit (a polling boot CPU's attention is always set) */
    ldr     r3, [r0, #VCPU_VGIC_QUEUED]
    cmp     r3, #0
    beq     guest_resume
    b       guest_flush

/*
 * Hyp trap entry (vector 0x14): always from a guest (ARM ARM B1.5.8).
 * The exception class picks the handler: HSR[31:26] (B3.13.6).
 */
    .globl hyp_vec_trap
    .type   hyp_vec_trap, %function
hyp_vec_trap:
    push    {r0-r12, lr}
    mrc     HSR(r1)
    lsr     r2, r1, #HSR_EC_SHIFT
    /* fall through */

/* r0-r12, lr pushed into v->regs (SP = v); r1 = HSR, r2 = the table index */
    .globl guest_exit
    .type   guest_exit, %function
guest_exit:
    mrs     r6, ELR_hyp
    mrs     r7, spsr
    strd    r6, r7, [sp, #VCPU_REGS_PC]     @ pc and cpsr, adjacent (vcpu.h)
    mov     r4, sp                          @ v: callee-saved across the handler
    ldr     sp, [sp, #VCPU_REGS_HOST_SP]
    ldr     r3, [sp]                        @ the table
    mov     r0, r4
    ldr     r3, [r3, r2, lsl #2]
    blx     r3                              @ handler(v, hsr)
guest_check:
    /* anything for this vCPU or CPU outside the guest, or for its list
     * registers: one test of the three words on the way back in */
    ldr     r0, [sp, #4]
    ldrd    r2, r3, [r4, #VCPU_REQUESTS]    @ requests, vgic.queued
    ldr     r0, [r0]
    orr     r0, r0, r2
    orrs    r1, r0, r3
    bne     guest_not_now
guest_resume:
    ldrd    r2, r3, [r4, #VCPU_REGS_PC]
    msr     ELR_hyp, r2
    msr     spsr_cxsf, r3
    add     sp, r4, #VCPU_REGS_PC
    ldmdb   sp, {r0-r12, lr}                @ regs.r[0..12], lr_usr: below SP
    eret

guest_not_now:
    cmp     r0, #0
    popne   {r1-r11, pc}                    @ wanted outside: back to the caller
guest_flush:
    /* (vgic/vgic_hw.h) queued stays set when interrupts are left over for
     * the underflow maintenance interrupt: so no second look here */
    add     r0, r4, #VCPU_VGIC
    bl      vgic_cpu_flush
    b       guest_resume
