/*
 * Partita entry: Linux zImage header, start-mode detection, the secure
 * monitor trampoline, early page tables and the first MMU enable.
 *
 * Everything here runs at the physical load address with the MMU off, so it
 * is position independent: link-time addresses are turned into physical ones
 * by subtracting r7 = (HYP_VA_BASE - load address).
 *
 * Start modes (seed mail, "ARM processor mode, kernel startup"):
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
    .arm

    .section .head, "ax"
    .globl _start
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
 * Secure start (QEMU secure=on, every CPU enters here at once).  The first
 * CPU (MPIDR affinity 0) is the primary; the others wait in the pen.
 */
from_secure:
    mrc     ID_PFR1(r0)
    ands    r0, r0, #0xf000         @ Virtualization Extensions present?
    moveq   r11, #START_MODE_NS_SVC @ no: report as "cannot enter HYP"
    beq     prehyp_c
    cps     #PSR_MODE_SVC
    mrc     MPIDR(r0)
    bic     r0, r0, #0xff000000
    cmp     r0, #0
    bne     secure_secondary
    /* primary: run C in secure SVC to hand the GIC to the non-secure world */
    b       prehyp_c
prehyp_done:                        @ prehyp C returned (secure primary)
    bl      secure_cpu_setup
    b       primary_hyp

