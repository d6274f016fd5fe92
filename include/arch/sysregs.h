/*
 * The one table of ARMv7-A system-register encodings, for C and assembly.
 *
 * Each entry expands to the operands of MRC/MCR (32-bit) or MRRC/MCRR
 * (64-bit) around a register argument, so assembly writes
 *     mrc  HSCTLR(r0)          mcrr HTTBR(r0, r1)
 * and C uses the accessors generated below:
 *     u32 v = sysreg_read_hsctlr();  sysreg_write_hsctlr(v);
 * Encodings: ARM ARM (DDI 0406C.d) B4.1 / B8 (Generic Timer) / B4.2.
 */
#ifndef ARCH_SYSREGS_H
#define ARCH_SYSREGS_H

#define SR32(op1, crn, crm, op2, r)  p15, op1, r, crn, crm, op2
#define SR64(op1, crm, lo, hi)       p15, op1, lo, hi, crm

/* ---- identification ---- */
#define MIDR(r)        SR32(0, c0, c0, 0, r)
#define MPIDR(r)       SR32(0, c0, c0, 5, r)
#define ID_PFR1(r)     SR32(0, c0, c1, 1, r)
#define ID_MMFR0(r)    SR32(0, c0, c1, 4, r)
#define CLIDR(r)       SR32(1, c0, c0, 1, r)
#define CCSIDR(r)      SR32(1, c0, c0, 0, r)
#define CSSELR(r)      SR32(2, c0, c0, 0, r)
#define CTR(r)         SR32(0, c0, c0, 1, r)
#define VPIDR(r)       SR32(4, c0, c0, 0, r)
#define VMPIDR(r)      SR32(4, c0, c0, 5, r)

/* ---- PL1 system control (banked Secure/Non-secure) ---- */
#define SCTLR(r)       SR32(0, c1, c0, 0, r)
#define ACTLR(r)       SR32(0, c1, c0, 1, r)
#define CPACR(r)       SR32(0, c1, c0, 2, r)
#define SCR(r)         SR32(0, c1, c1, 0, r)
#define SDER(r)        SR32(0, c1, c1, 1, r)
#define NSACR(r)       SR32(0, c1, c1, 2, r)
#define TTBR0(r)       SR32(0, c2, c0, 0, r)
#define TTBR1(r)       SR32(0, c2, c0, 1, r)
#define TTBCR(r)       SR32(0, c2, c0, 2, r)
#define DACR(r)        SR32(0, c3, c0, 0, r)
#define DFSR(r)        SR32(0, c5, c0, 0, r)
#define IFSR(r)        SR32(0, c5, c0, 1, r)
#define ADFSR(r)       SR32(0, c5, c1, 0, r)
#define AIFSR(r)       SR32(0, c5, c1, 1, r)
#define DFAR(r)        SR32(0, c6, c0, 0, r)
#define IFAR(r)        SR32(0, c6, c0, 2, r)
#define PRRR(r)        SR32(0, c10, c2, 0, r)
#define NMRR(r)        SR32(0, c10, c2, 1, r)
#define AMAIR0(r)      SR32(0, c10, c3, 0, r)
#define AMAIR1(r)      SR32(0, c10, c3, 1, r)
#define VBAR(r)        SR32(0, c12, c0, 0, r)
#define MVBAR(r)       SR32(0, c12, c0, 1, r)
#define CONTEXTIDR(r)  SR32(0, c13, c0, 1, r)
#define TPIDRURW(r)    SR32(0, c13, c0, 2, r)
#define TPIDRURO(r)    SR32(0, c13, c0, 3, r)
#define TPIDRPRW(r)    SR32(0, c13, c0, 4, r)
#define TTBR0_64(lo, hi) SR64(0, c2, lo, hi)
#define TTBR1_64(lo, hi) SR64(1, c2, lo, hi)

/* ---- HYP mode (ARM ARM B4.1, "Hyp mode registers") ---- */
#define HSCTLR(r)      SR32(4, c1, c0, 0, r)
#define HACTLR(r)      SR32(4, c1, c0, 1, r)
#define HCR(r)         SR32(4, c1, c1, 0, r)
#define HDCR(r)        SR32(4, c1, c1, 1, r)
#define HCPTR(r)       SR32(4, c1, c1, 2, r)
#define HSTR(r)        SR32(4, c1, c1, 3, r)
#define HACR(r)        SR32(4, c1, c1, 7, r)
#define HTCR(r)        SR32(4, c2, c0, 2, r)
#define VTCR(r)        SR32(4, c2, c1, 2, r)
#define HDFAR(r)       SR32(4, c6, c0, 0, r)
#define HIFAR(r)       SR32(4, c6, c0, 2, r)
#define HPFAR(r)       SR32(4, c6, c0, 4, r)
#define HSR(r)         SR32(4, c5, c2, 0, r)
#define HMAIR0(r)      SR32(4, c10, c2, 0, r)
#define HMAIR1(r)      SR32(4, c10, c2, 1, r)
#define HVBAR(r)       SR32(4, c12, c0, 0, r)
#define HTPIDR(r)      SR32(4, c13, c0, 2, r)
#define HTTBR(lo, hi)  SR64(4, c2, lo, hi)
#define VTTBR(lo, hi)  SR64(6, c2, lo, hi)
#define PAR64(lo, hi)  SR64(0, c7, lo, hi)

