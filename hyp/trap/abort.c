/*
 * Aborts: a data abort on an emulated device is the MMIO fast path (decode,
 * route on the guest's bus, complete, step); anything else is an abort back
 * into the guest, reported and rate limited, or a crash when the guest
 * cannot take it.
 */
#include <stdio.h>
#include <arch/sysregs.h>
#include "handlers.h"
#include "hyp/vdev/mmio.h"
#include "hyp/arch/vm.h"
#include "hyp/config/channel_query.h"
#include "hyp/lib/console.h"
#include "hyp/lib/ratelimit.h"
#include "timer/timer.h"

/* A guest can fault as often as it likes: its reports pass in a burst of
 * ABORT_LOG_BURST, then ABORT_LOG_RATE a second per vCPU (hyp/lib/ratelimit.h) */
#define ABORT_LOG_BURST 256
#define ABORT_LOG_RATE  10u

static uint32_t abort_log_period;     /* counter ticks per report */

/* What a data abort was, for its report (HSR ISS, B3.13.6); bus: what the
 * MMIO bus said of it */
static const char *dabt_what(struct vcpu *v, uint32_t hsr, uint64_t ipa,
                             enum mmio_result bus, char *buf, size_t n)
{
    if ((hsr & HSR_DABT_S1PTW) != 0u) {
        return "page-table walk outside its memory";
    }
    /* a permission fault (LPAE FSC 0b0011LL, B3.13.6) is a write to memory
     * the guest may only read: a read-only channel */
    if (FSC_TYPE(HSR_DABT_FSC(hsr)) == FSC_PERMISSION) {
        const char *chan = channel_at(v->vm->cfg, ipa);
        if (!chan) {
            return "write to read-only memory";
        }
        (void)snprintf(buf, n, "write to read-only channel '%s'", chan);
        return buf;
    }
    if (bus == MMIO_REFUSED) {
        return (hsr & HSR_DABT_ISV)
                   ? "device access the emulation refuses (unaligned or too wide)"
                   : "device access without a syndrome (LDM/STM/LDRD/exclusive)";
    }
    return (hsr & HSR_DABT_WNR) ? "write to unmapped memory" : "read of unmapped memory";
}

/* hsr: a data abort's, or 0 for an instruction fetch */
static void report_abort(struct vcpu *v, uint32_t hsr, uint32_t va, uint64_t ipa,
                         enum mmio_result bus)
{
    uint32_t dropped;
    if (!abort_log_period) {
        abort_log_period = timer_freq() / ABORT_LOG_RATE;
    }
    if (!ratelimit_pass(&v->abort_log, timer_now(), abort_log_period, ABORT_LOG_BURST,
                        &dropped)) {
        return;
                        }
    if (dropped != 0u) {
        pr_info("guest '%s' vCPU %u: %lu abort reports suppressed\n", v->vm->cfg->name,
                v->id, (unsigned long)dropped);
    }
    char buf[64];
    pr_info("guest '%s' vCPU %u: %s at PC 0x%08lx, address 0x%08lx (IPA 0x%08llx): "
            "abort injected\n", v->vm->cfg->name, v->id,
            hsr ? dabt_what(v, hsr, ipa, bus, buf, sizeof(buf))
                : "instruction fetch from unmapped memory",
            (unsigned long)v->regs.pc, (unsigned long)va, (unsigned long long)ipa);
}

/*
 * Can the guest take this exception itself?  Not if its vector would be
 * fetched from outside its RAM (another abort, forever), nor if the same
 * instruction keeps faulting: then it is crashed, per its on-crash policy.
 */
#define ABORT_REPEAT_LIMIT 64u

static bool guest_can_take(struct vcpu *v, uint32_t vector_off, uint32_t hsr, uint32_t far)
{
    uint32_t sctlr = sysreg_read_sctlr();
    uint32_t vbar = (sctlr & SCTLR_V) ? 0xffff0000u : sysreg_read_vbar();
    /* the same instruction at the same address: an instruction that walks
     * addresses (a probe loop taking its aborts) makes progress */
    if (v->regs.pc == v->last_fault_pc && far == v->last_fault_far) {
        v->fault_repeats++;
    } else {
        v->fault_repeats = 0u;
    }
    v->last_fault_pc = v->regs.pc;
    v->last_fault_far = far;
    /* with its MMU off the vector address is an IPA we can check; with it
     * on, a vector outside RAM shows up as a fault at the vector itself */
    bool vector_ok = (sctlr & SCTLR_M) ? v->regs.pc != vbar + vector_off
                                       : guest_config_ipa_is_ram(v->vm->cfg, vbar + vector_off);
    if (!vector_ok) {
        trap_hooks.crash(v, "exception vector not in guest memory", hsr, far);
        return false;
    }
    if (v->fault_repeats >= ABORT_REPEAT_LIMIT) {
        trap_hooks.crash(v, "the same instruction keeps faulting", hsr, far);
        return false;
    }
    return true;
}

