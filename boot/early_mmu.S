/*
 * The early MMU: clear .bss, build the early page tables, turn the MMU on
 * (HYP, or PL1 for the C that runs before HYP), from the identity-mapped
 * page.  The tables themselves live with the HYP tables' code
 * (mm/hyp_mmu_switch.S), which replaces them with the final ones.
 */
#include <arch/sysregs.h>
#include <arch/layout.h>
#include <arch/boot.h>

    .syntax unified
    .arm                            @ C is T32: each global label a C caller
                                    @ reaches is .type %function, so that
                                    @ the linker makes its BL a BLX

    .section .text.boot, "ax"
/*
 * Zero .bss (includes the early tables; not the stacks or .noinit), MMU
 * off: physical.  Both ends are 32-byte aligned (linker.ld): 32 bytes a
 * round.  No stack yet: r0-r6 and r12 are free here (the callers build the
 * early tables with r4-r6 next).
 */
    .globl clear_bss
    .type   clear_bss, %function
clear_bss:
    ldr     r0, =__bss_start
    ldr     r1, =__bss_end
    sub     r0, r0, r7
    sub     r1, r1, r7
    mov     r2, #0
    mov     r3, #0
    mov     r4, #0
    mov     r5, #0
1:  cmp     r0, r1
    bxhs    lr
    stmia   r0!, {r2-r5}
    stmia   r0!, {r2-r5}
    b       1b

/*
 * Early tables (LPAE, ARM ARM B3.6): the image at HYP_VA_BASE with 4 KiB
 * pages, the boot DTB at HYP_VA_DTB, and an identity 2 MiB block over the
 * idmap section so that the MMU can be turned on under our feet.
 * All read-write-execute; C replaces them with the final tables at once.
 */
    .globl build_early_tables
    .type   build_early_tables, %function