/* ---- performance monitors (B4.1.117-B4.1.133, PMUv2) ---- */
#define PMCR(r)        SR32(0, c9, c12, 0, r)
#define PMCNTENSET(r)  SR32(0, c9, c12, 1, r)
#define PMCNTENCLR(r)  SR32(0, c9, c12, 2, r)
#define PMOVSR(r)      SR32(0, c9, c12, 3, r)
#define PMSWINC(r)     SR32(0, c9, c12, 4, r)
#define PMSELR(r)      SR32(0, c9, c12, 5, r)
#define PMCEID0(r)     SR32(0, c9, c12, 6, r)
#define PMCEID1(r)     SR32(0, c9, c12, 7, r)
#define PMCCNTR(r)     SR32(0, c9, c13, 0, r)
#define PMXEVTYPER(r)  SR32(0, c9, c13, 1, r)
#define PMXEVCNTR(r)   SR32(0, c9, c13, 2, r)
#define PMUSERENR(r)   SR32(0, c9, c14, 0, r)
#define PMINTENSET(r)  SR32(0, c9, c14, 1, r)
#define PMINTENCLR(r)  SR32(0, c9, c14, 2, r)
#define PMOVSSET(r)    SR32(0, c9, c14, 3, r)

/* ---- debug registers (CP14 opc1 0, ARM ARM C11.11, v7.1 Debug) ---- */
#define DR32(op1, crn, crm, op2, r)  p14, op1, r, crn, crm, op2
#define DBGDIDR(r)     DR32(0, c0, c0, 0, r)
#define DBGDSCRINT(r)  DR32(0, c0, c1, 0, r)
#define DBGDSCREXT(r)  DR32(0, c0, c2, 2, r)
#define DBGOSLAR(r)    DR32(0, c1, c0, 4, r)
#define DBGOSDLR(r)    DR32(0, c1, c3, 4, r)
#define DBGDEVID(r)    DR32(0, c7, c2, 7, r)
#define DBGDEVID1(r)   DR32(0, c7, c1, 7, r)
#define DBGAUTHSTATUS(r) DR32(0, c7, c14, 6, r)
/* breakpoint and watchpoint n: CRm = n, the literal 0-15 (C11.11.2) */
#define DBGBVR(n, r)   DR32(0, c0, c##n, 4, r)
#define DBGBCR(n, r)   DR32(0, c0, c##n, 5, r)
#define DBGWVR(n, r)   DR32(0, c0, c##n, 6, r)
#define DBGWCR(n, r)   DR32(0, c0, c##n, 7, r)

/* ---- ID group 3 (HCR.TID3), read for a guest that is shown less ---- */
#define ID_PFR0(r)     SR32(0, c0, c1, 0, r)
#define ID_DFR0(r)     SR32(0, c0, c1, 2, r)
#define ID_AFR0(r)     SR32(0, c0, c1, 3, r)
#define ID_MMFR1(r)    SR32(0, c0, c1, 5, r)
#define ID_MMFR2(r)    SR32(0, c0, c1, 6, r)
#define ID_MMFR3(r)    SR32(0, c0, c1, 7, r)
#define ID_ISAR0(r)    SR32(0, c0, c2, 0, r)
#define ID_ISAR1(r)    SR32(0, c0, c2, 1, r)
#define ID_ISAR2(r)    SR32(0, c0, c2, 2, r)
#define ID_ISAR3(r)    SR32(0, c0, c2, 3, r)
#define ID_ISAR4(r)    SR32(0, c0, c2, 4, r)
#define ID_ISAR5(r)    SR32(0, c0, c2, 5, r)

/* ---- Generic Timer (ARM ARM B8.2) ---- */
#define CNTFRQ(r)      SR32(0, c14, c0, 0, r)
#define CNTKCTL(r)     SR32(0, c14, c1, 0, r)
#define CNTHCTL(r)     SR32(4, c14, c1, 0, r)
#define CNTHP_TVAL(r)  SR32(4, c14, c2, 0, r)
#define CNTHP_CTL(r)   SR32(4, c14, c2, 1, r)
#define CNTV_CTL(r)    SR32(0, c14, c3, 1, r)
#define CNTPCT(lo, hi)     SR64(0, c14, lo, hi)
#define CNTVCT(lo, hi)     SR64(1, c14, lo, hi)
#define CNTV_CVAL(lo, hi)  SR64(3, c14, lo, hi)
#define CNTVOFF(lo, hi)    SR64(4, c14, lo, hi)
#define CNTHP_CVAL(lo, hi) SR64(6, c14, lo, hi)

/* ---- cache and TLB maintenance (write-only operations, B4.2.1/B4.2.2) ---- */
#define ICIALLU(r)     SR32(0, c7, c5, 0, r)
#define ICIALLUIS(r)   SR32(0, c7, c1, 0, r)
/* clean a data cache line by VA to the point of unification (B4.2.1) */
#define DCCMVAU(r)     SR32(0, c7, c11, 1, r)
#define BPIALL(r)      SR32(0, c7, c5, 6, r)
#define BPIALLIS(r)    SR32(0, c7, c1, 6, r)
#define DCIMVAC(r)     SR32(0, c7, c6, 1, r)
#define DCISW(r)       SR32(0, c7, c6, 2, r)
#define DCCMVAC(r)     SR32(0, c7, c10, 1, r)
#define DCCSW(r)       SR32(0, c7, c10, 2, r)
#define DCCIMVAC(r)    SR32(0, c7, c14, 1, r)
#define DCCISW(r)      SR32(0, c7, c14, 2, r)
#define TLBIALLH(r)    SR32(4, c8, c7, 0, r)
#define TLBIALLHIS(r)  SR32(4, c8, c3, 0, r)
#define TLBIMVAH(r)    SR32(4, c8, c7, 1, r)
#define TLBIMVAHIS(r)  SR32(4, c8, c3, 1, r)
#define TLBIALLNSNH(r) SR32(4, c8, c7, 4, r)
#define TLBIALLNSNHIS(r) SR32(4, c8, c3, 4, r)
#define TLBIALL(r)     SR32(0, c8, c7, 0, r)
/* address translation from Hyp mode through the Non-secure PL1 stage 1 and
 * Stage-2, for a read or a write (B4.2.6, B4.1.11); the result is in PAR */
