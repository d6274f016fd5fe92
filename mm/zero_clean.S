/*
 * zero_clean_64(va, len): zero [va, va+len) and clean it to the point of
 * coherency, 64 bytes at a time, for D-cache lines of 64 bytes (Cortex-A15
 * and A7; mm/cache.c checks CTR.DminLine and falls back otherwise).  One
 * pass instead of a memset and a clean over a guest's whole RAM: each line
 * is cleaned (DCCMVAC, ARM ARM B4.2.1) right after its two 32-byte stores.
 * va and len are multiples of 64.  Eight registers a STM is what C cannot
 * express.  Four lines a round (len multiple of 256), then single lines.
 */
    .syntax unified
    .arm
    .text

    .globl zero_clean_64
    .type zero_clean_64, %function
zero_clean_64:
    push    {r4-r9}
    mov     r2, #0
    mov     r3, #0
    mov     r4, #0
    mov     r5, #0
    mov     r6, #0
    mov     r7, #0
    mov     r8, #0
    mov     r9, #0
    mov     r12, r0                 @ r12: the next line to clean
    dsb                             @ earlier writes before the cleans
    subs    r1, r1, #256
    blo     2f
1:  stmia   r0!, {r2-r9}            @ four lines, each cleaned (DCCMVAC)
    stmia   r0!, {r2-r9}            @ right after its stores
    mcr     p15, 0, r12, c7, c10, 1
    add     r12, r12, #64
    stmia   r0!, {r2-r9}
    stmia   r0!, {r2-r9}
    mcr     p15, 0, r12, c7, c10, 1
    add     r12, r12, #64
    stmia   r0!, {r2-r9}
    stmia   r0!, {r2-r9}
    mcr     p15, 0, r12, c7, c10, 1
    add     r12, r12, #64
    stmia   r0!, {r2-r9}
    stmia   r0!, {r2-r9}
    mcr     p15, 0, r12, c7, c10, 1
    add     r12, r12, #64
    subs    r1, r1, #256
    bhs     1b
2:  adds    r1, r1, #256            @ 0-3 lines left
    beq     4f
3:  stmia   r0!, {r2-r9}
    stmia   r0!, {r2-r9}
    mcr     p15, 0, r12, c7, c10, 1
    add     r12, r12, #64
    subs    r1, r1, #64
    bne     3b
4:  dsb                             @ the cleans done before anyone reads
    pop     {r4-r9}
    bx      lr
    .size zero_clean_64, . - zero_clean_64
