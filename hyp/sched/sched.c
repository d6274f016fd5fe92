/*
 * The per-CPU loop.  Each exclusive physical CPU runs the one vCPU pinned
 * to it (no time slicing, no run queue); a CPU the configuration shares
 * between vCPUs runs hyp/sched/sched_share.c's loop instead.  The boot CPU also
 * serves the monitor console and guest restarts, between guest entries.
 */
#include <arch/sysregs.h>
#include "sched.h"
#include "sched_internal.h"
#include "sched_share.h"
#include "cyclic.h"
#include "budget.h"
#include "hyp/lib/console.h"
#include "hyp/arch/vm.h"
#include "hyp/platform/percpu.h"
#include "hyp/trap/traps.h"
#include "hyp/arch/pmu.h"
#include "vgic/gic.h"
#include "vgic/vgic_hw.h"
#include "hyp/platform/hyp.h"
#include "mm/hyp_colour.h"

/* the boot CPU has housekeeping to do (set at first: one round at start) */
static volatile bool cpu0_work = true;
static void (*housekeeping)(void);

void sched_set_housekeeping(void (*fn)(void))
{
    housekeeping = fn;
}

void sched_cpu0_work(void)
{
    /* seen before the attention word that makes the boot CPU look */
    __atomic_store_n(&cpu0_work, true, __ATOMIC_SEQ_CST);
    pcpus[0].attention = 1u;
    gic_kick_cpu(0);
}

void sched_console_input(void)
{
    pcpus[0].attention = 1u;     /* the UART interrupt runs on the boot CPU */
}

/*
 * A direct guest's CPU interface (docs/direct-interrupts.md) back to its
 * reset state, on its own CPU: before a life of the vCPU (the hypervisor's
 * interrupts here made Group 0 first, once) and after its guest's life,
 * before its SPIs are deactivated elsewhere (guest_vgic_release), so that
 * what it left active is ended here and no running priority outlives it.
 */
static void direct_quiet(struct vcpu *v)
{
    gic_group0_claim();
    const struct guest_config *c = v->vm->cfg;
    gic_direct_cpu_reset(c->pt_irqs, c->npt_irqs);
}

void vcpu_take_requests(struct vcpu *v)
{
    uint32_t req = vcpu_requests_take(v);
    if ((req & VCPU_REQ_POWER_ON) != 0u) {
        if (v->direct) {
            direct_quiet(v);
        }
        vgic_vcpu_reset(&v->vm->vgic, v->id);
        if (v->direct) {      /* what its distributor says of its PPIs, anew */
            vgic_hw_resync_private(&v->vm->vgic, v->id);
        }
        /* a timer interrupt forwarded to the previous life and never
         * EOIed stays active in the GIC: end it here, on its own CPU */
        gic_irq_deactivate(host.timer.irq_virt);
        if (host.pmu_irq != 0u) {
            gic_irq_deactivate(host.pmu_irq);
        }
        vcpu_reset(v, v->on_entry, v->on_r[0], v->on_r[1], v->on_r[2]);
        if (v->share != NULL) {
            sched_share_reset(v);
        }
        budget_vcpu_on(v);
        /* after its state is written: gdb's stub reads that state once
         * the vCPU is no longer VCPU_ON_PENDING (hyp/gdb/gdb_guest.c) */
        __atomic_store_n(&v->power, VCPU_ON, __ATOMIC_RELEASE);
    }
}

/*
 * The housekeeping (the monitor, the guests' lifecycle, management calls,
 * gdb) only when it has work: each of its sources calls sched_cpu0_work
 * or is console input - not on every pass of the loop, which on a shared
 * boot CPU is every vCPU switch.
 */
bool cpu0_service(void)
{
    this_cpu()->attention = 0u;
    /* cleared before cpu0_work is read: a request set after the read
     * (sched_cpu0_work: cpu0_work, then attention) is seen next time; the
     * word is exchanged only when set (the exchange's barriers, twice a
     * pass on a shared boot CPU, are for the rare pass with work) */
    dsb_ish();
    bool work = cpu0_work && __atomic_exchange_n(&cpu0_work, false, __ATOMIC_SEQ_CST);
    if (!housekeeping || !(work || console_rx_pending() || console_is_polled())) {
        return false;
    }
    housekeeping();
    return true;
}

