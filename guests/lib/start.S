/*
 * Test-guest entry: vCPU 0 from the boot (r2 = DTB), the others from PSCI
 * CPU_ON with their index as the context id.  SVC mode, MMU off.
 */
    .syntax unified
    .arm
    .section .text.start, "ax"
    .globl _start
_start:
    b       boot_primary

    .align 5
    .globl guest_vectors
guest_vectors:
    b       .                       @ reset
    b       vec_undef
    b       vec_svc
    b       vec_pabt
    b       vec_dabt
    b       .
    b       vec_irq
    b       vec_fiq

/* set up every mode's stack from the vCPU index in r4 */
setup_stacks:
    ldr     r0, =__stacks
    add     r0, r0, r4, lsl #13
    add     r0, r0, #8192           @ top of this vCPU's 8 KiB
    cps     #0x17                   @ abort
    mov     sp, r0
    sub     r0, r0, #512
    cps     #0x1b                   @ undefined
    mov     sp, r0
    sub     r0, r0, #512
    cps     #0x12                   @ IRQ
    mov     sp, r0
    sub     r0, r0, #512
    cps     #0x11                   @ FIQ
    mov     sp, r0
    sub     r0, r0, #512
    cps     #0x13                   @ SVC
    mov     sp, r0
    ldr     r0, =guest_vectors
    mcr     p15, 0, r0, c12, c0, 0  @ VBAR
    mrc     p15, 0, r0, c1, c0, 0
    bic     r0, r0, #(1 << 13)      @ SCTLR.V: vectors at VBAR
    mcr     p15, 0, r0, c1, c0, 0
    isb
    bx      lr

boot_primary:
    mov     r5, r2                  @ DTB
    mov     r6, r0                  @ r0..r2, CPSR and SCTLR as the vCPU started,
    mov     r7, r1                  @ kept for the tests in boot_state
    mrs     r8, cpsr
    mrc     p15, 0, r9, c1, c0, 0
    mov     r4, #0
    bl      setup_stacks
    /* clear .bss */
    ldr     r0, =__bss_start
    ldr     r1, =__bss_end
    mov     r2, #0
1:  cmp     r0, r1
    strlo   r2, [r0], #4
    blo     1b
    ldr     r0, =boot_state
    stm     r0, {r5-r9}             @ dtb, r0, r1, cpsr, sctlr
    mov     r0, r5
    bl      guest_boot_main
    b       .

    .globl secondary_start
secondary_start:
    mov     r4, r0                  @ context id = vCPU index
    ldr     r1, =secondary_state    @ CPSR and SCTLR at entry, per vCPU
    and     r2, r0, #7
    add     r1, r1, r2, lsl #3
    mrs     r2, cpsr
    mrc     p15, 0, r3, c1, c0, 0
    stm     r1, {r2, r3}
    bl      setup_stacks
    mov     r0, r4
    bl      guest_secondary_main
    b       .

/* the same entry for PSCI CPU_ON with bit 0 of the address set: the vCPU
 * starts in Thumb state; it notes that in thumb_entries[context id] */
    .thumb
    .thumb_func
    .type   secondary_start_thumb, %function
    .globl secondary_start_thumb
secondary_start_thumb:
    ldr     r1, =thumb_entries
    lsls    r2, r0, #2
    ldr     r3, [r1, r2]
    adds    r3, r3, #1
    str     r3, [r1, r2]
    ldr     r1, =secondary_start
    bx      r1
    .ltorg
    .arm

    .bss
    .align  2
    .globl  thumb_entries
thumb_entries:
    .space  4 * 8
    .globl  boot_state
boot_state:
    .space  4 * 5
    .globl  secondary_state
secondary_state:
    .space  8 * 8
    .text

/* exceptions: save the caller-saved state and call C with a frame */
.macro VEC name, handler, lradj
\name:
    sub     lr, lr, #\lradj
    push    {r0-r12, lr}
    mov     r0, sp
    mrs     r1, spsr
    push    {r1, r2}                @ keep 8-byte alignment
    bl      \handler
    pop     {r1, r2}
    msr     spsr_cxsf, r1
    pop     {r0-r12, lr}
    movs    pc, lr
.endm

    VEC vec_undef, guest_undef_handler, 0
    VEC vec_svc, guest_svc_handler, 0
    VEC vec_pabt, guest_pabt_handler, 4
    VEC vec_dabt, guest_dabt_handler, 8
    VEC vec_irq, guest_irq_handler, 4
    VEC vec_fiq, guest_fiq_handler, 4
