/*
 * vCPU state handling: reset, load/put (the world switch recipe, one state
 * kind per file), register access by number in the guest's current mode,
 * stepping the PC past a trapped instruction, and exception injection.
 */
#include <string.h>
#include <arch/sysregs.h>
#include "vcpu.h"
#include "vm.h"
#include "hyp/vdev/mmio.h"
#include "insn.h"
#include "pmu.h"
#include "hyp/platform/percpu.h"
#include "vcpu_share.h"
#include "vgic/vgic_hw.h"

/*
 * HCR for every guest (ARM ARM B4.1.65):
 *  VM     Stage-2 translation on: the guest sees only what Partita maps.
 *  SWIO   a guest's set/way invalidate acts as clean+invalidate, so it can
 *         never throw away another guest's dirty lines in a shared cache.
 *  IMO/FMO/AMO  physical IRQ/FIQ/aborts go to HYP; the guest gets virtual ones.
 *  FB     the guest's TLB and cache maintenance is broadcast inner shareable:
 *         its vCPUs run on other physical CPUs.
 *  BSU_IS barriers upgraded to inner shareable, for the same reason.
 *  TWI    WFI traps, so a waiting vCPU sleeps in HYP until it has work.
 *         WFE is not trapped: on an exclusive CPU it costs nothing to let
 *         the guest's spinlocks wait in hardware.
 *  TSC    SMC traps: PSCI and SMCCC are answered by Partita, never by firmware.
 *  TIDCP  implementation-defined CP15 registers (lockdown, TCM) trap.
 *  TAC    ACTLR traps: the guest may not change coherency or errata bits.
 *  TSW    set/way cache maintenance traps and is done on the guest's behalf.
 */
#define GUEST_HCR (HCR_VM | HCR_SWIO | HCR_IMO | HCR_FMO | HCR_AMO | HCR_FB | HCR_BSU_IS | \
                   HCR_TWI | HCR_TSC | HCR_TIDCP | HCR_TAC | HCR_TSW)
/* HSTR.T15: CP15 c15 (implementation defined, e.g. CBAR, which would leak
 * the host's physical GIC address) traps (B4.1.74) */
#define GUEST_HSTR HSTR_T(15)
/* HDCR (B4.1.64): debug register accesses (TDRA, TDOSA, TDA) trap and
 * reach the guest's own view of its breakpoints and watchpoints, which the
 * hardware gets filtered (hyp/arch/debug.c); TDE is 0, so its debug
 * exceptions are its own aborts, unless gdb is attached to it
 * (hyp/gdb): then its BKPTs and debug events come to Hyp mode.
 * Performance monitor accesses (TPM, TPMCR) trap and are carried out on the
 * real PMU for the guest (hyp/arch/pmu.c), HPMN giving it every counter
 * pmu_init() allows. */
#define GUEST_HDCR_TRAPS (HDCR_TDRA | HDCR_TDOSA | HDCR_TDA | HDCR_TPM | HDCR_TPMCR)

void vcpu_set_pmu(struct vcpu *v, bool pmu)
{
    v->pmu = pmu;
    /* the ID registers trap (TID3), so that ID_DFR0 names only the debug
     * and PMU the guest gets (hyp/trap/cp15.c); a guest reads them a few
     * times at boot, so this costs nothing afterwards */
    v->hcr = GUEST_HCR | HCR_TID3;
}

/*
 * A direct guest's vCPU (docs/direct-interrupts.md): HCR.IMO clear, so
 * physical IRQs go to its own IRQ vector through the physical CPU interface
 * mapped at its GICC address, with no exit (ARM ARM B1.8, routing);
 * HCR.FMO stays set, so the hypervisor's Group 0 interrupts (signalled as
 * FIQ) come to Hyp mode whatever the guest's CPSR.F says (with FMO set,
 * CPSR.F masks only virtual FIQs in Non-secure PL1/PL0, B1.8 masking).
 * WFI does not trap (TWI clear): it waits in hardware for the guest's own
 * interrupts, and a Group 0 FIQ wakes it and comes to Hyp as well.
 */
void vcpu_set_direct(struct vcpu *v)
{
    v->direct = true;
    v->hcr &= ~(uint32_t)(HCR_IMO | HCR_TWI);
}

