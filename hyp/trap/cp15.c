/*
 * CP15 and CP14 accesses that trap (HCR.TAC/TSW/TIDCP, HSTR, HDCR): the
 * few registers Partita emulates, the rest read as zero or are undefined
 * (ARM ARM B3.13.6 "ISS encoding for MCR or MRC", B1.14.3).
 */
#include <stdbool.h>
#include <arch/sysregs.h>
#include "handlers.h"
#include "mm/setway.h"

static void cp15_setway(uint32_t crm, uint32_t val)
{
    /* any set/way op by a guest cleans as well as invalidates: invalidate
     * alone could drop another partition's dirty lines in a shared level.
     * The operand is the guest's: an out-of-range one is UNPREDICTABLE on
     * the hardware (mm/setway.h), so it is checked first and else ignored.
     * CSSELR is the guest's own register: read CCSIDR through it, then put
     * it back. */
    (void)crm;
    uint32_t csselr = sysreg_read_csselr();
    sysreg_write_csselr(setway_level(val) << 1);
    isb();
    uint32_t ccsidr = sysreg_read_ccsidr();
    sysreg_write_csselr(csselr);
    isb();
    if (setway_valid(val, sysreg_read_clidr(), ccsidr))
        sysreg_op_dccisw(val);
}

void trap_cp15_32(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP15]++;
    if (!vcpu_condition_passed(v, hsr)) {
        vcpu_skip_instr(v, hsr);
        return;
    }
    uint32_t opc2 = HSR_CP_OPC2(hsr), opc1 = HSR_CP_OPC1(hsr), crn = HSR_CP_CRN(hsr);
    uint32_t rt = HSR_CP_RT(hsr), crm = HSR_CP_CRM(hsr);
    bool read = hsr & HSR_CP_READ;
    uint32_t val = 0;

    if (crn == 14) {
        /* the physical timer (CNTHCTL.PL1PCEN = 0) is the hypervisor's:
         * guests use the virtual timer; this one is undefined for them */
        vcpu_inject_undef(v);
        return;
    }
    if (crn == 1 && opc1 == 0 && crm == 0 && opc2 == 1) {
        /* ACTLR: the guest sees itself in the coherency domain (SMP, bit 6,
         * as Linux checks) over the real value; writes are ignored */
        if (read)
            val = sysreg_read_actlr() | (1u << 6);
    } else if (crn == 7 && opc1 == 0 && opc2 == 2 && (crm == 6 || crm == 10 || crm == 14)) {
        if (!read)
            cp15_setway(crm, vcpu_get_reg(v, rt));
    }
    /* everything else that traps (PMU, implementation-defined c9-c11 and
     * c15) reads as zero and ignores writes: the feature looks absent */
    if (read)
        vcpu_set_reg(v, rt, val);
    vcpu_skip_instr(v, hsr);
}

void trap_raz_wi_64(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP14]++;
    if (HSR_EC(hsr) == HSR_EC_CP15_64 && HSR_CP_CRM(hsr) == 14) {
        vcpu_inject_undef(v);   /* CNTP_CVAL: see trap_cp15_32 */
        return;
    }
    if (vcpu_condition_passed(v, hsr) && (hsr & HSR_CP_READ)) {
        vcpu_set_reg(v, HSR_CP_RT(hsr), 0);
        vcpu_set_reg(v, HSR_CP64_RT2(hsr), 0);
    }
    vcpu_skip_instr(v, hsr);
}

void trap_cp14_32(struct vcpu *v, uint32_t hsr)
{
    /* debug registers (HDCR.TDA/TDOSA/TDRA): no debug for guests, RAZ/WI */
    v->traps[TRAP_CP14]++;
    if (vcpu_condition_passed(v, hsr) && (hsr & HSR_CP_READ))
        vcpu_set_reg(v, HSR_CP_RT(hsr), 0);
    vcpu_skip_instr(v, hsr);
}

void trap_cp14_ls(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP14]++;
    vcpu_skip_instr(v, hsr);
}
