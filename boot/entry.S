/*
 * Partita entry: Linux zImage header, start-mode detection, and the primary
 * and secondary CPUs' way into C.  The secure start is in secure.S, the
 * early page tables and the MMU enable in early_mmu.S.
 *
 * Everything here runs at the physical load address with the MMU off, so it
 * is position independent: link-time addresses are turned into physical ones
 * by subtracting r7 = (HYP_VA_BASE - load address).
 *
 * Start modes (docs/booting.md, "Start modes"; ARM ARM B1.8):
 *   non-secure HYP   - the normal case: go on to the hypervisor.
 *   secure SVC/MON   - we are the firmware: set up the non-secure world,
 *                      keep a trivial monitor vector, drop to non-secure HYP.
 *   non-secure SVC   - the bootloader did not enter HYP: say so and stop.
 *
 * Register use until C runs:
 *   r7  = VA - PA offset of the image    r9  = physical address of _start
 *   r10 = boot DTB (physical, from r2)   r11 = this CPU's start mode
 */
#include <arch/sysregs.h>
#include <arch/layout.h>
#include <arch/boot.h>

    .syntax unified
    .arm                            @ C is T32: each global label a C caller
                                    @ reaches is .type %function, so that
                                    @ the linker makes its BL a BLX

    .section .head, "ax"
    .globl _start
    .type   _start, %function
_start:
    /* Linux zImage header: 8 words of no-ops, branch at 0x20, magic at 0x24 */
    .rept 8
    mov     r0, r0
    .endr
    b       boot_entry
    .word   0x016f2818              @ 0x24: zImage magic
    .word   0                       @ 0x28: start 0 = position independent
    .word   __footprint_size        @ 0x2c: end = whole memory footprint
    .word   0x04030201              @ 0x30: little-endian
    .word   0x45454545              @ 0x34
    .word   0                       @ 0x38: no extra table

    .section .text.boot, "ax"
boot_entry:
    cpsid   aif
    mov     r10, r2
    adr     r9, boot_entry
    ldr     r7, =boot_entry
    sub     r7, r7, r9              @ r7 = VA - PA
    ldr     r9, =_start
    sub     r9, r9, r7              @ r9 = physical _start
    /*
     * No DTB in r2: QEMU starts a non-Linux (ELF) image that way and puts
     * the DTB at the base of RAM.  Look there: the 1 GiB-aligned base of
     * the region we were loaded in.  C checks the magic either way.
     */
    cmp     r10, #0
    andeq   r10, r9, #0xc0000000

    mrs     r0, cpsr
    and     r0, r0, #PSR_MODE_MASK
    cmp     r0, #PSR_MODE_HYP
    moveq   r11, #START_MODE_NS_HYP
    beq     primary_hyp
    cmp     r0, #PSR_MODE_MON
    moveq   r11, #START_MODE_SECURE
    beq     from_secure
    cmp     r0, #PSR_MODE_SVC
    bne     no_hyp                  @ any other mode: we cannot use HYP
    bl      probe_secure            @ r0 = 1 if secure
    cmp     r0, #1
    moveq   r11, #START_MODE_SECURE
    beq     from_secure
no_hyp:
    mov     r11, #START_MODE_NS_SVC
    b       prehyp_c                @ prints why, never returns


/*
 * Wait until the primary names this CPU in the pen (its MPIDR affinity in
 * PEN_MPIDR): r7 valid, MMU off.  Returns r5 = the pen (physical), r6 =
 * this CPU's index.  Check first, then WFE: a SEV between the two leaves
 * the event register set, so no release is missed.
 */
    .globl pen_wait
    .type   pen_wait, %function
pen_wait:
    mrc     MPIDR(r4)
    bic     r4, r4, #0xff000000
    ldr     r5, =boot_pen
    sub     r5, r5, r7
