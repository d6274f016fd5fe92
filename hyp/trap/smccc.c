/*
 * HVC and SMC: the SMC Calling Convention's dispatch to PSCI and Partita's
 * own calls (psci.c); the environment they act on is the guest's
 * (hyp/guest/psci_env.c).
 */
#include <arch/sysregs.h>
#include "handlers.h"
#include "psci.h"

/*
 * SMCCC (DEN 0028, 2.5): a function ID's top byte holds the fast-call bit
 * (31), SMC64 (30) and the owning entity number (OEN, 29:24).  Only SMC32
 * fast calls of the Arm architecture (OEN 0) and of the standard secure
 * (4: PSCI) and hypervisor (6: Partita's own) services exist here, so the
 * top byte alone routes a call; anything else is NOT_SUPPORTED at once.
 */
#define SMCCC_TOP(oen)  ((SMCCC_FAST >> 24) | (uint32_t)(oen))

/* the calls that exist, out of line: the dispatch below needs no frame */
static void __attribute__((noinline)) partita_call(struct vcpu *v)
{
    if (!psci_partita_call(&v->psci, v->regs.r)) {
        v->regs.r[0] = SMCCC_NOT_SUPPORTED;
    }
}

static void __attribute__((noinline)) psci_call(struct vcpu *v)
{
    (void)psci_handle(&v->psci, v->regs.r);
}

static inline void smccc_call(struct vcpu *v)
{
    uint32_t fn = v->regs.r[0], top = fn >> 24;
    if (top == SMCCC_TOP(SMCCC_OEN_HYP)) {
        /* Partita's call numbers are 0..LAST and 0xff00..0xff03: one test
         * of bits [15:8] (0 or 0xff) turns away the rest of the range;
         * psci_partita_call answers the exact IDs */
        if (!(((SMCCC_NUM(fn) >> 8) + 1u) & 0xfeu)) {
            partita_call(v);
            return;
        }
    } else if ((top == SMCCC_TOP(SMCCC_OEN_STD)) || (top == SMCCC_TOP(SMCCC_OEN_ARCH))) {
        psci_call(v);
        return;
    } else {
        /* otherwise nothing to do */
    }
    v->regs.r[0] = SMCCC_NOT_SUPPORTED;
}

/* (GCC's CSE across the branches costs this path a register copy, one
 * instruction of the 40 an unknown ID's round trip takes: turned off here) */
__attribute__((optimize("no-cse-follow-jumps")))
void trap_hvc(struct vcpu *v, uint32_t hsr)
{
    /* ELR_hyp already points past the HVC (B1.8.3) */
    v->traps[TRAP_HVC]++;
    smccc_call(v);
}

void trap_smc(struct vcpu *v, uint32_t hsr)
{
    /* a trapped SMC returns to itself: step past it first (B1.14.4) */
    v->traps[TRAP_SMC]++;
    bool run = vcpu_condition_passed(v, hsr);
    vcpu_skip_instr(v, hsr);
    if (run) {
        smccc_call(v);
    }
}
