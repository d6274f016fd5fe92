/*
 * CP15 and CP14 accesses that trap (HCR.TAC/TSW/TIDCP, HSTR, HDCR): the
 * few registers Partita emulates, the rest read as zero or are undefined
 * (ARM ARM B3.13.6 "ISS encoding for MCR or MRC", B1.14.3).
 */
#include <stdbool.h>
#include <arch/sysregs.h>
#include "handlers.h"
#include "mm/setway.h"
#include "hyp/arch/debug.h"
#include "hyp/arch/insn.h"
#include "hyp/arch/pmu.h"
#include "hyp/arch/vfp.h"

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
    if (setway_valid(val, sysreg_read_clidr(), ccsidr)) {
        sysreg_op_dccisw(val);
    }
}

/* A PMU register (c9, CRm 12-14, opc1 0): the guest's own PMU, or none */
static bool cp15_pmu(struct vcpu *v, uint32_t crm, uint32_t opc2, bool read, uint32_t *val)
{
    if (!v->pmu) {
        return false;           /* configuration pmu = "off": UNDEFINED */
    }
    if (!v->pmu_used) {
        pmu_quiet();            /* first use: what an earlier owner left goes */
        v->pmu_used = true;
    }
    return pmu_access(crm, opc2, read, val);
}

/*
 * ID group 3 (c0, CRm 1-7), trapped by HCR.TID3: the real registers, but
 * ID_DFR0 (B4.1.90) names only the debug and PMU a guest gets
 * (debug_dfr0_guest).  The unallocated encodings read as zero.
 */
static uint32_t cp15_id(struct vcpu *v, uint32_t crm, uint32_t opc2)
{
    if (crm == 1u) {
        switch (opc2) {
        case 0: return sysreg_read_id_pfr0();
        case 1: return sysreg_read_id_pfr1();
        case 2: return debug_dfr0_guest(sysreg_read_id_dfr0(), v->pmu);
        case 3: return sysreg_read_id_afr0();
        case 4: return sysreg_read_id_mmfr0();
        case 5: return sysreg_read_id_mmfr1();
        case 6: return sysreg_read_id_mmfr2();
        case 7: return sysreg_read_id_mmfr3();
        default:
            break;
        }
    } else if (crm == 2u) {
        switch (opc2) {
        case 0: return sysreg_read_id_isar0();
        case 1: return sysreg_read_id_isar1();
        case 2: return sysreg_read_id_isar2();
        case 3: return sysreg_read_id_isar3();
        case 4: return sysreg_read_id_isar4();
        case 5: return sysreg_read_id_isar5();
        default:
            break;
        }
    } else {
        /* otherwise nothing to do */
    }
    return 0;
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
    bool read = (hsr & HSR_CP_READ) != 0u;
    uint32_t val = 0u;

    if (crn == 14u) {
        /* the physical timer (CNTHCTL.PL1PCEN = 0) is the hypervisor's:
         * guests use the virtual timer; this one is undefined for them */
        vcpu_inject_undef(v);
        return;
    }
    if (crn == 1u && opc1 == 0u && crm == 0u && opc2 == 1u) {
        /* ACTLR: the guest sees itself in the coherency domain (SMP, bit 6,
         * as Linux checks) over the real value; writes are ignored */
        if (read) {
            val = sysreg_read_actlr() | ((unsigned int)1u << 6);
        }
    } else if (crn == 7u && opc1 == 0u && opc2 == 2u && (crm == 6u || crm == 10u || crm == 14u)) {
        if (!read) {
            cp15_setway(crm, vcpu_get_reg(v, rt));
        }
    } else if (crn == 9u && opc1 == 0u && crm >= 12u) {
        if (!read) {
            val = vcpu_get_reg(v, rt);
        }
        if (!cp15_pmu(v, crm, opc2, read, &val)) {
            vcpu_inject_undef(v);
            return;
        }
    } else if (crn == 0u && opc1 == 0u && crm >= 1u && read) {
        val = cp15_id(v, crm, opc2);
    } else {
        /* otherwise nothing to do */
    }
    /* everything else that traps (implementation-defined c9-c11 and c15)
     * reads as zero and ignores writes: the feature looks absent */
    if (read) {
        vcpu_set_reg(v, rt, val);
    }
    vcpu_skip_instr(v, hsr);
}