#define ATS12NSOPR(r)  SR32(0, c7, c8, 4, r)
#define ATS12NSOPW(r)  SR32(0, c7, c8, 5, r)
/* address translation through the Hyp mode stage 1 tables, for a read
 * (B4.2.6, B4.1.11): the hypervisor checks where its own pages landed */
#define ATS1HR(r)      SR32(4, c7, c8, 0, r)
#define TLBIALLIS(r)   SR32(0, c8, c3, 0, r)

#ifndef __ASSEMBLER__
#include <stdint.h>

#define SR_STR1(...) #__VA_ARGS__
#define SR_STR(...)  SR_STR1(__VA_ARGS__)

#define SYSREG32_ACCESSORS(name, enc)                                        \
    static inline uint32_t sysreg_read_##name(void)                          \
    {                                                                        \
        uint32_t v;                                                          \
        __asm__ volatile("mrc " SR_STR(enc(%0)) : "=r"(v));                  \
        return v;                                                            \
    }                                                                        \
    static inline void sysreg_write_##name(uint32_t v)                       \
    {                                                                        \
        __asm__ volatile("mcr " SR_STR(enc(%0)) : : "r"(v) : "memory");      \
    }

#define SYSREG64_ACCESSORS(name, enc)                                        \
    static inline uint64_t sysreg_read_##name(void)                          \
    {                                                                        \
        uint32_t lo, hi;                                                     \
        __asm__ volatile("mrrc " SR_STR(enc(%0, %1)) : "=r"(lo), "=r"(hi));  \
        return ((uint64_t)hi << 32) | lo;                                    \
    }                                                                        \
    static inline void sysreg_write_##name(uint64_t v)                       \
    {                                                                        \
        __asm__ volatile("mcrr " SR_STR(enc(%0, %1))                         \
                         : : "r"((uint32_t)v), "r"((uint32_t)(v >> 32))      \
                         : "memory");                                        \
    }

#define SYSREG_OP_ACCESSOR(name, enc)                                        \
    static inline void sysreg_op_##name(uint32_t v)                          \
    {                                                                        \
        __asm__ volatile("mcr " SR_STR(enc(%0)) : : "r"(v) : "memory");      \
    }

