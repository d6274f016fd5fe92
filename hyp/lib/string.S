/*
 * memset and memcpy for the bulk work of starting a guest: scrubbing its
 * RAM and copying its images (megabytes; newlib's versions store one word
 * an instruction).  Eight registers a STM/LDM is what C cannot express.
 * Word-aligned blocks go 32 bytes a transfer; the rest, and anything
 * misaligned, byte by byte.  They replace newlib's (objects link first).
 * AAPCS: r0-r3 and r12 are free; r4-r9 are saved.
 */
    .syntax unified
    .arm
    .text

/* void *memset(void *dst, int c, size_t n) */
    .globl memset
    .type memset, %function
memset:
    mov     r12, r0                 @ r0 is the return value
    and     r1, r1, #0xff
    orr     r1, r1, r1, lsl #8
    orr     r1, r1, r1, lsl #16
1:  tst     r12, #3                 @ bytes up to a word boundary
    beq     2f
    subs    r2, r2, #1
    bxcc    lr
    strb    r1, [r12], #1
    b       1b
2:  subs    r2, r2, #128        @ 128 bytes a round: four STMs
    blo     6f
    push    {r4-r9}
    mov     r3, r1
    mov     r4, r1
    mov     r5, r1
    mov     r6, r1
    mov     r7, r1
    mov     r8, r1
    mov     r9, r1
3:  stmia   r12!, {r1, r3-r9}
    stmia   r12!, {r1, r3-r9}
    stmia   r12!, {r1, r3-r9}
    stmia   r12!, {r1, r3-r9}
    subs    r2, r2, #128
    bhs     3b
    pop     {r4-r9}
6:  add     r2, r2, #128        @ 0-127 left
4:  subs    r2, r2, #4              @ words
    strhs   r1, [r12], #4
    bhs     4b
    adds    r2, r2, #4              @ 0-3 bytes left
5:  subs    r2, r2, #1
    bxcc    lr
    strb    r1, [r12], #1
    b       5b
    .size memset, . - memset

/* void *memcpy(void *dst, const void *src, size_t n): no overlap */
    .globl memcpy
    .type memcpy, %function
memcpy:
    mov     r12, r0
    orr     r3, r0, r1              @ both word-aligned?
    tst     r3, #3
    bne     5f
    subs    r2, r2, #64         @ 64 bytes a round
    blo     3f
    push    {r4-r10}
1:  ldmia   r1!, {r3-r10}
    stmia   r12!, {r3-r10}
    ldmia   r1!, {r3-r10}
    stmia   r12!, {r3-r10}
    subs    r2, r2, #64
    bhs     1b
    pop     {r4-r10}
3:  add     r2, r2, #64         @ 0-63 left
2:  subs    r2, r2, #4
    ldrhs   r3, [r1], #4
    strhs   r3, [r12], #4
    bhs     2b
    adds    r2, r2, #4
5:  subs    r2, r2, #1              @ bytes: the tail, or all when misaligned
    bxcc    lr
    ldrb    r3, [r1], #1
    strb    r3, [r12], #1
    b       5b
    .size memcpy, . - memcpy
