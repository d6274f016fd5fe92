/*
 * Trap dispatch: a table indexed by the HSR exception class (ARM ARM
 * B3.13.6, Table B3-22), as Jailhouse's traps.c does.  Each handler steps
 * the guest's PC itself when the instruction completes.
 */
#include <stdio.h>
#include <arch/sysregs.h>
#include "traps.h"
#include "console.h"
#include "channel.h"
#include "guest.h"
#include "mmio.h"
#include "percpu.h"
#include "psci.h"
#include "sched_share.h"
#include "vgic/gic.h"
#include "vgic/vgic_hw.h"
#include "hyp.h"
#include "mm/setway.h"
#include "timer/timer.h"

/* vcpu_get_reg/set_reg/skip_instr inline for the MMIO fast path */
/* r0-r7, which no mode banks */
static inline uint32_t vcpu_reg(struct vcpu *v, unsigned int n)
{
    return n < 8 ? v->regs.r[n] : vcpu_get_reg(v, n);
}
static inline void vcpu_set_reg_fast(struct vcpu *v, unsigned int n, uint32_t val)
{
    if (n < 8)
        v->regs.r[n] = val;
    else
        vcpu_set_reg(v, n, val);
}
/* ARM state: no IT block to advance */
static inline void vcpu_skip_instr_fast(struct vcpu *v, uint32_t hsr)
{
    if (!(v->regs.cpsr & PSR_T))
        v->regs.pc += 4;
    else
        vcpu_skip_instr(v, hsr);
}

#define EC_UNKNOWN   0x00
#define EC_WFX       0x01
#define EC_CP15_32   0x03
#define EC_CP15_64   0x04
#define EC_CP14_32   0x05
#define EC_CP14_LS   0x06
#define EC_HCPTR     0x07
#define EC_CP10_ID   0x08
#define EC_CP14_64   0x0c
#define EC_HVC       0x12
#define EC_SMC       0x13
#define EC_PABT      0x20
#define EC_DABT      0x24

/* ---- WFI: the vCPU sleeps in HYP, the physical CPU in WFI ---- */

void vcpu_wait(struct vcpu *v)
{
    /* IRQs stay masked: WFI still wakes on a pending one, which we then
     * take in HYP before looking again (no lost wake-up) */
    if (v->requests || vgic_vcpu_wants_wake(v))
        return;
    if (v->share) {
        sched_share_block(v);   /* a shared CPU: another vCPU may run */
        return;
    }
    /*
     * QEMU 7.2's GIC does not re-signal a level interrupt whose line is
     * still high when a guest's EOI deactivates it through a hardware-linked
     * list register (it re-evaluates only the virtual interface): a virtual
     * timer whose deadline already passed would never fire again.  Any
     * distributor write makes it look; re-enabling the timer PPI is one that
     * changes nothing.  Real GICs need none of this; it costs one write.
     */
    gic_irq_enable(host.timer.irq_virt, 0);
    uint64_t t0 = sysreg_read_cntpct();
    wfi();
    this_cpu()->idle_ticks += sysreg_read_cntpct() - t0;
    gic_handle_irq();
}

static void trap_wfx(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_WFI]++;
    if (vcpu_condition_passed(v, hsr) && !(hsr & 1))
        vcpu_wait(v);
    vcpu_skip_instr(v, hsr);
}

/* ---- CP15/CP14 accesses that trap (HCR.TAC/TSW/TIDCP, HSTR, HDCR) ---- */

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

static void trap_cp15_32(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP15]++;
    if (!vcpu_condition_passed(v, hsr)) {
        vcpu_skip_instr(v, hsr);
        return;
    }
    uint32_t opc2 = (hsr >> 17) & 7, opc1 = (hsr >> 14) & 7, crn = (hsr >> 10) & 0xf;
    uint32_t rt = (hsr >> 5) & 0xf, crm = (hsr >> 1) & 0xf;
    bool read = hsr & 1;
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

static void trap_raz_wi_64(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP14]++;
    if (HSR_EC(hsr) == EC_CP15_64 && ((hsr >> 1) & 0xf) == 14) {
        vcpu_inject_undef(v);   /* CNTP_CVAL: see trap_cp15_32 */
        return;
    }
    if (vcpu_condition_passed(v, hsr) && (hsr & 1)) {
        vcpu_set_reg(v, (hsr >> 5) & 0xf, 0);
        vcpu_set_reg(v, (hsr >> 10) & 0xf, 0);
    }
    vcpu_skip_instr(v, hsr);
}

