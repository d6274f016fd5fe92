/*
 * zero_clean_64(va, len): zero [va, va+len) and clean it to the point of
 * coherency, 64 bytes at a time, for D-cache lines of 64 bytes (Cortex-A15
 * and A7; mm/cache.c checks CTR.DminLine and falls back otherwise).  One
 * pass instead of a memset and a clean over a guest's whole RAM: each line
 * is cleaned (DCCMVAC, ARM ARM B4.2.1) right after its two 32-byte stores.
 * va and len are multiples of 64.  Eight registers a STM is what C cannot
 * express.
 *
 * The lines are written from the last down (STMDB): after a line's second
 * store the base register holds the line's start, which is the address the
 * clean takes, so a line costs three instructions.  Eight lines a round
 * (len multiple of 512), then single lines.  QEMU does not model the cache:
 * a clean left out here would pass every test and, on a Cortex-A15, let
 * the guest (MMU and caches off at its first instruction) read stale RAM
 * below the zeros, and the dirty lines later overwrite what it wrote.
 */
    .syntax unified
    .arm                            @ C is T32: each global label a C caller
                                    @ reaches is .type %function, so that
                                    @ the linker makes its BL a BLX
    .text

    .macro zero_line                @ the 64 bytes below r0, then clean them
    stmdb   r0!, {r2-r9}
    stmdb   r0!, {r2-r9}
    mcr     p15, 0, r0, c7, c10, 1  @ DCCMVAC
    .endm

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
    add     r0, r0, r1              @ r0: the end, going down
    dsb                             @ earlier writes before the cleans
    subs    r1, r1, #512
    blo     2f
1:  .rept   8
    zero_line
    .endr
    subs    r1, r1, #512
    bhs     1b
2:  adds    r1, r1, #512            @ 0-7 lines left
    beq     4f
3:  zero_line
    subs    r1, r1, #64
    bne     3b
4:  dsb                             @ the cleans done before anyone reads
    pop     {r4-r9}
    bx      lr
    .size zero_clean_64, . - zero_clean_64
