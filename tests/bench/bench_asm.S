/*
 * The benchmark guest's assembly: the very first instruction (a CNTPCT
 * stamp for the boot measurement), its own exception vectors (an IRQ entry
 * that reads the virtual counter within a fixed number of instructions, a
 * one-instruction data-abort handler), a nop sled for dithering, and the
 * timed loops.  Everything measured is written here, not in C, so that the
 * instruction count between two counter reads is fixed and visible.
 *
 * Counter reads are `isb; mrrc CNTVCT`: under -icount shift=0 the virtual
 * counter (62.5 MHz) advances one tick per 16 instructions.
 */
#define GICD_SGIR   0x08000f00
#define GICC_IAR    0x0801000c
#define GICC_EOIR   0x08010010

    .syntax unified
    .arch armv7-a
    .arch_extension virt
    .arm

/*
 * Entry: linked first (tests/bench/bench.mk puts this file before the
 * library's start.S) and the ELF entry point (-e bench_entry), so it is the
 * first guest instruction under Partita (raw image) and natively (ELF).
 * r0-r2 (the boot registers) are left alone for the library's _start.
 */
    .section .text.start, "ax"
    .globl bench_entry
bench_entry:
    isb
    mrrc    p15, 0, r4, r5, c14     @ CNTPCT: ~instructions since reset
    mrrc    p15, 1, r6, r7, c14     @ CNTVCT
    ldr     r3, =boot_stamp
    stm     r3, {r4-r7}
    b       _start
    .ltorg

    .data
    .align  3
    .globl  boot_stamp
boot_stamp:                         @ not .bss: _start clears that afterwards
    .word   0, 0, 0, 0

    .text
/* ---- vectors (VBAR is set to these by the C code on every vCPU) ---- */
    .align  5
    .globl  bench_vectors
bench_vectors:
    b       .                       @ reset
    b       bv_undef
    b       bv_svc
    b       bv_pabt
    b       bv_dabt
    b       .
    b       bv_irq
    b       bv_fiq

bv_dabt:
    /* LR_abt = faulting instruction + 8: resume after it.  The whole
     * guest side of the Stage-2 fault round trip is this one instruction. */
    subs    pc, lr, #4
bv_undef:
    movs    pc, lr                  @ skip (ARM code only)
bv_svc:
    movs    pc, lr
bv_pabt:
    b       bv_pabt                 @ never expected: hang where gdb can see it
bv_fiq:
    subs    pc, lr, #4

/*
 * IRQ entry.  The counter is read after exactly IRQ_ENTRY_INSNS (6)
 * instructions (sub, push, ldr, ldr, bx, isb) plus irq_dither nops; the
 * rest (acknowledge, bookkeeping, EOI) is bench_irq() in C.
 */
bv_irq:
    sub     lr, lr, #4
    push    {r0-r3, r12, lr}
    ldr     r0, =irq_sled_target
    ldr     r0, [r0]
    bx      r0
    .globl  irq_sled
irq_sled:
    .rept   15
    nop
    .endr
    .globl  irq_sled_end
irq_sled_end:
    isb
    mrrc    p15, 1, r0, r1, c14
    bl      bench_irq               @ bench_irq(counter low, high)
    pop     {r0-r3, r12, lr}
    movs    pc, lr
    .ltorg

    .data
    .align  2
    .globl  irq_sled_target
irq_sled_target:
    .word   irq_sled_end
    .text

/*
 * void dither(unsigned int j): executes exactly j nops (j < 16) on top of
 * a fixed cost, to shift the phase of what follows against the 16-instruction
 * counter tick.
 */
    .align  2
    .globl  dither
    .type   dither, %function
dither:
    rsb     r0, r0, #15
    add     pc, pc, r0, lsl #2
    nop                             @ skipped: PC reads 8 ahead
    .rept   15
    nop
    .endr
    bx      lr

/* ---- timed loops: uint32_t fn(uint32_t n, uint32_t a, uint32_t b)
 * returns the counter ticks from before the first iteration to after the
 * last.  Each op loop has an "empty" twin without the measured instruction. */
.macro TIMED name
    .align  2
    .globl  \name
    .type   \name, %function
\name:
    push    {r4-r11, lr}
    mov     r4, r0
    mov     r5, r1
    mov     r6, r2
.endm
.macro START
    isb
    mrrc    p15, 1, r10, r11, c14
.endm
.macro STOP
    isb
    mrrc    p15, 1, r0, r1, c14
    sub     r0, r0, r10
    pop     {r4-r11, pc}
.endm

TIMED loop_empty
    START
