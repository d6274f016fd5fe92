#include <arch/sysregs.h>
#include "insn.h"

uint32_t insn_itstate(uint32_t cpsr)
{
    return ((cpsr >> 25) & 3u) | ((cpsr >> 8) & 0xfcu);
}

bool insn_cond_holds(uint32_t cond, uint32_t cpsr)
{
    bool n = ((cpsr >> 31) & 1u) != 0u;
    bool z = ((cpsr >> 30) & 1u) != 0u;
    bool c = ((cpsr >> 29) & 1u) != 0u;
    bool v = ((cpsr >> 28) & 1u) != 0u;
    bool r;
    switch (cond >> 1) {
    case 0: r = z; break;                   /* EQ / NE */
    case 1: r = c; break;                   /* CS / CC */
    case 2: r = n; break;                   /* MI / PL */
    case 3: r = v; break;                   /* VS / VC */
    case 4: r = c && !z; break;             /* HI / LS */
    case 5: r = n == v; break;              /* GE / LT */
    case 6: r = !z && n == v; break;        /* GT / LE */
    default: return true;                   /* AL, and 0b1111 */
    }
    return (cond & 1u) ? !r : r;
}

bool insn_condition_passed(uint32_t cpsr, uint32_t hsr)
{
    if ((hsr & HSR_CV) != 0u) {
        return insn_cond_holds(HSR_COND(hsr), cpsr);
    }
    /* CV = 0: only possible in Thumb; the IT block gives the condition */
    uint32_t it = insn_itstate(cpsr);
    if (((cpsr & PSR_T) == 0u) || ((it & 0xfu) == 0u)) {
        return true;
    }
    return insn_cond_holds(it >> 4, cpsr);
}

void insn_skip(uint32_t *pc, uint32_t *cpsr, bool is32)
{
    *pc += is32 ? 4u : 2u;
    uint32_t c = *cpsr;
    if ((c & PSR_T) == 0u) {
        return;
    }
    uint32_t it = insn_itstate(c);
    if (it == 0u) {
        return;
    }
    /* ITAdvance(): shift the mask; the block ends when IT[2:0] is 0 */
    if ((it & 7u) == 0u) {
        it = 0u;
    } else {
        it = (it & 0xe0u) | ((it << 1) & 0x1fu);
    }
    c &= ~PSR_IT_MASK;
    c |= ((it & 3u) << PSR_IT_LO_SHIFT) | ((it >> 2) << PSR_IT_HI_SHIFT);
    *cpsr = c;
}

bool insn_ls_writeback(uint32_t hsr, uint32_t rn, uint32_t *rn_out)
{
    uint32_t am = HSR_LS_AM(hsr);
    /* unindexed, offset or literal: no writeback */
    bool back = (am == HSR_LS_AM_POST) || (am == HSR_LS_AM_PRE);
    if (back) {
        uint32_t off = HSR_LS_IMM8(hsr) << 2;       /* words */
        if ((hsr & HSR_LS_ADD) != 0u) {
            *rn_out = rn + off;
        } else {
            *rn_out = rn - off;
        }
    }
    return back;
}