void vcpu_reset(struct vcpu *v, uint32_t entry, uint32_t r0, uint32_t r1, uint32_t r2)
{
    (void)memset(&v->regs, 0, sizeof(v->regs));
    (void)memset(&v->banked, 0, sizeof(v->banked));
    (void)memset(&v->cp15, 0, sizeof(v->cp15));
    (void)memset(&v->timer, 0, sizeof(v->timer));
    v->regs.r[0] = r0;
    v->regs.r[1] = r1;
    v->regs.r[2] = r2;
    /* SVC mode, A/I/F masked; bit 0 of the entry selects Thumb (PSCI 5.1.4) */
    v->regs.cpsr = PSR_MODE_SVC | PSR_A | PSR_I | PSR_F | (((entry & 1u) != 0u) ? PSR_T : 0u);
    v->regs.pc = entry & ~1u;
    /* SCTLR as on reset of a Cortex-A15: MMU and caches off */
    v->cp15.sctlr = SCTLR_A15_RESET;
    v->last_fault_pc = 0xffffffffu;
    v->last_fault_far = 0u;
    v->fault_repeats = 0u;
    /* its own CPU resets it, where nobody's PMU state is live: a new life
     * finds no counts or interrupts of the last one */
    if (v->pmu_used) {
        pmu_quiet();
        this_cpu()->pmu_inten_parked = 0u;
    }
    v->pmu_used = false;
    /* and no breakpoint of the last one fires in it */
    if (v->dbg_used) {
        debug_quiet();
    }
    (void)memset(&v->dbg, 0, sizeof(v->dbg));
    v->dbg_used = false;
}

static void __attribute__((noinline)) vcpu_debug_reload(struct vcpu *v)
{
    debug_load(&v->dbg, v->dbg_trap);
    if (v->dbg_vfp != NULL) {
        vfp_restore(v->dbg_vfp);
    }
    if (!v->dbg_trap) {
        v->dbg_reload = false;
        v->dbg_vfp = NULL;
    }
}

/*
 * What every vCPU of this CPU has alike, written once: the CP15 c15 trap
 * and the MIDR guests read (VPIDR, B4.1.158).  Only Non-secure PL1 and
 * PL0 see them and nothing else writes them, so a vCPU load need not.
 */
void vcpu_cpu_init(void)
{
    sysreg_write_hstr(GUEST_HSTR);
    sysreg_write_vpidr(sysreg_read_midr());
}

void vcpu_load(struct vcpu *v)
{
    struct vm *g = v->vm;
    sysreg_write_vttbr(s2_vttbr(&g->s2, g->vmid));
    sysreg_write_hcr(v->hcr);
    sysreg_write_hcptr(VCPU_HCPTR);
    sysreg_write_hdcr(GUEST_HDCR_TRAPS | pmu_hdcr | (v->dbg_trap ? HDCR_TDE : 0u));
    sysreg_write_vmpidr(v->vmpidr);
    sysreg_write_cntvoff(g->cntvoff);
    banked_restore(&v->banked);
    cp15_restore(&v->cp15);
    vtimer_restore(&v->timer);
    vgic_restore(&v->vgic);
    /* on a CPU of its own under gdb: gdb's comparators in (out again once
     * it let go) and the VFP registers as gdb left them; on a shared CPU
     * share_load and the lazy VFP switch do it */
    if (v->dbg_reload) {
        vcpu_debug_reload(v);
    }
    isb();
}

void vcpu_put(struct vcpu *v)
{
    /* under gdb, its VFP registers where gdb reads them (HCPTR lets HYP
     * at them on a CPU of its own); a shared CPU's switch saves them */
    if (v->dbg_vfp != NULL) {
        vfp_save(v->dbg_vfp);
    }
    vgic_save(&v->vgic);
    vtimer_save(&v->timer);
    cp15_save(&v->cp15);
    banked_save(&v->banked);
    sysreg_write_hcr(0);    /* no guest traps while the CPU idles in HYP */
    isb();
}

/* ---- registers by number in the guest's current mode (B9.2.1) ---- */

#define MRS_B(reg) ({ uint32_t _v; __asm__ volatile("mrs %0, " #reg : "=r"(_v)); _v; })
#define MSR_B(reg, val) __asm__ volatile("msr " #reg ", %0" : : "r"(val))

static uint32_t get_sp(uint32_t mode)
{
    switch (mode) {
    case PSR_MODE_SVC: return MRS_B(SP_svc);
    case PSR_MODE_ABT: return MRS_B(SP_abt);
    case PSR_MODE_UND: return MRS_B(SP_und);
    case PSR_MODE_IRQ: return MRS_B(SP_irq);
    case PSR_MODE_FIQ: return MRS_B(SP_fiq);
    default: return MRS_B(SP_usr);
    }
}

