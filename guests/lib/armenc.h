/*
 * ARM (A32) encodings the test guests generate at run time: coprocessor
 * moves, hypercalls and loads/stores, from the ARM ARM (DDI 0406C) A8.8
 * encoding diagrams, and which CP15 encodings a guest's access traps to
 * the hypervisor (HSTR.T15, HCR.TIDCP/TAC/TSW, HDCR.TPM, CNTHCTL).
 */
#ifndef ARMENC_H
#define ARMENC_H

#include <stdint.h>
#include <stdbool.h>

#define COND_AL 0xeu

/* A8.8.98 MCR / A8.8.107 MRC */
static inline uint32_t enc_mcr_mrc(uint32_t cond, bool read, uint32_t cp, uint32_t opc1,
                                   uint32_t crn, uint32_t crm, uint32_t opc2, uint32_t rt)
{
    return (cond << 28) | 0x0e000010u | (read ? 1u << 20 : 0) | (opc1 << 21) | (crn << 16) |
           (rt << 12) | (cp << 8) | (opc2 << 5) | crm;
}

/* A8.8.99 MCRR / A8.8.108 MRRC */
static inline uint32_t enc_mcrr_mrrc(uint32_t cond, bool read, uint32_t cp, uint32_t opc1,
                                     uint32_t crm, uint32_t rt, uint32_t rt2)
{
    return (cond << 28) | 0x0c400000u | (read ? 1u << 20 : 0) | (rt2 << 16) | (rt << 12) |
           (cp << 8) | (opc1 << 4) | crm;
}

/* B9.3.4 HVC #imm16 (unconditional), B6.1.9 SMC #imm4 */
static inline uint32_t enc_hvc(uint32_t imm16)
{
    return 0xe1400070u | ((imm16 >> 4) << 8) | (imm16 & 0xf);
}
static inline uint32_t enc_smc(uint32_t cond, uint32_t imm4)
{
    return (cond << 28) | 0x01600070u | (imm4 & 0xf);
}

/* A8.8.106 MOVW / A8.8.103 MOVT: rd = imm32 in two instructions */
static inline uint32_t enc_movw(uint32_t rd, uint32_t imm16)
{
    return 0xe3000000u | ((imm16 >> 12) << 16) | (rd << 12) | (imm16 & 0xfff);
}
static inline uint32_t enc_movt(uint32_t rd, uint32_t imm16)
{
    return 0xe3400000u | ((imm16 >> 12) << 16) | (rd << 12) | (imm16 & 0xfff);
}

/* A8.8.315 MSR (immediate... register form): APSR_nzcvq = rn */
static inline uint32_t enc_msr_flags(uint32_t rn)
{
    return 0xe128f000u | rn;
}

/* Is a CP15 access with these fields one that traps to Partita? */
static inline bool cp15_traps(uint32_t opc1, uint32_t crn, uint32_t crm, uint32_t opc2)
{
    if (crn == 15)
        return true;                                    /* HSTR.T15 */
    if (crn == 9)                                       /* TIDCP; PMU (TPM) */
        return crm <= 2 || (crm >= 5 && crm <= 8) || (opc1 == 0 && crm >= 12 && crm <= 14);
    if (crn == 10)
        return crm == 0 || crm == 1 || crm == 4 || crm == 8;
    if (crn == 11)
        return crm <= 8 || crm == 15;
    if (crn == 1)
        return opc1 == 0 && crm == 0 && opc2 == 1;      /* ACTLR (TAC) */
    if (crn == 14)
        return opc1 == 0 && crm == 2;                   /* CNTP_*: undefined */
    return crn == 7 && opc1 == 0 && opc2 == 2 && (crm == 6 || crm == 10 || crm == 14);
}

#endif