1:  ldr     r0, [r5, #PEN_MPIDR]
    cmp     r0, r4
    wfene
    bne     1b
    ldr     r6, [r5, #PEN_CPU]
    bx      lr

/*
 * Non-secure HYP, primary CPU: clear BSS, build the early tables, MMU on.
 */
    .globl primary_hyp
    .type   primary_hyp, %function
primary_hyp:
    bl      clear_bss
    bl      build_early_tables
    ldr     r0, =boot_pt_l1
    sub     r0, r0, r7
    ldr     r1, =primary_va
    ldr     r2, =hyp_mmu_on
    sub     r2, r2, r7
    bx      r2                      @ continues at primary_va, MMU on
primary_va:
    ldr     r0, =boot_va_offset
    str     r7, [r0]
    ldr     sp, =__stacks_start + STACK_REGION - STACK_TOP_PAD
    ldr     r0, =hyp_vectors
    mcr     HVBAR(r0)
    isb
    mov     r0, r10                 @ DTB (physical)
    mov     r1, r9                  @ image physical base
    mov     r2, r11                 @ start mode
    bl      hyp_main
    b       .

/*
 * Secondary CPUs started by PSCI CPU_ON (context id = CPU index in r0), or
 * by a release address (spin-table, vexpress system flags: no context, so
 * the CPU learns its index from the pen), or released from the secure pen.
 * Already in HYP; the final tables exist.
 */
    .globl secondary_pen_entry
    .type   secondary_pen_entry, %function
secondary_pen_entry:
    cpsid   aif
    mov     r12, #1                 @ find our index in the pen
    b       1f
    .globl secondary_entry
    .type   secondary_entry, %function
secondary_entry:
    cpsid   aif
    mov     r12, #0                 @ r0 = our index
1:  adr     r9, _start_pa_probe
    ldr     r7, =_start_pa_probe
    sub     r7, r7, r9
    mov     r11, #START_MODE_NS_HYP
    mrs     r1, cpsr
    and     r1, r1, #PSR_MODE_MASK
    cmp     r1, #PSR_MODE_HYP
    bne     .                       @ entered outside HYP: cannot run
    cmp     r12, #0
    beq     secondary_common
    bl      pen_wait
    mov     r0, r6
    .globl secondary_common
    .type   secondary_common, %function
secondary_common:                   @ r0 = CPU index, r7, r11 valid
    mov     r6, r0
    ldr     r0, =hyp_httbr_pa
    sub     r0, r0, r7
    ldr     r0, [r0]                @ final tables (cleaned to PoC by CPU 0)
    ldr     r1, =secondary_va
    ldr     r2, =hyp_mmu_on
    sub     r2, r2, r7
    bx      r2
secondary_va:
    ldr     sp, =__stacks_start + STACK_REGION - STACK_TOP_PAD
    add     sp, sp, r6, lsl #STACK_REGION_SHIFT
    ldr     r0, =hyp_vectors
    mcr     HVBAR(r0)
    isb
    mov     r0, r6
    mov     r1, r11
    bl      secondary_main
    b       .
_start_pa_probe:
    .ltorg

/*
 * Secondary CPUs a SoC's own method started (hyp/platform/soc_smp.h): its
 * boot ROM or bootloader pen sends them here in the mode it runs them in.
 *   HYP         - on to the pen (no context: the pen names the CPU).
 *   secure      - Partita's secure per-CPU set-up (secure.S from_secure:
 *                 it waits in the pen, sets up its banked GIC state from
 *                 PEN_GICD/PEN_GICC, CNTFRQ from PEN_CNTFRQ) drops it to
 *                 non-secure HYP, as in a secure start.
 *   non-secure SVC - only a ROM call can enter HYP: the method left its
 *                 number in PEN_HYP_SMC (TI OMAP5/DRA7 API_HYP_ENTRY: r12 =
 *                 0x102, r0 = where to continue in HYP, as Linux's
 *                 omap5_secondary_hyp_startup), after PEN_CNTFRQ_SMC to set
 *                 CNTFRQ (only the secure side can).  No call: stay here,
 *                 and the primary reports that the CPU did not come online.
 * The ROM calls may change any register: everything is recomputed after.
 */
    .globl secondary_soc_entry
    .type   secondary_soc_entry, %function
secondary_soc_entry:
    cpsid   aif
    adr     r9, secondary_soc_entry
    ldr     r7, =secondary_soc_entry
    sub     r7, r7, r9              @ r7 = VA - PA
    ldr     r9, =_start
    sub     r9, r9, r7              @ r9 = physical _start
    mov     r10, #0                 @ no DTB: the primary read it
    mrs     r0, cpsr
    and     r0, r0, #PSR_MODE_MASK
    cmp     r0, #PSR_MODE_HYP
    beq     secondary_pen_entry
    cmp     r0, #PSR_MODE_MON
    moveq   r11, #START_MODE_SECURE
    beq     from_secure
    cmp     r0, #PSR_MODE_SVC
    bne     .                       @ no way to HYP from here
    bl      probe_secure            @ r0 = 1 if secure
    cmp     r0, #1
    moveq   r11, #START_MODE_SECURE
    beq     from_secure
    ldr     r5, =boot_pen
    sub     r5, r5, r7
    ldr     r12, [r5, #PEN_CNTFRQ_SMC]
    ldr     r0, [r5, #PEN_CNTFRQ]
    cmp     r12, #0
    cmpne   r0, #0
    beq     1f
    dsb
    smc     #0                      @ ROM: CNTFRQ = r0
1:  adr     r1, secondary_soc_entry
    ldr     r2, =secondary_soc_entry
    sub     r2, r2, r1              @ VA - PA again
    ldr     r5, =boot_pen
    sub     r5, r5, r2
    ldr     r12, [r5, #PEN_HYP_SMC]
    cmp     r12, #0
    beq     .                       @ non-secure SVC, no ROM call: cannot run
    adr     r0, secondary_soc_entry @ back here, in HYP
    dsb
    smc     #0
    b       .                       @ the ROM refused
    .ltorg

/* The pen: written by the primary, read by waiting secondaries (MMU off). */
    .section .data
    .align 6                        @ own cache line(s)
    .globl boot_pen
boot_pen:
    .word   0xffffffff              @ PEN_MPIDR: the CPU to release
    .word   0                       @ PEN_CPU: its index
    .word   0                       @ PEN_GICD: distributor (physical)
    .word   0                       @ PEN_GICC: CPU interface (physical)
    .word   0                       @ PEN_CNTFRQ: timer frequency or 0
    .word   0                       @ PEN_RELEASE: spin-table address or 0
    .word   0                       @ PEN_HYP_SMC: a ROM's HYP entry call or 0
    .word   0                       @ PEN_CNTFRQ_SMC: a ROM's CNTFRQ call or 0
    .align 6

/* The ELF note listing the start modes the image supports (docs/booting.md) */
    .section .note.partita, "a"
    .align 2
    .word   2f - 1f                 @ namesz
    .word   4f - 3f                 @ descsz
    .word   1                       @ type 1: supported start modes
1:  .asciz  "Partita"
2:  .align 2
3:  .asciz  "secure-monitor,secure-svc,nonsecure-hyp"
4:  .align 2