static void set_sp(uint32_t mode, uint32_t val)
{
    switch (mode) {
    case PSR_MODE_SVC: MSR_B(SP_svc, val); break;
    case PSR_MODE_ABT: MSR_B(SP_abt, val); break;
    case PSR_MODE_UND: MSR_B(SP_und, val); break;
    case PSR_MODE_IRQ: MSR_B(SP_irq, val); break;
    case PSR_MODE_FIQ: MSR_B(SP_fiq, val); break;
    default: MSR_B(SP_usr, val); break;
    }
}

static uint32_t get_lr(struct vcpu *v, uint32_t mode)
{
    switch (mode) {
    case PSR_MODE_SVC: return MRS_B(LR_svc);
    case PSR_MODE_ABT: return MRS_B(LR_abt);
    case PSR_MODE_UND: return MRS_B(LR_und);
    case PSR_MODE_IRQ: return MRS_B(LR_irq);
    case PSR_MODE_FIQ: return MRS_B(LR_fiq);
    default: return v->regs.lr_usr;
    }
}

static void set_lr(struct vcpu *v, uint32_t mode, uint32_t val)
{
    switch (mode) {
    case PSR_MODE_SVC: MSR_B(LR_svc, val); break;
    case PSR_MODE_ABT: MSR_B(LR_abt, val); break;
    case PSR_MODE_UND: MSR_B(LR_und, val); break;
    case PSR_MODE_IRQ: MSR_B(LR_irq, val); break;
    case PSR_MODE_FIQ: MSR_B(LR_fiq, val); break;
    default: v->regs.lr_usr = val; break;
    }
}

static uint32_t get_fiq_reg(unsigned int n)
{
    switch (n) {
    case 8: return MRS_B(r8_fiq);
    case 9: return MRS_B(r9_fiq);
    case 10: return MRS_B(r10_fiq);
    case 11: return MRS_B(r11_fiq);
    default: return MRS_B(r12_fiq);
    }
}

static void set_fiq_reg(unsigned int n, uint32_t val)
{
    switch (n) {
    case 8: MSR_B(r8_fiq, val); break;
    case 9: MSR_B(r9_fiq, val); break;
    case 10: MSR_B(r10_fiq, val); break;
    case 11: MSR_B(r11_fiq, val); break;
    default: MSR_B(r12_fiq, val); break;
    }
}

uint32_t vcpu_get_reg_slow(struct vcpu *v, unsigned int n)
{
    uint32_t mode = v->regs.cpsr & PSR_MODE_MASK;
    if ((n >= 8u) && (n <= 12u) && (mode == PSR_MODE_FIQ)) {
        return get_fiq_reg(n);
    }
    if (n < 13u) {
        return v->regs.r[n];
    }
    if (n == 13u) {
        return get_sp(mode);
    }
    if (n == 14u) {
        return get_lr(v, mode);
    }
    return v->regs.pc + (((v->regs.cpsr & PSR_T) != 0u) ? 4u : 8u);   /* reads of PC */
}

void vcpu_set_reg_slow(struct vcpu *v, unsigned int n, uint32_t val)
{
    uint32_t mode = v->regs.cpsr & PSR_MODE_MASK;
    if ((n >= 8u) && (n <= 12u) && (mode == PSR_MODE_FIQ)) {
        set_fiq_reg(n, val);
    } else if (n < 13u) {
        v->regs.r[n] = val;
    } else if (n == 13u) {
        set_sp(mode, val);
    } else if (n == 14u) {
        set_lr(v, mode, val);
    } else {
        /* otherwise nothing to do */
    }
    /* PC as a transfer register is UNPREDICTABLE for these traps: ignored */
}

/* ---- conditions and stepping: the pure logic lives in insn.c ---- */

bool vcpu_condition_passed(struct vcpu *v, uint32_t hsr)
{
    return insn_condition_passed(v->regs.cpsr, hsr);
}

void vcpu_skip_instr_thumb(struct vcpu *v, uint32_t hsr)
{
    insn_skip(&v->regs.pc, &v->regs.cpsr, (hsr & HSR_IL) != 0u);
}

/* ---- exception injection (B1.8, B1.9) ---- */