static void trap_cp14_32(struct vcpu *v, uint32_t hsr)
{
    /* debug registers (HDCR.TDA/TDOSA/TDRA): no debug for guests, RAZ/WI */
    v->traps[TRAP_CP14]++;
    if (vcpu_condition_passed(v, hsr) && (hsr & 1))
        vcpu_set_reg(v, (hsr >> 5) & 0xf, 0);
    vcpu_skip_instr(v, hsr);
}

static void trap_cp14_ls(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_CP14]++;
    vcpu_skip_instr(v, hsr);
}

/* ---- HVC and SMC: SMCCC, PSCI and Partita's calls ---- */

static int env_vcpu_of_mpidr(void *ctx, uint32_t mpidr)
{
    struct vcpu *t = guest_vcpu_by_mpidr(((struct vcpu *)ctx)->guest, mpidr);
    return t ? (int)t->id : -1;
}

static enum vcpu_power_state env_state(void *ctx, unsigned int i)
{
    switch (((struct vcpu *)ctx)->guest->vcpu[i].power) {
    case VCPU_ON: return PSCI_STATE_ON;
    case VCPU_ON_PENDING: return PSCI_STATE_ON_PENDING;
    default: return PSCI_STATE_OFF;
    }
}

static bool env_entry_valid(void *ctx, uint32_t entry)
{
    return guest_ipa_is_ram(((struct vcpu *)ctx)->guest, entry & ~1u);
}

static void env_power_on(void *ctx, unsigned int i, uint32_t entry, uint32_t context)
{
    struct vcpu *t = &((struct vcpu *)ctx)->guest->vcpu[i];
    t->on_entry = entry;
    t->on_r[0] = context;
    t->on_r[1] = t->on_r[2] = 0;
    t->power = VCPU_ON_PENDING;
    __atomic_or_fetch(&t->requests, VCPU_REQ_POWER_ON, __ATOMIC_SEQ_CST);
    if (t->share)
        sched_kick(t);      /* it may share this very CPU */
    else
        gic_kick_cpu(t->pcpu);
}

static void env_power_off_self(void *ctx)
{
    struct vcpu *v = ctx;
    v->power = VCPU_OFF;
    __atomic_or_fetch(&v->requests, VCPU_REQ_STOP, __ATOMIC_SEQ_CST);  /* leave now */
}
static void env_suspend_self(void *ctx) { vcpu_wait(ctx); }
static void env_system_off(void *ctx) { guest_halt(((struct vcpu *)ctx)->guest); }
static void env_system_reset(void *ctx)
{
    struct guest *g = ((struct vcpu *)ctx)->guest;
    guest_log(g, "guest '%s' asked for a reset (PSCI SYSTEM_RESET)\n", g->cfg->name);
    guest_request_restart(g);
}

static bool env_stat(void *ctx, uint32_t n, uint64_t *value)
{
    struct vcpu *v = ctx;
    if (n == PARTITA_STAT_EXITS)
        *value = vcpu_exits(v);
    else if (n == PARTITA_STAT_IDLE)
        *value = this_cpu()->idle_ticks;
    else if (n >= PARTITA_STAT_TRAP(0) && n < PARTITA_STAT_TRAP(TRAP_NR))
        *value = v->traps[n - PARTITA_STAT_TRAP(0)];
    else if (n == PARTITA_STAT_INJECTED)
        *value = v->vgic.stats.injected;
    else if (n == PARTITA_STAT_MAINT)
        *value = v->vgic.stats.maintenance;
    else
        return false;
    return true;
}

static int env_watchdog_feed(void *ctx)
{
    return guest_watchdog_feed(((struct vcpu *)ctx)->guest);
}

static int env_doorbell(void *ctx, uint32_t channel)
{
    return channel_ring(((struct vcpu *)ctx)->guest, channel);
}

void vcpu_psci_init(struct vcpu *v)
{
    v->psci = (struct psci_env){
        .ncpus = v->guest->cfg->ncpus, .self = v->id,
        .vcpu_of_mpidr = env_vcpu_of_mpidr, .state = env_state,
        .entry_valid = env_entry_valid, .power_on = env_power_on,
        .power_off_self = env_power_off_self, .suspend_self = env_suspend_self,
        .system_off = env_system_off, .system_reset = env_system_reset,
        .stat = env_stat, .watchdog_feed = env_watchdog_feed, .doorbell = env_doorbell,
        .guest_id = v->guest->id, .ctx = v,
    };
}