SYSREG32_ACCESSORS(midr, MIDR)
SYSREG32_ACCESSORS(mpidr, MPIDR)
SYSREG32_ACCESSORS(id_pfr1, ID_PFR1)
SYSREG32_ACCESSORS(id_mmfr0, ID_MMFR0)
SYSREG32_ACCESSORS(clidr, CLIDR)
SYSREG32_ACCESSORS(ccsidr, CCSIDR)
SYSREG32_ACCESSORS(csselr, CSSELR)
SYSREG32_ACCESSORS(ctr, CTR)
SYSREG32_ACCESSORS(vpidr, VPIDR)
SYSREG32_ACCESSORS(vmpidr, VMPIDR)
SYSREG32_ACCESSORS(sctlr, SCTLR)
SYSREG32_ACCESSORS(actlr, ACTLR)
SYSREG32_ACCESSORS(cpacr, CPACR)
SYSREG32_ACCESSORS(ttbr0, TTBR0)
SYSREG32_ACCESSORS(ttbr1, TTBR1)
SYSREG32_ACCESSORS(ttbcr, TTBCR)
SYSREG32_ACCESSORS(dacr, DACR)
SYSREG32_ACCESSORS(dfsr, DFSR)
SYSREG32_ACCESSORS(ifsr, IFSR)
SYSREG32_ACCESSORS(dfar, DFAR)
SYSREG32_ACCESSORS(ifar, IFAR)
SYSREG32_ACCESSORS(prrr, PRRR)
SYSREG32_ACCESSORS(nmrr, NMRR)
SYSREG32_ACCESSORS(vbar, VBAR)
SYSREG32_ACCESSORS(contextidr, CONTEXTIDR)
SYSREG32_ACCESSORS(adfsr, ADFSR)
SYSREG32_ACCESSORS(aifsr, AIFSR)
SYSREG32_ACCESSORS(amair0, AMAIR0)
SYSREG32_ACCESSORS(amair1, AMAIR1)
SYSREG32_ACCESSORS(tpidrurw, TPIDRURW)
SYSREG32_ACCESSORS(tpidruro, TPIDRURO)
SYSREG32_ACCESSORS(tpidrprw, TPIDRPRW)
SYSREG64_ACCESSORS(ttbr0_64, TTBR0_64)
SYSREG64_ACCESSORS(ttbr1_64, TTBR1_64)
SYSREG32_ACCESSORS(hsctlr, HSCTLR)
SYSREG32_ACCESSORS(hactlr, HACTLR)
SYSREG32_ACCESSORS(hcr, HCR)
SYSREG32_ACCESSORS(hdcr, HDCR)
SYSREG32_ACCESSORS(hcptr, HCPTR)
SYSREG32_ACCESSORS(hstr, HSTR)
SYSREG32_ACCESSORS(htcr, HTCR)
SYSREG32_ACCESSORS(vtcr, VTCR)
SYSREG32_ACCESSORS(hdfar, HDFAR)
SYSREG32_ACCESSORS(hifar, HIFAR)
SYSREG32_ACCESSORS(hpfar, HPFAR)
SYSREG32_ACCESSORS(hsr, HSR)
SYSREG32_ACCESSORS(hmair0, HMAIR0)
SYSREG32_ACCESSORS(hmair1, HMAIR1)
SYSREG32_ACCESSORS(hvbar, HVBAR)
SYSREG32_ACCESSORS(htpidr, HTPIDR)
SYSREG64_ACCESSORS(httbr, HTTBR)
SYSREG64_ACCESSORS(vttbr, VTTBR)
SYSREG64_ACCESSORS(par64, PAR64)
SYSREG_OP_ACCESSOR(ats12nsopr, ATS12NSOPR)
SYSREG_OP_ACCESSOR(ats12nsopw, ATS12NSOPW)
SYSREG_OP_ACCESSOR(ats1hr, ATS1HR)
SYSREG32_ACCESSORS(pmcr, PMCR)
SYSREG32_ACCESSORS(pmcntenset, PMCNTENSET)
SYSREG32_ACCESSORS(pmcntenclr, PMCNTENCLR)
SYSREG32_ACCESSORS(pmovsr, PMOVSR)
SYSREG32_ACCESSORS(pmswinc, PMSWINC)
SYSREG32_ACCESSORS(pmselr, PMSELR)
SYSREG32_ACCESSORS(pmceid0, PMCEID0)
SYSREG32_ACCESSORS(pmceid1, PMCEID1)
SYSREG32_ACCESSORS(pmccntr, PMCCNTR)
SYSREG32_ACCESSORS(pmxevtyper, PMXEVTYPER)
SYSREG32_ACCESSORS(pmxevcntr, PMXEVCNTR)
SYSREG32_ACCESSORS(pmuserenr, PMUSERENR)
SYSREG32_ACCESSORS(pmintenset, PMINTENSET)
SYSREG32_ACCESSORS(pmintenclr, PMINTENCLR)
SYSREG32_ACCESSORS(pmovsset, PMOVSSET)
SYSREG32_ACCESSORS(dbgdidr, DBGDIDR)
SYSREG32_ACCESSORS(dbgdscrint, DBGDSCRINT)
SYSREG32_ACCESSORS(dbgdscrext, DBGDSCREXT)
SYSREG32_ACCESSORS(dbgoslar, DBGOSLAR)
SYSREG32_ACCESSORS(dbgosdlr, DBGOSDLR)
SYSREG32_ACCESSORS(dbgdevid, DBGDEVID)
SYSREG32_ACCESSORS(dbgdevid1, DBGDEVID1)
SYSREG32_ACCESSORS(dbgauthstatus, DBGAUTHSTATUS)
SYSREG32_ACCESSORS(id_pfr0, ID_PFR0)
SYSREG32_ACCESSORS(id_dfr0, ID_DFR0)
SYSREG32_ACCESSORS(id_afr0, ID_AFR0)
SYSREG32_ACCESSORS(id_mmfr1, ID_MMFR1)
SYSREG32_ACCESSORS(id_mmfr2, ID_MMFR2)
SYSREG32_ACCESSORS(id_mmfr3, ID_MMFR3)
SYSREG32_ACCESSORS(id_isar0, ID_ISAR0)
SYSREG32_ACCESSORS(id_isar1, ID_ISAR1)
SYSREG32_ACCESSORS(id_isar2, ID_ISAR2)
SYSREG32_ACCESSORS(id_isar3, ID_ISAR3)
SYSREG32_ACCESSORS(id_isar4, ID_ISAR4)
SYSREG32_ACCESSORS(id_isar5, ID_ISAR5)
SYSREG32_ACCESSORS(cntfrq, CNTFRQ)
SYSREG32_ACCESSORS(cntkctl, CNTKCTL)
SYSREG32_ACCESSORS(cnthctl, CNTHCTL)
SYSREG32_ACCESSORS(cnthp_tval, CNTHP_TVAL)
SYSREG32_ACCESSORS(cnthp_ctl, CNTHP_CTL)
SYSREG32_ACCESSORS(cntv_ctl, CNTV_CTL)
SYSREG64_ACCESSORS(cntpct, CNTPCT)
SYSREG64_ACCESSORS(cntvct, CNTVCT)
SYSREG64_ACCESSORS(cntv_cval, CNTV_CVAL)
SYSREG64_ACCESSORS(cntvoff, CNTVOFF)
SYSREG64_ACCESSORS(cnthp_cval, CNTHP_CVAL)
SYSREG_OP_ACCESSOR(iciallu, ICIALLU)
SYSREG_OP_ACCESSOR(icialluis, ICIALLUIS)
SYSREG_OP_ACCESSOR(bpiall, BPIALL)
SYSREG_OP_ACCESSOR(bpiallis, BPIALLIS)
SYSREG_OP_ACCESSOR(dcimvac, DCIMVAC)
SYSREG_OP_ACCESSOR(dccmvac, DCCMVAC)
SYSREG_OP_ACCESSOR(dccimvac, DCCIMVAC)
SYSREG_OP_ACCESSOR(dcisw, DCISW)
SYSREG_OP_ACCESSOR(dccsw, DCCSW)
SYSREG_OP_ACCESSOR(dccisw, DCCISW)
SYSREG_OP_ACCESSOR(tlbiallh, TLBIALLH)
SYSREG_OP_ACCESSOR(tlbiallhis, TLBIALLHIS)
SYSREG_OP_ACCESSOR(tlbimvah, TLBIMVAH)
SYSREG_OP_ACCESSOR(tlbimvahis, TLBIMVAHIS)
SYSREG_OP_ACCESSOR(tlbiallnsnh, TLBIALLNSNH)
SYSREG_OP_ACCESSOR(tlbiallnsnhis, TLBIALLNSNHIS)
SYSREG_OP_ACCESSOR(tlbiallis, TLBIALLIS)