1:  subs    r4, r4, #1
    bne     1b
    STOP

/* HVC round trip: r0 = the function ID each time (SMCCC clobbers r0-r3) */
TIMED loop_hvc
    START
1:  mov     r0, r5
    hvc     #0
    subs    r4, r4, #1
    bne     1b
    STOP

TIMED loop_mov
    START
1:  mov     r0, r5
    subs    r4, r4, #1
    bne     1b
    STOP

/* a load from address a */
TIMED loop_ldr
    START
1:  ldr     r0, [r5]
    subs    r4, r4, #1
    bne     1b
    STOP

/* a store of b to address a */
TIMED loop_str
    START
1:  str     r6, [r5]
    subs    r4, r4, #1
    bne     1b
    STOP

/* two loads from a at two PCs (aborts alternate between them, so Partita's
 * "same instruction keeps faulting" guard never sees a repeat) */
TIMED loop_ldr2
    START
1:  ldr     r0, [r5]
    ldr     r0, [r5]
    subs    r4, r4, #1
    bne     1b
    STOP

/* two counter reads back to back: the counter-read overhead */
TIMED read_pair
    START
    STOP

/*
 * void eoi_round(uint32_t out[2]): a self-SGI (trapped, IRQs masked), then
 * times the guest's ACK (GICC_IAR read) and EOI (GICC_EOIR write) of it.
 * out[0] = ticks between the reads, out[1] = the IAR value.
 */
    .align  2
    .globl  eoi_round
    .type   eoi_round, %function
eoi_round:
    push    {r4-r11, lr}
    ldr     r3, =GICD_SGIR
    ldr     r2, =(2 << 24) | 3      @ SGI 3 to this CPU only
    ldr     r5, =GICC_IAR
    ldr     r6, =GICC_EOIR
    str     r2, [r3]
    START
    ldr     r1, [r5]                @ ACK
    str     r1, [r6]                @ EOI
    isb
    mrrc    p15, 1, r2, r3, c14
    sub     r2, r2, r10
    str     r2, [r0]
    str     r1, [r0, #4]
    pop     {r4-r11, pc}
    .ltorg

/*
 * void ipi_round(uint32_t out[2], uint32_t sgir): t0, the GICD_SGIR write,
 * t1, then YIELD: under icount QEMU runs one vCPU at a time, and YIELD hands
 * the physical CPUs' shared thread to the next one (the target) at once, so
 * the target's instructions follow t1 directly.  out = {t0, t1} (low words).
 * With sgir = 0 the store is left out (the counter-read overhead).
 */
    .align  2
    .globl  ipi_round
    .type   ipi_round, %function
ipi_round:
    push    {r4-r7, lr}
    ldr     r3, =GICD_SGIR
    cmp     r1, #0
    beq     2f
    isb
    mrrc    p15, 1, r4, r5, c14
    str     r1, [r3]
    isb
    mrrc    p15, 1, r6, r7, c14
    yield
    b       3f
2:  isb
    mrrc    p15, 1, r4, r5, c14
    isb
    mrrc    p15, 1, r6, r7, c14
    yield
3:  stm     r0, {r4, r6}
    pop     {r4-r7, pc}
    .ltorg

/*
 * void doorbell_round(uint32_t out[2], uint32_t how, uint32_t arg): t0, a
 * channel doorbell, t1, then YIELD as ipi_round does, so that the peer
 * guest's vCPU runs next.  how 1: the hypercall PARTITA_HC_DOORBELL for
 * channel arg; 2: a store to the doorbell page at arg; 0: neither (the
 * counter-read overhead).  out = {t0, t1} (low words).
 */
    .align  2
    .globl  doorbell_round
    .type   doorbell_round, %function
doorbell_round:
    push    {r4-r8, lr}
    mov     r8, r0
    cmp     r1, #1
    beq     1f
    cmp     r1, #2
    beq     2f
    isb
    mrrc    p15, 1, r4, r5, c14
    isb
    mrrc    p15, 1, r6, r7, c14
    yield
    b       3f
1:  mov     r1, r2
    ldr     r0, =0x86000004         @ PARTITA_HC_DOORBELL
    isb
    mrrc    p15, 1, r4, r5, c14
    hvc     #0
    isb
    mrrc    p15, 1, r6, r7, c14
    yield
    b       3f
2:  mov     r3, #1
    isb
    mrrc    p15, 1, r4, r5, c14
    str     r3, [r2]
    isb
    mrrc    p15, 1, r6, r7, c14
    yield
3:  stm     r8, {r4, r6}
    pop     {r4-r8, pc}
    .ltorg
