/*
 * The secure start (ARM ARM B1.8; docs/booting.md, "Start modes"): when
 * Partita is entered in the secure world it is the firmware.
 * Set up the non-secure world per CPU, keep a trivial monitor, and drop to
 * non-secure HYP through an exception return from Monitor mode.
 * Registers as in entry.S: r7 = VA - PA, r9 = physical _start, r10 = DTB,
 * r11 = start mode.  MMU off: everything here is position independent.
 */
#include <arch/sysregs.h>
#include <arch/layout.h>
#include <arch/boot.h>
#include "vgic/gicd_regs.h"

    .syntax unified
    .arm                            @ C is T32: each global label a C caller
                                    @ reaches is .type %function, so that
                                    @ the linker makes its BL a BLX

    .section .text.boot, "ax"
/*
 * Secure start (QEMU secure=on, every CPU enters here at once).  The first
 * CPU (MPIDR affinity 0) is the primary; the others wait in the pen.
 */
    .globl from_secure
    .type   from_secure, %function
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
    .globl prehyp_done
    .type   prehyp_done, %function
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
    .globl probe_secure
    .type   probe_secure, %function
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
    /*
     * The Non-secure copies of these banked registers reset to UNKNOWN
     * values (ARM ARM B4.1, each register's description): give them the
     * ones a kernel entered at reset would find.
     */
    mov     r0, #0
    mcr     VBAR(r0)
    mcr     CSSELR(r0)
    mcr     CONTEXTIDR(r0)
    ldr     r0, =SCTLR_A15_RESET    @ SCTLR: MMU, caches off, RES1 bits
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

/*
 * The trivial monitor: an SMC copies r0 to MVBAR and returns, so that
 * non-secure software that needs a monitor of its own can install it
 * (docs/booting.md, "Start modes").
 */
    .align 5
mon_vectors:
    b       .
    b       .
    b       mon_smc_trivial
    .rept 5
    b       .
    .endr
mon_smc_trivial:
    tst     r0, #0x1f
    bne     mon_service             @ not a vector base: a Group 0 service
    mcr     MVBAR(r0)
    isb
    movs    pc, lr

/*
 * The Group 0 services (include/arch/boot.h MON_G0_*), for direct
 * interrupts (docs/direct-interrupts.md).  Monitor mode is always Secure
 * (ARM ARM B1.5.1), so these GIC accesses are secure ones: they reach the
 * secure banked GICC registers and Group 0, which the non-secure world
 * (HYP and any guest) cannot see (GICv2 4.4.x, 3.6).  MMU and caches are
 * off in the secure world after the boot: addresses are physical, the GIC's
 * from the pen, which prehyp C wrote with the caches off before any CPU ran
 * HYP and nothing writes since, so these non-cacheable reads see it on real
 * hardware too (QEMU, without caches, would not show a stale line).  Only
 * r0-r3 and r12 are used; no stack.
 */
mon_service:
    adr     r12, 1f
    ldr     r3, [r12]
    add     r3, r3, r12             @ r3 = the pen (physical)
    ldr     r12, =MON_G0_ACK
    sub     r12, r0, r12
    cmp     r12, #(MON_G0_CLAIM - MON_G0_ACK)
    addls   pc, pc, r12, lsl #2
    b       mon_unknown
    b       mon_g0_ack
    b       mon_g0_eoi
    b       mon_g0_sgi
    b       mon_g0_claim
1:  .word   boot_pen - 1b
mon_unknown:
    mvn     r0, #0                  @ MON_UNKNOWN
    movs    pc, lr
mon_g0_ack:
    ldr     r2, [r3, #PEN_GICC]
    ldr     r0, [r2, #GICC_IAR]
    movs    pc, lr
mon_g0_eoi:
    ldr     r2, [r3, #PEN_GICC]
    str     r1, [r2, #GICC_EOIR]
    movs    pc, lr
mon_g0_sgi:                         @ NSATT = 0: a Group 0 SGI (GICv2 4.3.15)
    ldr     r0, [r3, #PEN_GICD]
    and     r1, r1, #0xff
    and     r2, r2, #0xf
    orr     r2, r2, r1, lsl #16
    str     r2, [r0, #GICD_SGIR]
    movs    pc, lr
/*
 * Make this CPU's banked SGIs/PPIs in mask r1 Group 0 at GIC_G0_PRIO,
 * enabled, and have Group 0 signalled as FIQ here (secure GICC_CTLR.FIQEn,
 * GICv2 4.4.1).  From then on the non-secure world can neither change them
 * in the distributor (their GICD bits are RAZ/WI to it) nor mask or
 * acknowledge them at the CPU interface.
 */
mon_g0_claim:
    ldr     r2, [r3, #PEN_GICD]
    add     r12, r2, #GICD_IPRIORITYR
    mov     r0, r1
    mov     r3, #GIC_G0_PRIO
2:  lsrs    r0, r0, #1
    strbcs  r3, [r12]
    add     r12, r12, #1
    bne     2b
    ldr     r0, [r2, #GICD_IGROUPR]
    bic     r0, r0, r1
    str     r0, [r2, #GICD_IGROUPR]
    str     r1, [r2, #GICD_ISENABLER]
    adr     r12, 1b
    ldr     r3, [r12]
    add     r3, r3, r12
    ldr     r2, [r3, #PEN_GICC]
    ldr     r0, [r2, #GICC_CTLR]
    orr     r0, r0, #GICC_CTLR_FIQEN
    str     r0, [r2, #GICC_CTLR]
    mov     r0, #0
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
    str     r1, [r0, #GICD_IGROUPR]   @ IGROUPR0: banked, this CPU's
    ldr     r0, [r5, #PEN_GICC]
    mov     r1, #0xff
    str     r1, [r0, #GICC_PMR]     @ let every priority through
    mov     r1, #(GICC_CTLR_ENABLE_G0 | GICC_CTLR_ENABLE_G1)
    str     r1, [r0, #GICC_CTLR]    @ the secure view: both groups
    bx      lr

    .ltorg