static void smccc_call(struct vcpu *v)
{
    /*
     * SMCCC (DEN 0028, 2.5): only SMC32 fast calls of the Arm architecture
     * (OEN 0), standard secure (4: PSCI) and hypervisor (6: Partita's own)
     * services exist here; anything else is NOT_SUPPORTED at once.
     */
    uint32_t fn = v->regs.r[0];
    uint32_t oen = (fn >> 24) & 0x7f;   /* with the SMC64 bit 30 */
    if (oen == 6 && (fn & 0x80000000u)) {
        uint32_t num = fn & 0xffff;     /* 0..LAST and 0xff00..0xff03 exist */
        if ((num > (PARTITA_HC_LAST & 0xffff) && (num < 0xff00 || num > 0xff03)) ||
            !psci_partita_call(&v->psci, v->regs.r))
            v->regs.r[0] = 0xffffffffu;
    } else if ((fn & 0x80000000u) && (oen == 0 || oen == 4)) {
        psci_handle(&v->psci, v->regs.r);
    } else {
        v->regs.r[0] = 0xffffffffu;
    }
}

static void trap_hvc(struct vcpu *v, uint32_t hsr)
{
    /* ELR_hyp already points past the HVC (B1.8.3) */
    v->traps[TRAP_HVC]++;
    smccc_call(v);
}

static void trap_smc(struct vcpu *v, uint32_t hsr)
{
    /* a trapped SMC returns to itself: step past it first (B1.14.4) */
    v->traps[TRAP_SMC]++;
    bool run = vcpu_condition_passed(v, hsr);
    vcpu_skip_instr(v, hsr);
    if (run)
        smccc_call(v);
}

/* ---- aborts: emulated devices, or an abort back into the guest ---- */

/* A guest can fault as often as it likes: its reports pass in a burst of
 * ABORT_LOG_BURST, then ABORT_LOG_RATE a second per vCPU (hyp/ratelimit.h) */
#define ABORT_LOG_BURST 256
#define ABORT_LOG_RATE  10

static uint32_t abort_log_period;     /* counter ticks per report */

/* What a data abort was, for its report (HSR ISS, B3.13.6) */
static const char *dabt_what(struct vcpu *v, uint32_t hsr, uint64_t ipa, char *buf, size_t n)
{
    if (hsr & HSR_DABT_S1PTW)
        return "page-table walk outside its memory";
    /* a permission fault (LPAE FSC 0b0011LL, B3.13.6) is a write to memory
     * the guest may only read: a read-only channel */
    if ((HSR_DABT_FSC(hsr) & 0x3c) == 0x0c) {
        const char *chan = channel_at(v->guest->cfg, ipa);
        if (!chan)
            return "write to read-only memory";
        snprintf(buf, n, "write to read-only channel '%s'", chan);
        return buf;
    }
    if (mmio_owned(&v->guest->mmio, ipa))
        return (hsr & HSR_DABT_ISV)
                   ? "device access the emulation refuses (unaligned or too wide)"
                   : "device access without a syndrome (LDM/STM/LDRD/exclusive)";
    return (hsr & HSR_DABT_WNR) ? "write to unmapped memory" : "read of unmapped memory";
}

/* hsr: a data abort's, or 0 for an instruction fetch */
static void report_abort(struct vcpu *v, uint32_t hsr, uint32_t va, uint64_t ipa)
{
    uint32_t dropped;
    if (!abort_log_period)
        abort_log_period = timer_freq() / ABORT_LOG_RATE;
    if (!ratelimit_pass(&v->abort_log, timer_now(), abort_log_period, ABORT_LOG_BURST,
                        &dropped))
        return;
    if (dropped)
        pr_info("guest '%s' vCPU %u: %lu abort reports suppressed\n", v->guest->cfg->name,
                v->id, (unsigned long)dropped);
    char buf[64];
    pr_info("guest '%s' vCPU %u: %s at PC 0x%08lx, address 0x%08lx (IPA 0x%08llx): "
            "abort injected\n", v->guest->cfg->name, v->id,
            hsr ? dabt_what(v, hsr, ipa, buf, sizeof(buf))
                : "instruction fetch from unmapped memory",
            (unsigned long)v->regs.pc, (unsigned long)va, (unsigned long long)ipa);
}

/*
 * Can the guest take this exception itself?  Not if its vector would be
 * fetched from outside its RAM (another abort, forever), nor if the same
 * instruction keeps faulting: then it is crashed, per its on-crash policy.
 */
#define ABORT_REPEAT_LIMIT 64

