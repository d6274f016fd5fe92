/*
 * HVC and SMC: the SMC Calling Convention's dispatch to PSCI and Partita's
 * own calls (psci.c); the environment they act on is the guest's
 * (hyp/guest/psci_env.c).
 */
#include <arch/sysregs.h>
#include "handlers.h"
#include "psci.h"

static void smccc_call(struct vcpu *v)
{
    /*
     * SMCCC (DEN 0028, 2.5): only SMC32 fast calls of the Arm architecture
     * (OEN 0), standard secure (4: PSCI) and hypervisor (6: Partita's own)
     * services exist here; anything else is NOT_SUPPORTED at once.
     */
    uint32_t fn = v->regs.r[0];
    uint32_t oen = SMCCC_OEN_SMC64(fn);     /* SMC64 calls match no service */
    if (oen == SMCCC_OEN_HYP && (fn & SMCCC_FAST)) {
        uint32_t num = SMCCC_NUM(fn);       /* 0..LAST and 0xff00..0xff03 exist */
        if ((num > SMCCC_NUM(PARTITA_HC_LAST) &&
             (num < SMCCC_NUM(PARTITA_HC_CALL_COUNT) || num > SMCCC_NUM(PARTITA_HC_REVISION))) ||
            !psci_partita_call(&v->psci, v->regs.r))
            v->regs.r[0] = SMCCC_NOT_SUPPORTED;
    } else if ((fn & SMCCC_FAST) && (oen == SMCCC_OEN_ARCH || oen == SMCCC_OEN_STD)) {
        psci_handle(&v->psci, v->regs.r);
    } else {
        v->regs.r[0] = SMCCC_NOT_SUPPORTED;
    }
}

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
    if (run)
        smccc_call(v);
}
