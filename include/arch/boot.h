/* Boot-time data shared by the entry code and C. */
#ifndef ARCH_BOOT_H
#define ARCH_BOOT_H

/* Offsets in boot_pen (boot/entry.S) */
#define PEN_MPIDR   0x00u
#define PEN_CPU     0x04u
#define PEN_GICD    0x08u
#define PEN_GICC    0x0cu
#define PEN_CNTFRQ  0x10u
#define PEN_RELEASE 0x14u
#define PEN_HYP_SMC 0x18u
#define PEN_CNTFRQ_SMC 0x1cu

/*
 * Partita's monitor (boot/secure.S, a secure start only): an SMC from HYP
 * with r0 32-byte aligned moves MVBAR there (the trivial monitor); these
 * IDs (never aligned) are the Group 0 services of direct interrupts
 * (docs/direct-interrupts.md).  Arguments in r1, r2; result in r0; r0-r3
 * and r12 are clobbered.  Guests never reach them: their SMC traps
 * (HCR.TSC).
 */
#define MON_G0_ACK      0x82000001u  /* r0 = the secure GICC_IAR (1022/1023: none) */
#define MON_G0_EOI      0x82000002u  /* GICC_EOIR = r1 (EOImodeS 0: drop, deactivate) */
#define MON_G0_SGI      0x82000003u  /* Group 0 SGI r2 to the CPU interfaces in r1 */
#define MON_G0_CLAIM    0x82000004u  /* this CPU's SGIs/PPIs in mask r1 -> Group 0 */
#define MON_UNKNOWN     0xffffffffu  /* r0 of any other ID */
/* the priority of the hypervisor's Group 0 interrupts: the secure half,
 * which no non-secure GICC_PMR value can mask (GICv2 3.6.3, 4.4.2) */
#define GIC_G0_PRIO     0x00u

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

struct boot_pen {
    volatile uint32_t mpidr;    /* CPU to release, 0xffffffff = none */
    volatile uint32_t cpu;      /* its index */
    volatile uint32_t gicd_pa;  /* for its secure GIC set-up */
    volatile uint32_t gicc_pa;
    volatile uint32_t cntfrq;   /* 0: leave CNTFRQ as it is */
    volatile uint32_t release_pa;   /* secure start: spin-table address to wait on */
    volatile uint32_t hyp_smc;      /* SoC start from non-secure SVC: ROM's HYP entry call */
    volatile uint32_t cntfrq_smc;   /* ... and its CNTFRQ call (r0 = cntfrq), 0: none */
};
/* (size_t): cppcheck does not know offsetof's type (MISRA C:2012 rule 10.4). */
_Static_assert((size_t)__builtin_offsetof(struct boot_pen, cpu) == PEN_CPU, "pen");
_Static_assert((size_t)__builtin_offsetof(struct boot_pen, gicd_pa) == PEN_GICD, "pen");
_Static_assert((size_t)__builtin_offsetof(struct boot_pen, gicc_pa) == PEN_GICC, "pen");
_Static_assert((size_t)__builtin_offsetof(struct boot_pen, cntfrq) == PEN_CNTFRQ, "pen");
_Static_assert((size_t)__builtin_offsetof(struct boot_pen, release_pa) == PEN_RELEASE, "pen");
_Static_assert((size_t)__builtin_offsetof(struct boot_pen, hyp_smc) == PEN_HYP_SMC, "pen");
_Static_assert((size_t)__builtin_offsetof(struct boot_pen, cntfrq_smc) == PEN_CNTFRQ_SMC, "pen");

extern struct boot_pen boot_pen;
extern uint32_t hyp_httbr_pa;
extern uint32_t boot_va_offset;
extern uint64_t boot_pt_l1[];
extern char _start[], __text_start[], __text_end[], __rodata_start[],
    __rodata_end[], __data_start[], __bss_start[], __bss_end[],
    __stacks_start[], __stacks_end[], __idmap_start[],
    __footprint_end[], __config_start[], __config_end[];

void hyp_mmu_switch(uint32_t httbr_pa);
void secondary_entry(void);
void secondary_pen_entry(void);
void secondary_soc_entry(void);
#endif
#endif