bool cpu0_busy(void)
{
    return cpu0_work || console_rx_pending();
}

void vcpu_wait(struct vcpu *v)
{
    /* IRQs stay masked: WFI still wakes on a pending one, which we then
     * take in HYP before looking again (no lost wake-up) */
    if (v->requests || vgic_cpu_wants_wake(&v->vgic)) {
        return;
    }
    if (v->share != NULL) {
        sched_share_block(v);   /* a shared CPU: another vCPU may run */
        return;
    }
    /*
     * QEMU's GIC (7.2 and 10.0 alike) does not re-signal a level interrupt
     * whose line is still high when a guest's EOI deactivates it through a
     * hardware-linked list register (it re-evaluates only the virtual
     * interface): a virtual timer whose deadline already passed would never
     * fire again.  Any distributor write makes it look; re-enabling the
     * timer PPI is one that changes nothing.  Real GICs need none of this
     * (GICv2 1.4.2, 5.2.1); it costs one write (docs/qemu-versions.md).
     */
    gic_irq_enable(host.timer.irq_virt, 0);
    uint64_t t0 = sysreg_read_cntpct();
    wfi();
    this_cpu()->idle_ticks += sysreg_read_cntpct() - t0;
    gic_handle_irq();
}

const volatile uint32_t sched_poll_attention = 1u;

static void pcpu_idle(void)
{
    struct pcpu *c = this_cpu();
    if ((c->index == 0u) && (cpu0_busy() || console_is_polled())) {
        return;     /* (no console interrupt: the boot CPU polls it) */
    }
    struct vcpu *v = c->vcpu;
    if (v && ((v->requests & ~VCPU_REQ_HELD) || vcpu_runnable(v))) {
        return;
    }
    uint64_t t0 = sysreg_read_cntpct();
    wfi();      /* IRQs masked: wakes on a pending one, handled below */
    c->idle_ticks += sysreg_read_cntpct() - t0;
    if (gic_cpu_is_group0()) {
        gic_handle_fiq();   /* a direct guest's CPU: the hypervisor's are Group 0 */
    } else {
        gic_handle_irq();
    }
    /* the boot CPU moves the hypervisor into its colours (mm/hyp_colour.h):
     * the others wait for it here, before any guest runs */
    if ((c->index != 0u) && hyp_colour_requested()) {
        hyp_colour_park();
    }
}

void pcpu_loop(void)
{
    struct pcpu *c = this_cpu();
    bool boot_cpu = c->index == 0u;
    irq_disable();
    for (;;) {
        if (boot_cpu) {
            (void)cpu0_service();
        }
        /* secondary CPUs get here before the configuration is read */
        if (c->shared) {
            /* a CPU under the cyclic schedules runs its windows instead
             * (known before any CPU is shared: hyp/sched/cyclic.h); here,
             * not in the shared CPUs' loop, whose every switch it would
             * cost registers (make bench-check: vcpu_switch) */
            if (sched_cyclic_cpu(c->index)) {
                sched_cyclic_loop(c);
            }
            sched_share_loop(c);
        }
        struct vcpu *v = c->vcpu;
        if (v && v->requests) {
            vcpu_take_requests(v);
        }
        if ((v == NULL) || !vcpu_claim_own(v)) {
            pcpu_idle();
            continue;
        }
        vcpu_load(v);
        if (c->pmu_inten_parked != 0u) {
            pmu_unpark(c);      /* its PMU interrupt came while it was away */
        }
        vcpu_run(v, c, boot_cpu && console_is_polled());
        /* a direct guest's life ended: nothing of it may keep this CPU's
         * interface busy */
        if (v->direct && (v->vm->state != GUEST_RUNNING)) {
            direct_quiet(v);
        }
        vcpu_put(v);
        vcpu_release(v);
        /* the boot CPU waits for this vCPU to leave: to restart its guest,
         * or to detach its devices once its life has ended */
        if (v->vm->state != GUEST_RUNNING) {
            sched_cpu0_work();
        }
    }
}