build_early_tables:
    mov     r8, lr                  @ no stack yet: the bootloader's SP is unknown
    ldr     r4, =boot_pt_l1
    sub     r4, r4, r7
    /* L1[3] -> L2 for 0xC0000000-0xFFFFFFFF */
    ldr     r0, =boot_pt_l2_va
    sub     r0, r0, r7
    orr     r1, r0, #(PTE_VALID | PTE_TABLE)
    str     r1, [r4, #(3 * 8)]
    /* L2[(HYP_VA_BASE >> 21) & 511] -> L3 */
    ldr     r2, =boot_pt_l3
    sub     r2, r2, r7
    orr     r1, r2, #(PTE_VALID | PTE_TABLE)
    ldr     r3, =(((HYP_VA_BASE >> BLOCK_SHIFT) & 511) * 8)
    str     r1, [r0, r3]
    /* L3: every page up to the end of .bss and the stacks (at most 2 MiB,
     * linker.ld checks): not the configuration blob after it, which C maps */
    ldr     r3, =__early_map_size
    add     r3, r3, r9              @ physical end
    mov     r1, r9
    ldr     r5, =(PTE_VALID | PTE_TABLE | PTE_LO_NORMAL | PTE_AP_RW)
1:  cmp     r1, r3
    orrlo   r6, r1, r5
    strlo   r6, [r2], #8
    addlo   r1, r1, #PAGE_SIZE
    blo     1b
    /* DTB window: two 2 MiB read-only blocks from the DTB's block */
    ldr     r3, =(((HYP_VA_DTB >> BLOCK_SHIFT) & 511) * 8)
    add     r3, r0, r3
    mov     r1, r10, lsr #BLOCK_SHIFT
    mov     r1, r1, lsl #BLOCK_SHIFT
    ldr     r5, =(PTE_VALID | PTE_LO_NORMAL | PTE_AP_RO)
    orr     r6, r1, r5
    str     r6, [r3]
    add     r6, r6, #BLOCK_SIZE
    str     r6, [r3, #8]
    /* identity block over the idmap section (its GB must not be the last) */
    ldr     r1, =__idmap_start
    sub     r1, r1, r7
    mov     r2, r1, lsr #30
    cmp     r2, #3
    beq     .                       @ loaded above 3 GiB: unsupported
    ldr     r0, =boot_pt_l2_id
    sub     r0, r0, r7
    orr     r3, r0, #(PTE_VALID | PTE_TABLE)
    str     r3, [r4, r2, lsl #3]
    ubfx    r3, r1, #BLOCK_SHIFT, #9  @ L2 index of the block
    mov     r1, r1, lsr #BLOCK_SHIFT
    mov     r1, r1, lsl #BLOCK_SHIFT
    ldr     r5, =(PTE_VALID | PTE_LO_NORMAL | PTE_AP_RO)
    orr     r1, r1, r5
    str     r1, [r0, r3, lsl #3]
    /*
     * .bss (the tables among it) was written with the MMU and D-cache
     * off, straight to memory, and is read with the caches on.  Invalidate
     * any stale lines left over it (the bootloader cleaned the image it
     * loaded, as the Linux boot protocol wants), so the walker and the
     * caches see what we wrote (a real Cortex-A15 can hold such lines;
     * QEMU models no caches and would not catch a missing invalidate).
     * Not the stacks or .noinit: everything read there is first written
     * with the caches on, and a write hits or allocates the line, stale
     * or not (what the secure start's C leaves on CPU 0's stack, caches
     * off, is never read again: the stack is set up anew for HYP).
     */
    ldr     r0, =__bss_start
    sub     r0, r0, r7
    ldr     r1, =__bss_end
    sub     r1, r1, r7
    bl      dcache_inval_range_pa
    bx      r8

/*
 * Invalidate D-cache lines [r0, r1) to PoC by address (MMU off: physical),
 * two lines a round: up to one line past r1 may go too, which here is
 * .noinit that nothing has written yet.
 */
dcache_inval_range_pa:
    mrc     CTR(r2)
    ubfx    r2, r2, #16, #4         @ DminLine: log2(words)
    mov     r3, #4
    lsl     r2, r3, r2              @ line size in bytes
    sub     r3, r2, #1
    bic     r0, r0, r3
1:  mcr     DCIMVAC(r0)
    add     r0, r0, r2
    mcr     DCIMVAC(r0)
    add     r0, r0, r2
    cmp     r0, r1
    blo     1b
    dsb     sy
    bx      lr

/*
 * C before HYP: the secure primary (to set up the GIC for the non-secure
 * world) and the non-secure SVC error path both need libfdt and the UART.
 * Use the same early tables through the PL1 LPAE stage 1 (TTBCR.EAE), MMU
 * on with the caches off so nothing needs cleaning afterwards.
 */
    .globl prehyp_c
    .type   prehyp_c, %function
prehyp_c:
    bl      clear_bss
    bl      build_early_tables
    ldr     r0, =HMAIR0_VALUE
    mcr     PRRR(r0)                @ MAIR0 when TTBCR.EAE = 1
    ldr     r0, =TTBCR_LPAE_VALUE
    mcr     TTBCR(r0)
    ldr     r0, =boot_pt_l1
    sub     r0, r0, r7
    mov     r1, #0
    mcrr    p15, 0, r0, r1, c2      @ 64-bit TTBR0 with LPAE
    mvn     r0, #0
    mcr     DACR(r0)                @ unused with LPAE; all managers anyway
    mcr     TLBIALL(r0)
    mcr     ICIALLU(r0)
    dsb     sy
    isb
    ldr     r1, =prehyp_va
    ldr     r2, =pl1_mmu_on
    sub     r2, r2, r7
    bx      r2
prehyp_va:
    ldr     sp, =__stacks_start + STACK_REGION - STACK_TOP_PAD
    mov     r0, r10
    mov     r1, r11
    mov     r2, r9
    bl      boot_prehyp_main        @ returns only for a secure start
    ldr     r0, =prehyp_off
    sub     r0, r0, r7
    ldr     r1, =pl1_mmu_off
    sub     r1, r1, r7
    bx      r1                      @ MMU off, continue at prehyp_off
prehyp_off:
    mov     r11, #START_MODE_SECURE
    b       prehyp_done

    .ltorg

/*
 * The identity-mapped page: code that runs while the MMU changes state.
 * Mapped at its physical address by both the early and the final tables.
 */
    .section .text.idmap, "ax"
/* r0 = HTTBR (physical L1), r1 = VA to continue at.  HYP, MMU off. */
    .globl hyp_mmu_on
    .type   hyp_mmu_on, %function
hyp_mmu_on:
    ldr     r2, =HMAIR0_VALUE
    mcr     HMAIR0(r2)
    ldr     r2, =HTCR_VALUE
    mcr     HTCR(r2)
    mov     r2, #0
    mcrr    HTTBR(r0, r2)
    isb
    mcr     TLBIALLH(r2)            @ no stale HYP entries from a prior life
    mcr     ICIALLU(r2)
    mcr     BPIALL(r2)
    dsb     sy
    isb
    ldr     r2, =HSCTLR_MMU_ON
    mcr     HSCTLR(r2)
    isb
    bx      r1


/* PL1 (pre-HYP) MMU on: r1 = VA to continue at.  Caches stay off. */
pl1_mmu_on:
    mrc     SCTLR(r2)
    bic     r2, r2, #(SCTLR_C | SCTLR_A)
    bic     r2, r2, #SCTLR_I
    bic     r2, r2, #(1 << 28)      @ TRE off: plain memory attributes
    orr     r2, r2, #SCTLR_M
    mcr     SCTLR(r2)
    isb
    bx      r1

/* PL1 MMU off: r0 = physical address to continue at. */
pl1_mmu_off:
    mrc     SCTLR(r2)
    bic     r2, r2, #SCTLR_M
    mcr     SCTLR(r2)
    isb
    mov     r2, #0
    mcr     TLBIALL(r2)
    dsb     sy
    isb
    bx      r0
    .ltorg
