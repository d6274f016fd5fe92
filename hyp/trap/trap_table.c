/*
 * Trap dispatch: a table indexed by the HSR exception class (ARM ARM
 * B3.13.6, Table B3-22), as Jailhouse's traps.c does.  Each handler steps
 * the guest's PC itself when the instruction completes.  The classes are
 * handled by cp15.c (coprocessor accesses), smccc.c (HVC, SMC) and
 * abort.c (aborts, MMIO); WFI/WFE and the HCPTR traps are here.
 */
#include <arch/sysregs.h>
#include "handlers.h"
#include "hyp/arch/vfp.h"
#include "hyp/arch/vcpu_share.h"
#include "vgic/gic.h"

struct trap_hooks trap_hooks;

void trap_set_hooks(const struct trap_hooks *h)
{
    trap_hooks = *h;
}

/* WFI: the vCPU sleeps (the scheduler's vcpu_wait); WFE is a hint and
 * completes at once (a spinning guest just spins on) */
static void trap_wfx(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_WFI]++;
    if (vcpu_condition_passed(v, hsr) && !(hsr & HSR_WFX_WFE)) {
        trap_hooks.wait(v);
    }
    vcpu_skip_instr(v, hsr);
}

static void trap_hcptr(struct vcpu *v, uint32_t hsr)
{
    /* on a shared CPU: the vCPU's first VFP/NEON use in its turn */
    if (v->share && vfp_trap(&v->share->vfp)) {
        v->traps[TRAP_VFP]++;
        return;
    }
    /* trace registers (HCPTR.TTA): guests are given no trace unit, so an
     * access is UNDEFINED, as on a CPU without one */
    v->traps[TRAP_CP14]++;
    vcpu_inject_undef(v);
}

/*
 * A debug exception routed to Hyp mode: only while gdb is attached
 * (HDCR.TDE, hyp/gdb), which takes the ones that are its own
 * (trap_hooks.debug_hit); a hit of the guest's own comparator is handed
 * back as its prefetch or data abort.  QEMU reports them as a prefetch or
 * data abort with the debug status (FSC_DEBUG, as ARMv7 B3.13.6 says), or
 * with the ARMv8 classes.
 */
void trap_debug(struct vcpu *v, uint32_t hsr)
{
    uint32_t ec = HSR_EC(hsr);
    bool data = (ec == HSR_EC_WATCH_LOWER) || (ec == HSR_EC_DABT);
    uint32_t far = data ? sysreg_read_hdfar() : v->regs.pc;
    if (v->dbg_trap && trap_hooks.debug_hit(v, hsr, far, data)) {
        return;
    }
    vcpu_inject_debug(v, data, far);
}

static void trap_pabt_or_debug(struct vcpu *v, uint32_t hsr)
{
    if (HSR_DABT_FSC(hsr) == FSC_DEBUG) {
        trap_debug(v, hsr);
    } else {
        trap_pabt(v, hsr);
    }
}

static void trap_irq(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_IRQ]++;
    gic_handle_irq();
}

/* Group 0, the hypervisor's own interrupts on a direct guest's CPU
 * (vcpu_set_direct): acknowledged through the secure monitor */
static void trap_fiq(struct vcpu *v, uint32_t hsr)
{
    v->traps[TRAP_IRQ]++;
    gic_handle_fiq();
}

/* every class first trap_undef, then the ones handled (a range initializer
 * overridden on purpose: no NULL test on the way into every trap); past the
 * classes, the two exits named last are the only other entries */
_Static_assert((GUEST_EXIT_IRQ == GUEST_EXIT_EC_NR) &&
               (GUEST_EXIT_FIQ == (GUEST_EXIT_EC_NR + 1)) &&
               (GUEST_EXIT_NR == (GUEST_EXIT_EC_NR + 2)), "the range and the two exits fill the table");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
const exit_fn trap_table[GUEST_EXIT_NR] = {
    [0 ... GUEST_EXIT_EC_NR - 1] = trap_undef,
    [HSR_EC_WFX] = trap_wfx,
    [HSR_EC_CP15_32] = trap_cp15_32,
    [HSR_EC_CP15_64] = trap_raz_wi_64,
    [HSR_EC_CP14_32] = trap_cp14_32,
    [HSR_EC_CP14_LS] = trap_cp14_ls,
    [HSR_EC_HCPTR] = trap_hcptr,
    [HSR_EC_CP10_ID] = trap_cp10_id,
    [HSR_EC_CP14_64] = trap_raz_wi_64,
    [HSR_EC_HVC] = trap_hvc,
    [HSR_EC_SMC] = trap_smc,
    [HSR_EC_PABT] = trap_pabt_or_debug,
    [HSR_EC_DABT] = trap_dabt,      /* the MMIO path: an ARMv7 watchpoint's
                                     * data abort is not told apart there */
    [HSR_EC_BRK_LOWER] = trap_debug,
    [HSR_EC_STEP_LOWER] = trap_debug,
    [HSR_EC_WATCH_LOWER] = trap_debug,
    [HSR_EC_BKPT32] = trap_debug,
    [GUEST_EXIT_IRQ] = trap_irq,
    [GUEST_EXIT_FIQ] = trap_fiq,
};
#pragma GCC diagnostic pop
