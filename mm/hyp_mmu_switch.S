/*
 * The HYP page tables' storage that the entry code needs before C, and the
 * switch from the early tables to the final ones (mm/hyp_mmu.c).
 */
#include <arch/sysregs.h>
#include <arch/layout.h>
#include <arch/boot.h>

    .syntax unified
    .arm                            @ C is T32: each global label a C caller
                                    @ reaches is .type %function, so that
                                    @ the linker makes its BL a BLX

/*
 * The identity-mapped page (boot/early_mmu.S has the rest of it): code that
 * runs while the MMU changes state.
 */
    .section .text.idmap, "ax"
/*
 * Switch the running CPU to new HYP tables: r0 = new HTTBR (physical).
 * Called at its VA; runs the switch with the MMU off from the identity page
 * so that no TLB ever holds entries of two tables for one address (ARM ARM
 * B3.10.1, break-before-make).  No stack use while the MMU is off.
 */
    .globl hyp_mmu_switch
    .type   hyp_mmu_switch, %function
hyp_mmu_switch:
    ldr     r3, =boot_va_offset
    ldr     r3, [r3]                @ VA - PA of the image
    ldr     r2, =1f
    sub     r2, r2, r3
    bx      r2                      @ to the identity alias of 1f
1:  dsb     sy
    mrc     HSCTLR(r2)
    bic     r2, r2, #1
    mcr     HSCTLR(r2)              @ MMU off (caches keep their contents)
    isb
    mov     r2, #0
    mcrr    HTTBR(r0, r2)
    isb
    mcr     TLBIALLH(r2)
    dsb     sy
    isb
    mrc     HSCTLR(r2)
    orr     r2, r2, #1
    mcr     HSCTLR(r2)
    isb
    bx      lr                      @ back at the caller's VA

    .ltorg

/* The final tables' HTTBR, for secondaries (MMU off: cleaned to PoC), and
 * the image's VA - PA offset, set by the primary once its MMU is on */
    .section .data
    .globl hyp_httbr_pa
    .align 3
hyp_httbr_pa:
    .word   0
    .globl boot_va_offset
boot_va_offset:
    .word   0

/* Early tables: zeroed with .bss, filled by build_early_tables. */
    .section .bss.pagetables, "aw", %nobits
    .align 12
    .globl boot_pt_l1
boot_pt_l1:     .space 4096
    .globl boot_pt_l2_va
boot_pt_l2_va:  .space 4096
    .globl boot_pt_l2_id
boot_pt_l2_id:  .space 4096
    .globl boot_pt_l3
boot_pt_l3:     .space 4096