static inline void dsb(void) { __asm__ volatile("dsb sy" ::: "memory"); }
static inline void dsb_ish(void) { __asm__ volatile("dsb ish" ::: "memory"); }
static inline void dmb(void) { __asm__ volatile("dmb sy" ::: "memory"); }
static inline void dmb_ish(void) { __asm__ volatile("dmb ish" ::: "memory"); }
static inline void isb(void) { __asm__ volatile("isb" ::: "memory"); }
static inline void wfi(void) { __asm__ volatile("wfi" ::: "memory"); }
static inline void wfe(void) { __asm__ volatile("wfe" ::: "memory"); }
static inline void sev(void) { __asm__ volatile("sev" ::: "memory"); }

static inline uint32_t cpsr_read(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, cpsr" : "=r"(v));
    return v;
}
static inline void irq_enable(void) { __asm__ volatile("cpsie i" ::: "memory"); }
static inline void irq_disable(void) { __asm__ volatile("cpsid i" ::: "memory"); }
static inline uint32_t irq_save(void)
{
    uint32_t f = cpsr_read();
    irq_disable();
    return f;
}
static inline void irq_restore(uint32_t f)
{
    if (!(f & (1u << 7))) {
        irq_enable();
    }
}
#endif /* !__ASSEMBLER__ */

/* ---- bit definitions used by C and assembly ---- */
/*
 * A register's bit n, and a field's value v at bit s: an unsigned int in C,
 * whose essential type is 32 bits wide (MISRA C:2012 rule 12.2 takes a bare
 * 1u for 8 bits wide and a shift past them for out of range); the assembler
 * takes no cast.
 */
#ifndef __ASSEMBLER__
#define SR_BIT(n)      ((unsigned int)1u << (n))
#define SR_FIELD(v, s) ((unsigned int)(v) << (s))
#endif
/* the assembly's: not #ifdef __ASSEMBLER__ nor #else, which would make
 * cppcheck analyse every C file in an assembly configuration too */
#ifndef SR_BIT
#define SR_BIT(n)      (1 << (n))
#define SR_FIELD(v, s) ((v) << (s))
#endif
#define PSR_MODE_MASK  0x1fu
#define PSR_MODE_USR   0x10u
#define PSR_MODE_FIQ   0x11u
#define PSR_MODE_IRQ   0x12u
#define PSR_MODE_SVC   0x13u
#define PSR_MODE_MON   0x16u
#define PSR_MODE_ABT   0x17u
#define PSR_MODE_HYP   0x1au
#define PSR_MODE_UND   0x1bu
#define PSR_MODE_SYS   0x1fu
#define PSR_T          SR_BIT(5)
#define PSR_F          SR_BIT(6)
#define PSR_I          SR_BIT(7)
#define PSR_A          SR_BIT(8)
#define PSR_E          SR_BIT(9)       /* big-endian data */
#define PSR_NZCVQ      0xf8000000u     /* the condition flags and Q */
/* the other fields of a CPSR/SPSR (ARM ARM B1.3.3, "Program Status
 * Registers (PSRs)"): IT[1:0] in [26:25], J in [24], [23:20] reserved,
 * GE[3:0] in [19:16], IT[7:2] in [15:10] */
#define PSR_IT_LO_SHIFT 25u
#define PSR_IT_LO_MASK SR_FIELD(3u, PSR_IT_LO_SHIFT)  /* IT[1:0] */
#define PSR_J          SR_BIT(24)      /* with T: Jazelle (T=0) or ThumbEE (T=1) */
#define PSR_RESERVED   0x00f00000u     /* [23:20]: reserved, UNK/SBZP */
#define PSR_GE_MASK    0x000f0000u
#define PSR_IT_HI_SHIFT 10u
#define PSR_IT_HI_MASK SR_FIELD(0x3fu, PSR_IT_HI_SHIFT) /* IT[7:2] */
#define PSR_IT_MASK    (PSR_IT_LO_MASK | PSR_IT_HI_MASK)

#define SCTLR_M        SR_BIT(0)
#define SCTLR_A        SR_BIT(1)
#define SCTLR_C        SR_BIT(2)
#define SCTLR_I        SR_BIT(12)
#define SCTLR_V        SR_BIT(13)      /* high exception vectors (0xffff0000) */
#define SCTLR_WXN      SR_BIT(19)
#define SCTLR_EE       SR_BIT(25)      /* exceptions taken big-endian */
#define SCTLR_TE       SR_BIT(30)      /* exceptions taken in Thumb state */

/* TTBCR.EAE (B4.1.153): the long-descriptor (LPAE) translation format */
#define TTBCR_EAE      SR_BIT(31)