/* Secondary CPUs of a secure start wait here until the primary releases them. */
secure_secondary:
    bl      pen_wait                @ r5 = pen, r6 = our CPU index
    bl      secure_gic_cpu_setup
    bl      secure_cpu_setup        @ now in non-secure HYP
    ldr     r0, [r5, #PEN_RELEASE]
    cmp     r0, #0
    bne     firmware_spin
    mov     r0, r6
    b       secondary_common

/*
 * The primary named a spin-table release address for this CPU: act as
 * the firmware of a spin-table board (as boot wrappers do), so that the
 * hypervisor's spin-table start runs for real: wait in non-secure HYP
 * until the address holds an entry point, then jump there (no context:
 * the entry finds its CPU index in the pen itself).  MMU and caches off:
 * the primary cleaned its store to the point of coherency.
 */
firmware_spin:
    mov     r1, r0
1:  ldr     r0, [r1]
    cmp     r0, #0
    wfeeq
    beq     1b
    bx      r0

/*
 * Wait until the primary names this CPU in the pen (its MPIDR affinity in
 * PEN_MPIDR): r7 valid, MMU off.  Returns r5 = the pen (physical), r6 =
 * this CPU's index.  Check first, then WFE: a SEV between the two leaves
 * the event register set, so no release is missed.
 */
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
 * Per-CPU secure set-up, then the drop to non-secure HYP through the monitor
 * (ARM ARM B1.8, B1.5: an exception return from Monitor mode with SCR.NS=1
 * and SPSR.M=Hyp enters Non-secure Hyp mode).  Returns in NS HYP.
 */
secure_cpu_setup:
    mov     r8, lr                  @ HYP has no banked LR: keep it in r8
    /* Non-secure access to CP10/CP11 (VFP/NEON belong to the guests) */
    mov     r0, #(3 << 10)
    mcr     NSACR(r0)
    /* Cortex-A15/A7: ACTLR.SMP (bit 6) joins the coherency domain; only
     * the secure world can set it unless NSACR.NS_SMP. */
    mrc     ACTLR(r0)
    orr     r0, r0, #(1 << 6)
    mcr     ACTLR(r0)
    ldr     r0, =mon_vectors_boot
    sub     r0, r0, r7
    mcr     MVBAR(r0)
    isb
    smc     #0                      @ -> mon_smc_boot, back here in NS HYP
    bx      r8

/*
 * Decide secure vs non-secure SVC by reading SCR, which is UNDEFINED in the
 * non-secure state (ARM ARM B4.1.129).  A temporary vector table catches the
 * undefined-instruction exception.  Returns r0 = 1 if secure.
 */
probe_secure:
    mrc     ID_PFR1(r0)
    tst     r0, #0xf0               @ no Security Extensions: not secure
    moveq   r0, #0
    bxeq    lr
    mrc     SCTLR(r1)
    bic     r1, r1, #(1 << 13)      @ V: use VBAR, not high vectors
    bic     r1, r1, #(1 << 30)      @ TE: ARM-state exception entry
    mcr     SCTLR(r1)
    ldr     r1, =probe_vectors
    sub     r1, r1, r7
    mcr     VBAR(r1)
    isb
    mov     r0, #1                  @ assume secure
    mrc     SCR(r1)                 @ undefined if non-secure: r0 <- 0
    bx      lr

    .align 5
probe_vectors:
    b       .
    b       probe_undef
    .rept 6
    b       .
    .endr
probe_undef:
    mov     r0, #0
    movs    pc, lr                  @ back after the faulting MRC

/* Monitor vectors used once per CPU: the SMC above lands here. */
    .align 5
mon_vectors_boot:
    b       .
    b       .
    b       mon_smc_boot
    .rept 5
    b       .
    .endr
mon_smc_boot:
    /*
     * SCR: NS, HVC enabled (HCE), FIQ/abort masks writable from NS (FW, AW).
     * IRQ and FIQ stay in the normal world (SCR.IRQ = SCR.FIQ = 0).
     */
    mov     r0, #(SCR_NS | SCR_FW | SCR_AW | SCR_HCE)
    mcr     SCR(r0)
    isb
    /* Non-secure copies with no sane reset value (seed mail, 3a) */
    mov     r0, #0
    mcr     VBAR(r0)
    mcr     CSSELR(r0)
    mcr     CONTEXTIDR(r0)
    ldr     r0, =0x00c50078         @ SCTLR: MMU, caches off, RES1 bits
    mcr     SCTLR(r0)
    ldr     r0, =HSCTLR_BASE        @ HSCTLR: MMU off
    mcr     HSCTLR(r0)
    mov     r0, #0
    mov     r1, #0
    mcrr    CNTVOFF(r0, r1)
    /* From now on an SMC only moves MVBAR (the trivial monitor). */
    ldr     r0, =mon_vectors
    sub     r0, r0, r7
    mcr     MVBAR(r0)
    mov     r0, #(PSR_MODE_HYP | PSR_A | PSR_I | PSR_F)
    msr     spsr_cxsf, r0
    isb
    movs    pc, lr                  @ to NS HYP, after the SMC

/* The trivial monitor: an SMC copies r0 to MVBAR and returns (seed mail). */
    .align 5
mon_vectors:
    b       .
    b       .
    b       mon_smc_trivial
    .rept 5
    b       .
    .endr
mon_smc_trivial:
    mcr     MVBAR(r0)
    isb
    movs    pc, lr

/*
 * Per-CPU GIC set-up only the secure world can do (GICv2 4.3.4/4.4.1): put
 * this CPU's banked SGIs/PPIs in Group 1 and let Group 1 reach the
 * non-secure CPU interface.  The primary did the distributor (prehyp C) and
 * left the GICD/GICC physical addresses in the pen.
 */
secure_gic_cpu_setup:
    ldr     r0, [r5, #PEN_CNTFRQ]   @ CNTFRQ is writable only from secure PL1
    cmp     r0, #0
    mcrne   CNTFRQ(r0)
    ldr     r0, [r5, #PEN_GICD]
    mvn     r1, #0
    str     r1, [r0, #0x80]         @ GICD_IGROUPR0 (banked)
    ldr     r0, [r5, #PEN_GICC]
    mov     r1, #0xff
    str     r1, [r0, #0x04]         @ GICC_PMR: let every priority through
    mov     r1, #3
    str     r1, [r0, #0x00]         @ GICC_CTLR (secure): EnableGrp0|Grp1
    bx      lr

/*
 * Non-secure HYP, primary CPU: clear BSS, build the early tables, MMU on.
 */
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
secondary_pen_entry:
    cpsid   aif
    mov     r12, #1                 @ find our index in the pen
    b       1f
    .globl secondary_entry
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

/*
 * Zero .bss (includes the early tables; not the stacks or .noinit), MMU
 * off: physical.  Both ends are 32-byte aligned (linker.ld): 32 bytes a
 * round.  No stack yet: r0-r6 and r12 are free here (the callers build the
 * early tables with r4-r6 next).
 */
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

/*
 * Switch the running CPU to new HYP tables: r0 = new HTTBR (physical).
 * Called at its VA; runs the switch with the MMU off from the identity page
 * so that no TLB ever holds entries of two tables for one address (ARM ARM
 * B3.10.1, break-before-make).  No stack use while the MMU is off.
 */
    .globl hyp_mmu_switch
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
    .align 6

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
boot_pt_l2_va:  .space 4096
boot_pt_l2_id:  .space 4096
boot_pt_l3:     .space 4096

/* The ELF note listing the start modes this image supports (seed mail 1). */
    .section .note.partita, "a"
    .align 2
    .word   2f - 1f                 @ namesz
    .word   4f - 3f                 @ descsz
    .word   1                       @ type 1: supported start modes
1:  .asciz  "Partita"
2:  .align 2
3:  .asciz  "secure-monitor,secure-svc,nonsecure-hyp"
4:  .align 2