static bool guest_can_take(struct vcpu *v, uint32_t vector_off, uint32_t hsr, uint32_t far)
{
    uint32_t sctlr = sysreg_read_sctlr();
    uint32_t vbar = (sctlr & (1u << 13)) ? 0xffff0000u : sysreg_read_vbar();
    /* the same instruction at the same address: an instruction that walks
     * addresses (a probe loop taking its aborts) makes progress */
    if (v->regs.pc == v->last_fault_pc && far == v->last_fault_far)
        v->fault_repeats++;
    else
        v->fault_repeats = 0;
    v->last_fault_pc = v->regs.pc;
    v->last_fault_far = far;
    /* with its MMU off the vector address is an IPA we can check; with it
     * on, a vector outside RAM shows up as a fault at the vector itself */
    bool vector_ok = (sctlr & 1) ? v->regs.pc != vbar + vector_off
                                 : guest_ipa_is_ram(v->guest, vbar + vector_off);
    if (!vector_ok) {
        guest_crash(v, "exception vector not in guest memory", hsr, far);
        return false;
    }
    if (v->fault_repeats >= ABORT_REPEAT_LIMIT) {
        guest_crash(v, "the same instruction keeps faulting", hsr, far);
        return false;
    }
    return true;
}

/* A data abort no device answered: an abort for the guest, or a crash */
static void __attribute__((noinline)) dabt_fault(struct vcpu *v, uint32_t hsr, uint32_t hdfar,
                                                 uint32_t hpfar)
{
    v->traps[TRAP_DABT_FAULT]++;
    v->guest->aborts++;
    /* HPFAR is the faulting IPA's page; the offset is HDFAR's, except for a
     * stage-1 walk, whose descriptor address HDFAR does not give */
    uint64_t ipa = (uint64_t)(hpfar & 0xfffffff0u) << 8;
    if (!(hsr & HSR_DABT_S1PTW))
        ipa |= hdfar & 0xfff;
    if (!guest_can_take(v, 0x10, hsr, hdfar))
        return;
    report_abort(v, hsr, hdfar, ipa);
    vcpu_inject_dabt(v, hdfar, (hsr & HSR_DABT_WNR) != 0);
}

/* The MMIO fast path: decode, route, complete the load or store, step */
static void trap_dabt(struct vcpu *v, uint32_t hsr)
{
    uint32_t hdfar = sysreg_read_hdfar(), hpfar = sysreg_read_hpfar();
    struct mmio_access a;
    if (!mmio_decode(hsr, hdfar, hpfar, &a)) {
        dabt_fault(v, hsr, hdfar, hpfar);
        return;
    }
    if (a.write)
        a.value = vcpu_reg(v, a.reg);
    if (!mmio_dispatch(&v->guest->mmio, &a)) {
        dabt_fault(v, hsr, hdfar, hpfar);
        return;
    }
    v->traps[TRAP_DABT_MMIO]++;
    if (!a.write)
        vcpu_set_reg_fast(v, a.reg, a.size == 4 ? a.value : mmio_load_value(&a, a.value));
    vcpu_skip_instr_fast(v, hsr);
}

static void trap_pabt(struct vcpu *v, uint32_t hsr)
{
    uint32_t hifar = sysreg_read_hifar(), hpfar = sysreg_read_hpfar();
    v->traps[TRAP_PABT]++;
    v->guest->aborts++;
    if (!guest_can_take(v, 0x0c, hsr, hifar))
        return;
    report_abort(v, 0, hifar, ((uint64_t)(hpfar & 0xfffffff0u) << 8) | (hifar & 0xfff));
    vcpu_inject_pabt(v, hifar);
}

void trap_undef(struct vcpu *v, uint32_t hsr)
{
    /* anything Partita does not emulate is undefined for the guest */
    v->traps[TRAP_UNKNOWN]++;
    if (guest_can_take(v, 0x04, hsr, 0))
        vcpu_inject_undef(v);
}

static void trap_hcptr(struct vcpu *v, uint32_t hsr)
{
    /* on a shared CPU: the vCPU's first VFP/NEON use in its turn */
    if (v->share && vfp_trap(v)) {
        v->traps[TRAP_VFP]++;
        return;
    }
    /* trace registers (HCPTR.TTA): not implemented for guests */
    v->traps[TRAP_CP14]++;
    vcpu_inject_undef(v);
}

const trap_fn trap_table[TRAP_EC_MAX] = {
    [EC_WFX] = trap_wfx,
    [EC_CP15_32] = trap_cp15_32,
    [EC_CP15_64] = trap_raz_wi_64,
    [EC_CP14_32] = trap_cp14_32,
    [EC_CP14_LS] = trap_cp14_ls,
    [EC_HCPTR] = trap_hcptr,
    [EC_CP14_64] = trap_raz_wi_64,
    [EC_HVC] = trap_hvc,
    [EC_SMC] = trap_smc,
    [EC_PABT] = trap_pabt,
    [EC_DABT] = trap_dabt,
};

void trap_irq(struct vcpu *v)
{
    v->traps[TRAP_IRQ]++;
    gic_handle_irq();
}
