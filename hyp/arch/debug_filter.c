/*
 * What a guest's debug register values become in the hardware and what
 * the guest is told of the debug hardware: pure functions, so the host
 * unit tests (tests/unit/arch/test_debug_filter.c) check every case.
 */
#include <arch/sysregs.h>
#include "debug.h"

/*
 * Where a breakpoint or watchpoint matches is HMC:SSC:PxC (ARM ARM C3.8.1,
 * Table C3-9 for breakpoints; C3.9.3 uses the same for watchpoints).  The
 * guest keeps its PL0/PL1 choice; HMC (Hyp mode) goes, and SSC becomes
 * 0b01, Non-secure only: a guest runs nowhere else.  A value that asked
 * for Hyp mode or the Secure state alone (PxC 0b00) matches nothing the
 * guest may reach and is written disabled, never as a reserved
 * combination (UNPREDICTABLE).
 */
static uint32_t ctrl_hw(uint32_t ctrl)
{
    uint32_t hw = (ctrl & ~(DBGxCR_HMC | DBGxCR_SSC_MASK)) | DBGxCR_SSC_NS;
    if (((ctrl & DBGxCR_PL_MASK) == 0u) || ((ctrl & DBGxCR_SSC_MASK) == DBGxCR_SSC_S)) {
        hw &= ~DBGxCR_E;    /* PxC 0b00, or SSC 0b10 (Secure only) */
    }
    return hw;
}

uint32_t debug_bcr_hw(uint32_t bcr)
{
    uint32_t hw = ctrl_hw(bcr);
    /* BT 0b1xxx compares the VMID (DBGBXVR, C3.3.5): the hypervisor's
     * business, not given to guests */
    if ((bcr & DBGBCR_BT_VMID) != 0u) {
        hw &= ~DBGxCR_E;
    }
    return hw;
}

uint32_t debug_wcr_hw(uint32_t wcr)
{
    return ctrl_hw(wcr);
}

/* DBGPCSR is reached through the memory-mapped interface only (C11.11.31),
 * which guests do not get */
uint32_t debug_didr_guest(uint32_t didr)
{
    return didr & ~DBGDIDR_PCSR_IMP;
}

uint32_t debug_devid_guest(uint32_t devid)
{
    return devid & ~DBGDEVID_PCSAMPLE;
}

/* ID_DFR0 (B4.1.90): the CP14 debug model as the CPU's; no memory-mapped
 * debug, no trace (HCPTR.TTA makes the trace registers UNDEFINED), and the
 * PMU only where the guest has it */
uint32_t debug_dfr0_guest(uint32_t dfr0, bool pmu)
{
    uint32_t guest = dfr0 & ~(ID_DFR0_MMAPDBG_MASK | ID_DFR0_COPTRC_MASK | ID_DFR0_MMAPTRC_MASK);
    if (!pmu) {
        guest &= ~SR_FIELD(0xfu, ID_DFR0_PERFMON_SHIFT);
    }
    return guest;
}

uint32_t debug_dscr_merge(uint32_t hw, uint32_t bits, uint32_t mask)
{
    return (hw & ~mask) | (bits & mask);
}
