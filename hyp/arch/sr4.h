/*
 * Saving and restoring system registers four at a time (banked_sr.c,
 * cp15_sr.c): read into r1-r3 and r12 (caller-saved, so no stack), then
 * the four adjacent fields are stored with one STM (or STRD and two STR
 * where the compiler prefers); restored the other way round with one LDM.
 * A field list that is not adjacent, in this order, fails to build
 * (SR4_ADJACENT).  Each MRS/MRC and MSR/MCR is one instruction.
 */
#ifndef HYP_ARCH_SR4_H
#define HYP_ARCH_SR4_H

#include <stddef.h>
#include <stdint.h>

/* (size_t): cppcheck does not know offsetof's type (MISRA C:2012 rule 10.4). */
#define SR4_ADJACENT(type, f1, f2, f3, f4)                                    \
    _Static_assert((size_t)offsetof(type, f2) == (size_t)offsetof(type, f1) + 4u &&           \
                   (size_t)offsetof(type, f3) == (size_t)offsetof(type, f1) + 8u &&           \
                   (size_t)offsetof(type, f4) == (size_t)offsetof(type, f1) + 12u,            \
                   #f1 " to " #f4 ": four adjacent words")

/* RD(var, reg) reads reg into var, for each pair; dst->f1..f4 */
#define SR4_SAVE(RD, dst, R1, f1, R2, f2, R3, f3, R4, f4)                     \
    do {                                                                     \
        register uint32_t a_ __asm__("r1"), b_ __asm__("r2");                \
        register uint32_t c_ __asm__("r3"), d_ __asm__("r12");               \
        RD(a_, R1); RD(b_, R2); RD(c_, R3); RD(d_, R4);                      \
        (dst)->f1 = a_; (dst)->f2 = b_; (dst)->f3 = c_; (dst)->f4 = d_;      \
    } while (0)

/* WR(reg, var) writes var to reg, for each pair; from src->f1..f4 */
#define SR4_RESTORE(WR, src, R1, f1, R2, f2, R3, f3, R4, f4)                  \
    do {                                                                     \
        register uint32_t a_ __asm__("r1") = (src)->f1;                      \
        register uint32_t b_ __asm__("r2") = (src)->f2;                      \
        register uint32_t c_ __asm__("r3") = (src)->f3;                      \
        register uint32_t d_ __asm__("r12") = (src)->f4;                     \
        WR(R1, a_); WR(R2, b_); WR(R3, c_); WR(R4, d_);                      \
    } while (0)

#endif
