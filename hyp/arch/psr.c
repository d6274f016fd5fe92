/*
 * The CPSR a debugger may write (psr.h), field by field as ARM ARM B1.3.3
 * ("Program Status Registers (PSRs)") has them.
 */
#include <arch/sysregs.h>
#include "psr.h"
#include "insn.h"

/* the IT[3:0] mask of ITSTATE and its base condition IT[7:5] (A2.5.2) */
#define IT_MASK_BITS   0x0fu
#define IT_COND_LSB    0x10u
#define IT_BASE_SHIFT  5u
#define IT_BASE_AL     7u       /* 0b111x: AL, or NV with IT[4] set */

/*
 * B1.3.1, Table B1-1 "ARM processor modes": of the 32 encodings of M[4:0]
 * only USR, FIQ, IRQ, SVC, MON, ABT, HYP, UND and SYS are modes; the others
 * are reserved, and setting one is UNPREDICTABLE - by an exception return
 * from Hyp mode (B1.9, ERET) as much as by an MSR.  Monitor is the Secure
 * world's and Hyp the hypervisor's own: neither is a guest's.
 */
bool psr_guest_mode(uint32_t mode)
{
    switch (mode) {
    case PSR_MODE_USR: case PSR_MODE_FIQ: case PSR_MODE_IRQ: case PSR_MODE_SVC:
    case PSR_MODE_ABT: case PSR_MODE_UND: case PSR_MODE_SYS:
        return true;
    default:
        return false;
    }
}

/*
 * ITSTATE (A2.5.2, "IT block state register, ITSTATE"): outside Thumb
 * state it is 0 (an IT block exists only in Thumb and ThumbEE state); in
 * it, a value an IT instruction and ITAdvance() can produce.  IT[3:0] = 0
 * is "not in an IT block", and then IT[7:4] must be 0 too (the other
 * combinations are reserved); an IT block's conditions are never NV
 * (A8.8.54, IT: firstcond 1111 is UNPREDICTABLE) and under AL never its
 * inverse (IT AL with an 'else' is UNPREDICTABLE), so with base 0b111 the
 * current condition is AL (IT[4] = 0) and every later one too (IT[3:0]
 * holds only the block's end marker).
 */
static bool it_state_ok(uint32_t cpsr)
{
    uint32_t it = insn_itstate(cpsr);
    uint32_t mask = it & IT_MASK_BITS;
    if ((cpsr & PSR_T) == 0u) {
        return it == 0u;
    }
    if (mask == 0u) {
        return it == 0u;
    }
    if ((it >> IT_BASE_SHIFT) == IT_BASE_AL) {
        return ((it & IT_COND_LSB) == 0u) && ((mask & (mask - 1u)) == 0u);
    }
    return true;
}

/*
 * J (B1.3.3; A2.10 "Jazelle direct bytecode execution"): J=1 with T=0 is
 * Jazelle state, which the trivial Jazelle implementation of the
 * Cortex-A15 and A7 never enters (BXJ is a BX there); J=1 with T=1 is
 * ThumbEE state, which a guest enters only by its own ENTERX.  So J may be
 * set only where the vCPU already is in ThumbEE state and stays there (gdb
 * writing back the CPSR it read); a debugger never moves a vCPU into
 * either state.
 */
static bool j_ok(uint32_t old, uint32_t val)
{
    if ((val & PSR_J) == 0u) {
        return true;
    }
    return (old & (PSR_J | PSR_T)) == (PSR_J | PSR_T) && (val & PSR_T) != 0u;
}

bool psr_debugger_may_write(uint32_t old, uint32_t val)
{
    if (!psr_guest_mode(val & PSR_MODE_MASK)) {
        return false;
    }
    /* [23:20] are reserved, "should be zero or preserved" (B1.3.3): a
     * bit set is one the vCPU already had */
    if ((val & PSR_RESERVED & ~old) != 0u) {
        return false;
    }
    return j_ok(old, val) && it_state_ok(val);
}