static void inject(struct vcpu *v, uint32_t mode, uint32_t vector_off, uint32_t lr)
{
    uint32_t sctlr = v->on_cpu ? sysreg_read_sctlr() : v->cp15.sctlr;
    uint32_t vbar = v->on_cpu ? sysreg_read_vbar() : v->cp15.vbar;
    uint32_t spsr = v->regs.cpsr;
    if (v->on_cpu) {
        if (mode == PSR_MODE_ABT) {
            MSR_B(SPSR_abt, spsr);
            MSR_B(LR_abt, lr);
        } else {
            MSR_B(SPSR_und, spsr);
            MSR_B(LR_und, lr);
        }
    } else if (mode == PSR_MODE_ABT) {
        v->banked.spsr_abt = spsr;
        v->banked.lr_abt = lr;
    } else {
        v->banked.spsr_und = spsr;
        v->banked.lr_und = lr;
    }
    /* new CPSR: mode, I set (and A for aborts: B1.8.3, Table B1-6), IT/J
     * cleared, T from SCTLR.TE, E from SCTLR.EE */
    uint32_t cpsr = (spsr & (PSR_F | PSR_A | PSR_NZCVQ)) | mode | PSR_I;
    if (mode == PSR_MODE_ABT) {
        cpsr |= PSR_A;
    }
    if ((sctlr & SCTLR_TE) != 0u) {
        cpsr |= PSR_T;
    }
    if ((sctlr & SCTLR_EE) != 0u) {
        cpsr |= PSR_E;
    }
    v->regs.cpsr = cpsr;
    v->regs.pc = (((sctlr & SCTLR_V) != 0u) ? 0xffff0000u : vbar) + vector_off;
}

void vcpu_inject_undef(struct vcpu *v)
{
    /* preferred return: the instruction itself; LR = +4 (ARM) / +2 (Thumb) */
    uint32_t lr = v->regs.pc + (((v->regs.cpsr & PSR_T) != 0u) ? 2u : 4u);
    inject(v, PSR_MODE_UND, VECTOR_UNDEF, lr);
}

/* Fault status for a synchronous external abort in the guest's format */
static uint32_t ext_abort_fsr(bool lpae, bool write)
{
    uint32_t fsr = lpae ? (FSR_LPAE | FSR_LD_SYNC_EXT) : FSR_SD_SYNC_EXT;
    return fsr | (write ? FSR_WNR : 0u);
}

static bool guest_lpae(struct vcpu *v)
{
    uint32_t ttbcr = v->on_cpu ? sysreg_read_ttbcr() : v->cp15.ttbcr;
    return (ttbcr & TTBCR_EAE) != 0u;
}

void vcpu_inject_dabt(struct vcpu *v, uint32_t va, bool write)
{
    uint32_t fsr = ext_abort_fsr(guest_lpae(v), write);
    if (v->on_cpu) {
        sysreg_write_dfsr(fsr);
        sysreg_write_dfar(va);
    } else {
        v->cp15.dfsr = fsr;
        v->cp15.dfar = va;
    }
    inject(v, PSR_MODE_ABT, VECTOR_DABT, v->regs.pc + 8u);
}

void vcpu_inject_pabt(struct vcpu *v, uint32_t va)
{
    uint32_t fsr = ext_abort_fsr(guest_lpae(v), false);
    if (v->on_cpu) {
        sysreg_write_ifsr(fsr);
        sysreg_write_ifar(va);
    } else {
        v->cp15.ifsr = fsr;
        v->cp15.ifar = va;
    }
    inject(v, PSR_MODE_ABT, VECTOR_PABT, v->regs.pc + 4u);
}

void vcpu_inject_debug(struct vcpu *v, bool data, uint32_t va)
{
    uint32_t fsr = guest_lpae(v) ? (FSR_LPAE | FSC_DEBUG) : FSR_SD_DEBUG;
    if (data) {
        v->cp15.dfsr = fsr;
        v->cp15.dfar = va;
    } else {
        v->cp15.ifsr = fsr;
        v->cp15.ifar = va;
    }
    if (v->on_cpu) {
        if (data) {
            sysreg_write_dfsr(fsr);
            sysreg_write_dfar(va);
        } else {
            sysreg_write_ifsr(fsr);
            sysreg_write_ifar(va);
        }
    }
    inject(v, PSR_MODE_ABT, data ? VECTOR_DABT : VECTOR_PABT, v->regs.pc + (data ? 8u : 4u));
}
