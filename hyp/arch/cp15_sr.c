/*
 * The CP15 state a guest owns (ARM ARM B4.1): the non-secure PL1 copies,
 * which HYP reads and writes directly.  64-bit TTBRs and PAR cover LPAE
 * guests as well (the 64-bit views include the 32-bit ones).  Every one
 * is switched: HCR.TVM and TRVM are clear (a guest writes and reads its
 * translation registers without a trap) and the others are the guest's
 * without a trap bit at all.  Four at a time (sr4.h), in the order of
 * struct vcpu_cp15, which is the order they are written back.
 */
#include <arch/sysregs.h>
#include "vcpu.h"
#include "sr4.h"

#define MRC_TO(var, ENC) __asm__ volatile("mrc " SR_STR(ENC(%0)) : "=r"(var))
#define MCR_FROM(ENC, var) __asm__ volatile("mcr " SR_STR(ENC(%0)) : : "r"(var))

/* the 32-bit registers but SCTLR (20), in groups of four adjacent fields */
#define CP15_GROUPS(G)                                                       \
    G(CPACR, cpacr, TTBCR, ttbcr, DACR, dacr, DFSR, dfsr)                    \
    G(IFSR, ifsr, ADFSR, adfsr, AIFSR, aifsr, DFAR, dfar)                    \
    G(IFAR, ifar, PRRR, prrr, NMRR, nmrr, AMAIR0, amair0)                    \
    G(AMAIR1, amair1, VBAR, vbar, CONTEXTIDR, contextidr, TPIDRURW, tpidrurw) \
    G(TPIDRURO, tpidruro, TPIDRPRW, tpidrprw, CSSELR, csselr, CNTKCTL, cntkctl)

#define CHECK(R1, f1, R2, f2, R3, f3, R4, f4) SR4_ADJACENT(struct vcpu_cp15, f1, f2, f3, f4);
CP15_GROUPS(CHECK)
/* TTBR0 and TTBR1 as four adjacent words too, after TTBCR */
_Static_assert((size_t)offsetof(struct vcpu_cp15, ttbr1) == (size_t)offsetof(struct vcpu_cp15, ttbr0) + 8u &&
               (size_t)offsetof(struct vcpu_cp15, ttbr0) > (size_t)offsetof(struct vcpu_cp15, ttbcr),
               "ttbr0, ttbr1: four words, after TTBCR");

#define SAVE(...) SR4_SAVE(MRC_TO, c, __VA_ARGS__);
#define RESTORE(...) SR4_RESTORE(MCR_FROM, c, __VA_ARGS__);

void cp15_save(struct vcpu_cp15 *c)
{
    CP15_GROUPS(SAVE)
    register uint32_t a __asm__("r1"), b __asm__("r2"), d __asm__("r3"), e __asm__("r12");
    __asm__ volatile("mrrc " SR_STR(TTBR0_64(%0, %1)) : "=r"(a), "=r"(b));
    __asm__ volatile("mrrc " SR_STR(TTBR1_64(%0, %1)) : "=r"(d), "=r"(e));
    c->ttbr0 = (uint64_t)b << 32 | a;
    c->ttbr1 = (uint64_t)e << 32 | d;
    c->par = sysreg_read_par64();
    c->sctlr = sysreg_read_sctlr();
}

void cp15_restore(const struct vcpu_cp15 *c)
{
    CP15_GROUPS(RESTORE)        /* TTBCR before the TTBRs: EAE selects their format */
    {
        register uint32_t a __asm__("r1") = (uint32_t)c->ttbr0;
        register uint32_t b __asm__("r2") = (uint32_t)(c->ttbr0 >> 32);
        register uint32_t d __asm__("r3") = (uint32_t)c->ttbr1;
        register uint32_t e __asm__("r12") = (uint32_t)(c->ttbr1 >> 32);
        __asm__ volatile("mcrr " SR_STR(TTBR0_64(%0, %1)) : : "r"(a), "r"(b));
        __asm__ volatile("mcrr " SR_STR(TTBR1_64(%0, %1)) : : "r"(d), "r"(e));
    }
    sysreg_write_par64(c->par);
    sysreg_write_sctlr(c->sctlr);     /* last: it may turn the guest's MMU on */
    /* no ISB here: both callers synchronize before the registers are used
     * (vcpu_load's ISB, and the ERET into the guest, B1.8.3; vcpu_translate's
     * ISB before its ATS12NSO* operation) */
}