/* A data abort no device answered (bus: why): an abort for the guest, or
 * a crash.  HDFAR and HPFAR read here again (nothing between the trap and
 * this changes them: HYP takes no exception of its own), so that the fast
 * path keeps nothing but v and the syndrome across the device's call */
static void __attribute__((noinline)) dabt_fault(struct vcpu *v, uint32_t hsr,
                                                 enum mmio_result bus)
{
    uint32_t hdfar = sysreg_read_hdfar(), hpfar = sysreg_read_hpfar();
    v->traps[TRAP_DABT_FAULT]++;
    v->vm->aborts++;
    /* HPFAR is the faulting IPA's page; the offset is HDFAR's, except for a
     * stage-1 walk, whose descriptor address HDFAR does not give */
    uint64_t ipa = (hsr & HSR_DABT_S1PTW) ? HPFAR_IPA(hpfar) : FAULT_IPA(hdfar, hpfar);
    if (!guest_can_take(v, VECTOR_DABT, hsr, hdfar)) {
        return;
    }
    report_abort(v, hsr, hdfar, ipa, bus);
    vcpu_inject_dabt(v, hdfar, (hsr & HSR_DABT_WNR) != 0u);
}

/* A data abort without a syndrome to emulate from (B3.13.6: ISV clear, a
 * cache maintenance or a stage-1 walk), or a watchpoint's debug exception
 * (gdb attached): for the rest the bus is asked only whom the address
 * belongs to, for the report */
static void __attribute__((noinline)) dabt_unsyndromed(struct vcpu *v, uint32_t hsr)
{
    if (HSR_DABT_FSC(hsr) == FSC_DEBUG) {
        trap_debug(v, hsr);
        return;
    }
    uint64_t ipa = FAULT_IPA(sysreg_read_hdfar(), sysreg_read_hpfar());
    dabt_fault(v, hsr, mmio_owned(&v->vm->mmio, ipa) ? MMIO_REFUSED : MMIO_UNCLAIMED);
}

/* The MMIO fast path: decode, route, complete the load or store, step;
 * everything else out of line.  Across the device's call it keeps only v
 * and the syndrome, which has all the trap still needs (Rt, SAS, SSE, WnR;
 * B3.13.6) */
void trap_dabt(struct vcpu *v, uint32_t hsr)
{
    struct mmio_access *a = &v->mmio;
    if (__builtin_expect(!mmio_decode(hsr, a), 0) != 0) {
        dabt_unsyndromed(v, hsr);
        return;
    }
    if ((hsr & HSR_DABT_WNR) != 0u) {
        a->value = vcpu_get_reg(v, HSR_DABT_SRT(hsr));
    }
    enum mmio_result bus = mmio_dispatch(&v->vm->mmio,
                                         FAULT_IPA(sysreg_read_hdfar(), sysreg_read_hpfar()), a);
    if (__builtin_expect(bus != MMIO_HANDLED, 0) != 0) {
        dabt_fault(v, hsr, bus);
        return;
    }
    v->traps[TRAP_DABT_MMIO]++;
    if (!(hsr & HSR_DABT_WNR)) {
        vcpu_set_reg(v, HSR_DABT_SRT(hsr), mmio_load_value(hsr, a->value));
    }
    vcpu_skip_instr(v, hsr);
}

void trap_pabt(struct vcpu *v, uint32_t hsr)
{
    uint32_t hifar = sysreg_read_hifar(), hpfar = sysreg_read_hpfar();
    v->traps[TRAP_PABT]++;
    v->vm->aborts++;
    if (!guest_can_take(v, VECTOR_PABT, hsr, hifar)) {
        return;
    }
    report_abort(v, 0, hifar, FAULT_IPA(hifar, hpfar), MMIO_UNCLAIMED);
    vcpu_inject_pabt(v, hifar);
}

void trap_undef(struct vcpu *v, uint32_t hsr)
{
    /* anything Partita does not emulate is undefined for the guest */
    v->traps[TRAP_UNKNOWN]++;
    if (guest_can_take(v, VECTOR_UNDEF, hsr, 0)) {
        vcpu_inject_undef(v);
    }
}
