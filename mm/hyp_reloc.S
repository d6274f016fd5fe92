/*
 * The two moments of moving the hypervisor into its colours that C cannot
 * write (mm/hyp_colour.h): the copy of the running image and the switch to
 * the tables that map the copy, with no store to the image in between -
 * a store between them would be lost, and so would a stack frame pushed
 * after the copy (so none is).
 */
#include <arch/sysregs.h>
#include <arch/layout.h>
#include "hyp_colour.h"

    .syntax unified
    .arm
    .text

/*
 * hyp_reloc_copy_switch(job): copy image page i (from __text_start on) to
 * the physical (identity-mapped) page job->to[i], skipping the pages with
 * to[i] == 0 (not mapped: the stacks' guard pages); clean every copied
 * line to the point of unification and drop the instruction caches and
 * branch predictors of all CPUs, so that fetches from the copy read what
 * was written (ARM ARM B2.2.7, "ordering of cache maintenance"); then
 * switch this CPU to job->httbr (hyp_mmu_switch).  QEMU models no cache:
 * leaving out the clean or the invalidate would pass there and run stale
 * instructions on a Cortex-A15.
 */
    .globl hyp_reloc_copy_switch
    .type hyp_reloc_copy_switch, %function
hyp_reloc_copy_switch:
    push    {r4-r11, lr}            @ before the copy, so in it
    ldr     r12, [r0, #JOB_HTTBR]
    ldr     r1, [r0, #JOB_NPAGES]
    ldr     lr, [r0, #JOB_LINE]
    push    {lr}                    @ the line size, also before the copy
    ldr     r0, [r0, #JOB_TO]
    ldr     r3, =__text_start
1:  ldr     r2, [r0], #4            @ this page's new home, or 0
    cmp     r2, #0
    addeq   r3, r3, #PAGE_SIZE
    beq     4f
    add     lr, r2, #PAGE_SIZE
2:  ldmia   r3!, {r4-r11}
    stmia   r2!, {r4-r11}
    cmp     r2, lr
    blo     2b
    ldr     r4, [sp]                @ line size
    sub     r5, r2, #PAGE_SIZE
3:  mcr     DCCMVAU(r5)
    add     r5, r5, r4
    cmp     r5, lr
    blo     3b
4:  subs    r1, r1, #1
    bne     1b
    dsb     ish
    mov     r2, #0
    mcr     ICIALLUIS(r2)
    mcr     BPIALLIS(r2)
    dsb     ish
    isb
    mov     r0, r12
    bl      hyp_mmu_switch
    pop     {lr}
    pop     {r4-r11, pc}
    .ltorg

/*
 * hyp_reloc_park(sync): another CPU waits for the copy.  It says it is
 * parked (after its last store to the image: DSB), then reads only the
 * sync words, which are pool memory mapped alike by both tables; once told
 * to go it switches to the new tables.  Its stack frames were pushed before
 * it parked, so they are in the copy.
 */
    .globl hyp_reloc_park
    .type hyp_reloc_park, %function
hyp_reloc_park:
    push    {r4, lr}
    dsb     ish
1:  ldrex   r1, [r0, #SYNC_PARKED]
    add     r1, r1, #1
    strex   r2, r1, [r0, #SYNC_PARKED]
    cmp     r2, #0
    bne     1b
    dsb     ish
    sev
2:  ldr     r1, [r0, #SYNC_GO]
    cmp     r1, #0
    wfeeq
    beq     2b
    dmb     ish
    ldr     r0, [r0, #SYNC_HTTBR]
    bl      hyp_mmu_switch
    pop     {r4, pc}