/* VMRS of MVFR0/MVFR1, trapped by HCR.TID3 (ISS as for MRC: CRn is the
 * VFP system register, 7 MVFR0, 6 MVFR1; B3.13.6) */
void trap_cp10_id(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP15]++;
    if (vcpu_condition_passed(v, hsr)) {
        uint32_t reg = HSR_CP_CRN(hsr);
        vcpu_set_reg(v, HSR_CP_RT(hsr), reg == 7u ? vfp_mvfr[0] : reg == 6u ? vfp_mvfr[1] : 0u);
    }
    vcpu_skip_instr(v, hsr);
}

void trap_raz_wi_64(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP14]++;
    if (HSR_EC(hsr) == HSR_EC_CP15_64 && HSR_CP_CRM(hsr) == 14u) {
        vcpu_inject_undef(v);   /* CNTP_CVAL: see trap_cp15_32 */
        return;
    }
    if (vcpu_condition_passed(v, hsr) && (hsr & HSR_CP_READ)) {
        vcpu_set_reg(v, HSR_CP_RT(hsr), 0);
        vcpu_set_reg(v, HSR_CP64_RT2(hsr), 0);
    }
    vcpu_skip_instr(v, hsr);
}

/* The debug registers (HDCR.TDA/TDOSA/TDRA): the guest's own view of its
 * breakpoints and watchpoints (hyp/arch/debug.c).  Other CP14 registers
 * that trap here (opc1 1 is trace, which HCPTR.TTA catches first) are
 * UNDEFINED. */
void trap_cp14_32(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP14]++;
    if (!vcpu_condition_passed(v, hsr)) {
        vcpu_skip_instr(v, hsr);
        return;
    }
    bool read = (hsr & HSR_CP_READ) != 0u;
    uint32_t rt = HSR_CP_RT(hsr), val = read ? 0u : vcpu_get_reg(v, rt);
    bool user = (v->regs.cpsr & PSR_MODE_MASK) == PSR_MODE_USR;
    if (!v->dbg_used) {
        debug_quiet();          /* first use: what an earlier owner left goes */
        if (v->dbg_trap) {
            debug_load(&v->dbg, true);      /* but gdb's comparators stay */
        }
        v->dbg_used = true;
    }
    if (HSR_CP_OPC1(hsr) != 0u ||
        !debug_access(&v->dbg, v->dbg_trap, HSR_CP_CRN(hsr), HSR_CP_CRM(hsr), HSR_CP_OPC2(hsr),
                      read, user, &val)) {
        vcpu_inject_undef(v);
        return;
    }
    if (read) {
        vcpu_set_reg(v, rt, val);
    }
    vcpu_skip_instr(v, hsr);
}

/*
 * LDC/STC of the debug communications channel, DBGDTRTXint and
 * DBGDTRRXint, which HDCR.TDA traps (C6.4).  The channel is not given:
 * an MRC of its registers reads zero and an MCR is ignored
 * (hyp/arch/debug.c).  So an LDC's word is dropped as an MCR's is, and an
 * STC of DBGDTRRXint stores nothing; but what an indexed form does to its
 * base register is done, or the guest's register would stay where the
 * instruction had not left it.  QEMU's CPUs make these instructions
 * UNDEFINED before the trap: only a board runs this (the unit tests run
 * insn_ls_writeback).
 */
void trap_cp14_ls(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP14]++;
    if (vcpu_condition_passed(v, hsr)) {
        unsigned int rn = HSR_LS_RN(hsr);
        uint32_t base;
        if (insn_ls_writeback(hsr, vcpu_get_reg(v, rn), &base)) {
            vcpu_set_reg(v, rn, base);
        }
    }
    vcpu_skip_instr(v, hsr);
}