/* PAR after an address translation operation (B4.1.113): F says it
 * faulted; LPAE selects the 64-bit format (PA bits 39:12), else the 32-bit
 * one (PA bits 31:12, or 31:24 of a supersection, SS) */
#define PAR_F          SR_BIT(0)
#define PAR_SS         SR_BIT(1)
#define PAR_LPAE       SR_BIT(11)
#define PAR64_PA_MASK  0x000000fffffff000ull
#define PAR32_PA_MASK  0xfffff000u
#define PAR32_SS_MASK  0xff000000u

/* DFSR/IFSR as a guest's abort handler reads them (B4.1.52, B4.1.96):
 * LPAE selects the long-descriptor format of the status */
#define FSR_LPAE           SR_BIT(9)
#define FSR_WNR            SR_BIT(11)  /* DFSR: a write */
#define FSR_LD_SYNC_EXT    0x10u       /* long format: synchronous external abort */
#define FSR_SD_SYNC_EXT    0x08u       /* short format: the same */

/* offsets in a PL1 exception vector table (B1.8.1, Table B1-3) */
#define VECTOR_UNDEF   0x04u
#define VECTOR_PABT    0x0cu
#define VECTOR_DABT    0x10u
/* SCTLR as a Cortex-A15 or A7 leaves reset: MMU and caches off, the RES1
 * bits set, exceptions in ARM state (A15 TRM 4.3.27) */
#define SCTLR_A15_RESET 0x00c50078u

/* HCR (B4.1.65): the traps every guest runs under; reasons in hyp/arch/vcpu.c */
#define HCR_VM         SR_BIT(0)
#define HCR_SWIO       SR_BIT(1)
#define HCR_FMO        SR_BIT(3)
#define HCR_IMO        SR_BIT(4)
#define HCR_AMO        SR_BIT(5)
#define HCR_FB         SR_BIT(9)
#define HCR_BSU_IS     SR_BIT(10)
#define HCR_TWI        SR_BIT(13)
#define HCR_TWE        SR_BIT(14)
#define HCR_TID3       SR_BIT(18)
#define HCR_TSC        SR_BIT(19)
#define HCR_TIDCP      SR_BIT(20)
#define HCR_TAC        SR_BIT(21)
#define HCR_TSW        SR_BIT(22)

/* HSTR (B4.1.73): trap PL1 accesses to CP15 primary register CRn = n */
#define HSTR_T(n)      SR_BIT(n)

/* HDCR (B4.1.64): debug and performance-monitor traps, and HPMN, the
 * event counters PL1 may use (set to PMCR.N: all of them) */
#define HDCR_TDE       SR_BIT(8)     /* debug exceptions to Hyp mode */
#define HDCR_TDRA      SR_BIT(11)    /* debug ROM address registers */
#define HDCR_TDOSA     SR_BIT(10)    /* OS lock and power-down registers */
#define HDCR_TDA       SR_BIT(9)     /* the other debug registers */
#define HDCR_TPM       SR_BIT(6)     /* performance monitors */
#define HDCR_TPMCR     SR_BIT(5)     /* PMCR */
#define HDCR_HPMN_MASK 0x1fu
#define HDCR_HPME      SR_BIT(7)     /* event counters HPMN and up enabled */

/* PMCR (B4.1.117): N, the number of event counters, in [15:11] */
#define PMCR_N_SHIFT   11u
#define PMCR_N_MASK    SR_FIELD(0x1fu, PMCR_N_SHIFT)
#define PMCR_N(pmcr)   (((pmcr) >> PMCR_N_SHIFT) & 0x1fu)
#define PMCR_E         SR_BIT(0)     /* counters enabled */
#define PMCR_P         SR_BIT(1)     /* event counters reset (write) */
#define PMCR_C         SR_BIT(2)     /* cycle counter reset (write) */
#define PMCR_WRITABLE  0x3fu         /* DP, X, D, C, P, E */
/* PMXEVTYPER (B4.1.128), and PMCCFILTR through it with PMSELR.SEL = 31:
 * NSH enables counting in Hyp mode */
#define PMXEVTYPER_NSH SR_BIT(27)
#define PMXEVTYPER_EVENT 0xffu       /* evtCount */
#define PMSELR_CCNT    31u
/* ID_DFR0 (B4.1.90): PerfMon [27:24], 2 = PMUv2; the debug models */
#define ID_DFR0_PERFMON_SHIFT 24u
#define ID_DFR0_PERFMON(v)    (((v) >> ID_DFR0_PERFMON_SHIFT) & 0xfu)
#define ID_DFR0_COPDBG(v)     ((v) & 0xfu)           /* CP14 debug, 5 = v7.1 */
#define ID_DFR0_MMAPDBG_MASK  SR_FIELD(0xfu, 8)     /* memory-mapped debug */
#define ID_DFR0_COPTRC_MASK   SR_FIELD(0xfu, 12)    /* CP14 trace */
#define ID_DFR0_MMAPTRC_MASK  SR_FIELD(0xfu, 16)    /* memory-mapped trace */

