/*
 * HYP exception vectors (ARM ARM B1.8.1, Table B1-3: the Hyp vector table).
 * 0x14 is the Hyp trap entry: every exception taken to HYP from a guest.
 * Exceptions from HYP itself other than IRQ are fatal for this CPU.
 */
#include <arch/sysregs.h>
#include <arch/layout.h>
#include "frame.h"
#include "vcpu.h"

    .syntax unified
    .arm                            @ C is T32: each global label a C caller
                                    @ reaches is .type %function, so that
                                    @ the linker makes its BL a BLX
    .section .text.vectors, "ax"
    .align 5
    .globl hyp_vectors
    .type   hyp_vectors, %function
hyp_vectors:
    b       hyp_vec_reset
    b       hyp_vec_undef
    b       hyp_vec_hvc
    b       hyp_vec_pabt
    b       hyp_vec_dabt
    b       hyp_vec_trap
    b       hyp_vec_irq
    b       hyp_vec_fiq

/*
 * Fatal entry.  SP may be in a guard page (a HYP stack overflow): stack
 * regions are STACK_REGION-aligned with the guard page at the bottom, so
 * "SP - frame lies in the first page of its region" means an overflow, told
 * from SP alone.  Then the frame goes at the top of this CPU's own stack,
 * which is dead anyway.  C frames are limited to 1 KiB
 * (-Wframe-larger-than), so SP can never have skipped past the guard page.
 */
.macro FATAL_ENTRY kind
    sub     sp, sp, #FRAME_SIZE
    tst     sp, #(STACK_REGION - STACK_GUARD)
    bne     1f
    bic     sp, sp, #0xff
    bic     sp, sp, #0xf00
    add     sp, sp, #((STACK_REGION - STACK_TOP_PAD - FRAME_SIZE) & 0xff00)
    add     sp, sp, #((STACK_REGION - STACK_TOP_PAD - FRAME_SIZE) & 0xff)
    stmia   sp, {r0-r12}
    mov     r0, #(\kind | EXC_STACK_OVERFLOW)
    b       hyp_fatal_common
1:  stmia   sp, {r0-r12}
    mov     r0, #\kind
    b       hyp_fatal_common
.endm

hyp_vec_reset:  FATAL_ENTRY EXC_RESET
hyp_vec_undef:  FATAL_ENTRY EXC_UNDEF
hyp_vec_hvc:    FATAL_ENTRY EXC_HVC
hyp_vec_pabt:   FATAL_ENTRY EXC_PABT
hyp_vec_dabt:   FATAL_ENTRY EXC_DABT
hyp_fiq_in_hyp: FATAL_ENTRY EXC_FIQ
hyp_irq_in_hyp: FATAL_ENTRY EXC_IRQ

/* hyp_vec_trap, the Hyp trap entry: hyp/arch/entry.S, beside the loop it
 * returns to */

/*
 * IRQ and FIQ come from a guest (HCR.IMO/FMO route them here).  HYP itself
 * runs with both masked, always: its idle loops wait in WFI with IRQs
 * masked (a pending one still wakes WFI, ARM ARM B1.8.13) and then handle
 * it from C.  So one taken in HYP is a hypervisor bug, reported as fatal
 * like any other HYP exception.  SPSR tells which; r0 is parked on the
 * stack for the test - in the guest case that slot is regs.lr_usr,
 * rewritten right after.  guest_exit calls the table's GUEST_EXIT_IRQ or
 * GUEST_EXIT_FIQ entry.
 */
hyp_vec_fiq:
    push    {r0}
    mrs     r0, spsr
    and     r0, r0, #PSR_MODE_MASK
    cmp     r0, #PSR_MODE_HYP
    pop     {r0}
    beq     hyp_fiq_in_hyp
    push    {r0-r12, lr}
    mov     r2, #GUEST_EXIT_FIQ     @ Group 0 on a direct guest's CPU
    b       guest_exit

hyp_vec_irq:
    push    {r0}
    mrs     r0, spsr
    and     r0, r0, #PSR_MODE_MASK
    cmp     r0, #PSR_MODE_HYP
    pop     {r0}
    beq     hyp_irq_in_hyp
    push    {r0-r12, lr}
    mov     r2, #GUEST_EXIT_IRQ
    b       guest_exit

hyp_fatal_common:
    str     r0, [sp, #FRAME_KIND]
    add     r0, sp, #FRAME_SIZE
    str     r0, [sp, #FRAME_SP]
    str     lr, [sp, #FRAME_LR]
    mrs     r0, ELR_hyp
    str     r0, [sp, #FRAME_PC]
    mrs     r0, spsr
    str     r0, [sp, #FRAME_SPSR]
    mov     r0, sp
    bic     sp, sp, #7              @ AAPCS: 8-byte aligned stack
    bl      hyp_fatal               @ never returns
