/*
 * VFP/NEON registers of a vCPU on a shared CPU (lazy switching, hyp/arch/vfp.c).
 * The hypervisor is built -mgeneral-regs-only and never touches these
 * registers otherwise; this file alone is assembled for the FPU.
 * Layout of struct vcpu_vfp: FPEXC at 0, FPSCR at 4, d0-d31 from 8.
 * d16-d31 exist with VFPv3-D32 / Advanced SIMD (MVFR0.A_SIMD_registers
 * = 2, B6.1.41); Cortex-A15 and A7 have them, a D16 VFP does not.
 * Called with HCPTR.TCP10/TCP11 clear: HYP's own VFP accesses trap too
 * otherwise (B1.14.17).  FPEXC.EN must be set for anything but FPEXC
 * itself (B1.11.4): the guest's own FPEXC is saved first and restored last.
 * AAPCS: r0-r3 are free.
 */
    .syntax unified
    .arm                            @ C is T32: each global label a C caller
                                    @ reaches is .type %function, so that
                                    @ the linker makes its BL a BLX
    .fpu    neon-vfpv4
    .text

/* void vfp_save(struct vcpu_vfp *s) */
    .globl vfp_save
    .type vfp_save, %function
vfp_save:
    vmrs    r1, fpexc
    orr     r2, r1, #(1 << 30)      @ EN
    vmsr    fpexc, r2
    isb
    vmrs    r3, fpscr
    str     r1, [r0]
    str     r3, [r0, #4]
    add     r0, r0, #8
    vstmia  r0!, {d0-d15}
    vmrs    r2, mvfr0
    and     r2, r2, #0xf
    cmp     r2, #2
    vstmiaeq r0, {d16-d31}
    bx      lr
    .size vfp_save, . - vfp_save

/* void vfp_restore(const struct vcpu_vfp *s) */
    .globl vfp_restore
    .type vfp_restore, %function
vfp_restore:
    vmrs    r2, fpexc
    orr     r2, r2, #(1 << 30)
    vmsr    fpexc, r2
    isb
    ldr     r3, [r0, #4]
    vmsr    fpscr, r3
    add     r1, r0, #8
    vldmia  r1!, {d0-d15}
    vmrs    r2, mvfr0
    and     r2, r2, #0xf
    cmp     r2, #2
    vldmiaeq r1, {d16-d31}
    ldr     r3, [r0]
    vmsr    fpexc, r3
    isb
    bx      lr
    .size vfp_restore, . - vfp_restore

/* void vfp_read_ids(uint32_t ids[2]): MVFR0 and MVFR1, which VMRS reads
 * even with FPEXC.EN clear (B6.1.41, B6.1.42); HCPTR must let HYP at CP10 */
    .globl vfp_read_ids
    .type vfp_read_ids, %function
vfp_read_ids:
    vmrs    r1, mvfr0
    vmrs    r2, mvfr1
    str     r1, [r0]
    str     r2, [r0, #4]
    bx      lr