/* Debug registers (C11.11).  DBGDIDR (C11.11.15): */
#define DBGDIDR_WRPS(v)       ((((v) >> 28) & 0xfu) + 1u)   /* watchpoints */
#define DBGDIDR_BRPS(v)       ((((v) >> 24) & 0xfu) + 1u)   /* breakpoints */
#define DBGDIDR_VERSION(v)    (((v) >> 16) & 0xfu)         /* 5: v7.1 */
#define DBGDIDR_PCSR_IMP      SR_BIT(13)                  /* DBGPCSR at offset 0x084 */
/* DBGDEVID.PCsample [3:0] (C11.11.19): which PC sample registers exist */
#define DBGDEVID_PCSAMPLE     0xfu
/* DBGDSCR (C11.11.20) */
#define DBGDSCR_MOE_MASK      SR_FIELD(0xfu, 2) /* method of (last) debug entry */
#define DBGDSCR_MOE_BKPT      SR_FIELD(0x3u, 2) /* ... a BKPT instruction */
#define DBGDSCR_UDCCDIS       SR_BIT(12)     /* PL0 access to the DCC disabled */
#define DBGDSCR_MDBGEN        SR_BIT(15)     /* monitor debug-mode enabled */
/* DBGBCR (C11.11.7) and DBGWCR (C11.11.45) share E, the privilege field
 * (PMC/PAC), HMC and SSC; together these say in which modes and security
 * states the breakpoint or watchpoint matches (C3.8.1, Table C3-9) */
#define DBGxCR_E              SR_BIT(0)
#define DBGxCR_PL_MASK        SR_FIELD(3u, 1) /* PMC / PAC: PL1 (bit 1), PL0 (bit 2) */
#define DBGxCR_HMC            SR_BIT(13)     /* match in Hyp mode */
#define DBGxCR_SSC_MASK       SR_FIELD(3u, 14) /* security state control */
#define DBGxCR_SSC_NS         SR_BIT(14)     /* 0b01: Non-secure state only */
#define DBGxCR_SSC_S          SR_FIELD(2u, 14) /* 0b10: Secure state only */
#define DBGBCR_BT_VMID        SR_BIT(23)     /* BT[3] set: the VMID match types */
/* DBGBCR.BAS [8:5] (C11.11.7): which halfwords of the word at DBGBVR an
 * unlinked address match (BT 0b0000) hits - 0b1111 an ARM instruction,
 * 0b0011 / 0b1100 a Thumb one at the low / high halfword */
#define DBGBCR_BAS_SHIFT      5u
#define DBGBCR_BAS_ARM        SR_FIELD(0xfu, DBGBCR_BAS_SHIFT)
#define DBGBCR_BAS_THUMB_LO   SR_FIELD(0x3u, DBGBCR_BAS_SHIFT)
#define DBGBCR_BAS_THUMB_HI   SR_FIELD(0xcu, DBGBCR_BAS_SHIFT)
/* DBGWCR (C11.11.45): LSC [4:3] loads (0b01), stores (0b10) or both;
 * BAS [8:5] the bytes of the word at DBGWVR watched */
#define DBGWCR_LSC_LOAD       SR_BIT(3)
#define DBGWCR_LSC_STORE      SR_FIELD(2u, 3)
#define DBGWCR_BAS_SHIFT      5u
#define DBGDSCR_MOE_BREAKPOINT SR_FIELD(0x1u, 2) /* MOE: a breakpoint (comparator) */
#define DBGDSCR_MOE_WATCH_SYNC SR_FIELD(0xau, 2) /* MOE: a synchronous watchpoint */
/* DBGOSLSR (C11.11.33): OSLM 0b10 = the v7.1 OS Lock, OSLK = locked */
#define DBGOSLSR_OSLM_V71     SR_BIT(3)
#define DBGOSLSR_OSLK         SR_BIT(1)
#define DBGOSLAR_KEY          0xc5acce55u    /* a write of it locks, anything else unlocks */
#define DBGPRSR_PU            SR_BIT(0)      /* powered up */

/* HCPTR (B4.1.74): TTA traps the trace registers, TCPn coprocessor n; the
 * TCP bits of the coprocessors that do not exist (all but CP10, CP11) are
 * RES1, kept set */
#define HCPTR_TTA      SR_BIT(20)
#define HCPTR_TCP(n)   SR_BIT(n)
#define HCPTR_TCP10_11 (HCPTR_TCP(10u) | HCPTR_TCP(11u))
#define HCPTR_RES1     0x33ffu

#define SCR_NS         SR_BIT(0)
#define SCR_IRQ        SR_BIT(1)
#define SCR_FIQ        SR_BIT(2)
#define SCR_EA         SR_BIT(3)
#define SCR_FW         SR_BIT(4)
#define SCR_AW         SR_BIT(5)
#define SCR_SMD        SR_BIT(7)
#define SCR_HCE        SR_BIT(8)

/*
 * HSR, the Hyp Syndrome Register (ARM ARM B3.13.6, B4.1.76): the exception
 * class in [31:26], the instruction length, and the class's own ISS.
 */
#define HSR_EC_SHIFT     26u
#define HSR_EC(hsr)      ((hsr) >> HSR_EC_SHIFT)
#define HSR_IL           SR_BIT(25)     /* 32-bit instruction */
#define HSR_ISS(hsr)     ((hsr) & 0x1ffffffu)
/* exception classes (Table B3-22) */
#define HSR_EC_UNKNOWN   0x00u
#define HSR_EC_WFX       0x01u           /* WFI or WFE (HCR.TWI/TWE) */
#define HSR_EC_CP15_32   0x03u           /* MCR/MRC p15 */
#define HSR_EC_CP15_64   0x04u           /* MCRR/MRRC p15 */
#define HSR_EC_CP14_32   0x05u           /* MCR/MRC p14 */
#define HSR_EC_CP14_LS   0x06u           /* LDC/STC p14 */
#define HSR_EC_HCPTR     0x07u           /* CP0-CP13 access HCPTR traps */
#define HSR_EC_CP10_ID   0x08u           /* VMRS of an ID register (HCR.TID0) */
#define HSR_EC_CP14_64   0x0cu           /* MCRR/MRRC p14 */
#define HSR_EC_HVC       0x12u
#define HSR_EC_SMC       0x13u
#define HSR_EC_PABT      0x20u           /* prefetch abort from a lower level */
#define HSR_EC_DABT      0x24u           /* data abort from a lower level */
/* debug exceptions routed to Hyp mode (HDCR.TDE): an ARMv7 CPU gives them
 * as prefetch/data aborts with the debug-event status (FSC_DEBUG); an
 * ARMv8 CPU running AArch32 (and QEMU) gives these classes */
#define HSR_EC_BRK_LOWER 0x31u           /* breakpoint (comparator) */
#define HSR_EC_STEP_LOWER 0x33u          /* software step */
#define HSR_EC_WATCH_LOWER 0x35u         /* watchpoint */
#define HSR_EC_BKPT32    0x38u           /* BKPT instruction, AArch32 */
/* the condition of a trapped conditional instruction (CV, COND) */
#define HSR_CV           SR_BIT(24)
#define HSR_COND(h)      (((h) >> 20) & 0xfu)
/* WFI/WFE: ISS bit 0 is 1 for WFE */
#define HSR_WFX_WFE      SR_BIT(0)
/* MCR/MRC (ISS for EC 0x03, 0x05): Opc2, Opc1, CRn, Rt, CRm, direction */
#define HSR_CP_OPC2(h)   (((h) >> 17) & 7u)
#define HSR_CP_OPC1(h)   (((h) >> 14) & 7u)
#define HSR_CP_CRN(h)    (((h) >> 10) & 0xfu)
#define HSR_CP_RT(h)     (((h) >> 5) & 0xfu)
#define HSR_CP_CRM(h)    (((h) >> 1) & 0xfu)
#define HSR_CP_READ      SR_BIT(0)      /* MRC/MRRC: to the core register */
/* MCRR/MRRC (EC 0x04, 0x0c): Rt2 where MCR has CRn, and Rt, CRm, direction */
#define HSR_CP64_RT2(h)  (((h) >> 10) & 0xfu)
/* LDC/STC (EC 0x06, B3.13.6): imm8, Rn, Offset (add), AM, direction */
#define HSR_LS_IMM8(h)   (((h) >> 12) & 0xffu)
#define HSR_LS_RN(h)     (((h) >> 5) & 0xfu)
#define HSR_LS_ADD       SR_BIT(4)      /* the offset is added, not subtracted */
#define HSR_LS_AM(h)     (((h) >> 1) & 7u)
#define HSR_LS_AM_POST   1u             /* immediate post-indexed: writes Rn back */
#define HSR_LS_AM_PRE    3u             /* immediate pre-indexed: writes Rn back */
/* a data abort's ISS */
#define HSR_DABT_ISV     SR_BIT(24)     /* the fields below are valid */
#define HSR_DABT_SAS(h)  (((h) >> 22) & 3u)   /* 0b11 (doubleword) reserved in ARMv7 */
/* ISV and SAS together, [24:22]: an access with a syndrome is 0b100 to 0b110 */
#define HSR_DABT_ISV_SAS(h) (((h) >> 22) & 7u)
#define HSR_DABT_ISV_SAS_BYTE 4u        /* ISV set, SAS 0b00 */
#define HSR_DABT_SAS_WORD_BIT SR_FIELD(2u, 22) /* SAS[1]: a word, SAS 0b11 aside */
#define HSR_DABT_SSE     SR_BIT(21)
#define HSR_DABT_SRT(h)  (((h) >> 16) & 0xfu)
#define HSR_DABT_EA      SR_BIT(9)
#define HSR_DABT_CM      SR_BIT(8)
#define HSR_DABT_S1PTW   SR_BIT(7)
#define HSR_DABT_WNR     SR_BIT(6)
#define HSR_DABT_FSC(h)  ((h) & 0x3fu)
/* fault status codes, long-descriptor format (B3.13.3): the type in [5:2],
 * the lookup level in [1:0] */
#define FSC_TYPE(fsc)    ((fsc) & 0x3cu)
#define FSC_TRANSLATION  0x04u
#define FSC_ACCESS_FLAG  0x08u
#define FSC_PERMISSION   0x0cu
#define FSC_DEBUG        0x22u           /* a debug event */
/* the same in a guest's short-descriptor DFSR/IFSR (FS[4:0], B4.1.52) */
#define FSR_SD_DEBUG     0x02u
/* HPFAR (B4.1.68): IPA[39:12] in bits [31:4] ([3:0] reserved) */
#define HPFAR_IPA(hpfar) ((uint64_t)((hpfar) >> 4) << 12)
/* the faulting IPA: HPFAR's page, the offset within it from the faulting
 * VA (HDFAR/HIFAR), which shares it (B3.13.6) */
#define FAULT_PAGE_OFFSET 0xfffu
#define FAULT_IPA(far, hpfar) (HPFAR_IPA(hpfar) | ((far) & FAULT_PAGE_OFFSET))

/* Start modes recorded per CPU (boot/entry.S; docs/booting.md) */
#define START_MODE_NS_HYP     1u
#define START_MODE_SECURE     2u   /* secure SVC or monitor */
#define START_MODE_NS_SVC     3u   /* no access to HYP: fatal */

#endif /* ARCH_SYSREGS_H */
