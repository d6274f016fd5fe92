/*
 * Memory-bandwidth budgets on the PMU and the hypervisor timer: budget.h
 * says what, budget_pool.h how the pool is shared between the vCPUs.
 *
 * Each physical CPU of a partition with a budget runs that partition's
 * vCPU alone (config_budget.c refuses shared and direct CPUs), so the
 * reserved counter there is its vCPU's: it counts only while the vCPU is
 * in its guest (Hyp mode is filtered out), and nothing needs moving at a
 * switch.  Everything of a CPU below happens on that CPU, with IRQs
 * masked; the pool is shared by the partition's CPUs under its lock.
 */
#include <string.h>
#include <arch/sysregs.h>
#include "budget.h"
#include "budget_internal.h"
#include "sched.h"
#include "hyp/arch/pmu.h"
#include "hyp/arch/vm.h"
#include "hyp/config/guest_config.h"
#include "hyp/lib/console.h"
#include "hyp/lib/spinlock.h"
#include "hyp/platform/percpu.h"
#include "timer/hyp_timer.h"
#include "timer/timer.h"
#include "vgic/vgic_hw.h"

/* one per CPU that runs a vCPU with a budget */
struct budget_cpu {
    struct budget *b;           /* NULL: none here */
    struct vcpu *v;
    bool started;               /* its timer runs */
    uint32_t grant;             /* the counter was set to -grant */
    uint32_t period;            /* the period the grant is of */
    uint64_t deadline;          /* that period's end (CNTPCT) */
};

static struct budget_cpu cpus[MAX_CPUS];
/* the start of period 0, the same for every partition and CPU: periods
 * end at epoch + the sum of their lengths, never at "now" + a length */
static uint64_t epoch;

static struct budget_cpu *mine(void)
{
    return &cpus[this_cpu()->index];
}

/* events counted since the grant was set (the counter started at -grant;
 * modulo 2^32, past an overflow too) */
static uint32_t counted(const struct budget_cpu *c, uint32_t *ovf)
{
    return pmu_budget_read(ovf) + c->grant;
}

/* the next grant (the pool's lock held by the caller) onto the counter;
 * with none the vCPU is held off its CPU */
static void grant_next(struct budget_cpu *c)
{
    c->grant = budget_pool_draw(&c->b->pool);
    if (!c->grant) {
        c->b->pool.throttles++;
    }
}

static void apply(struct budget_cpu *c)
{
    pmu_budget_program(c->b->event, -c->grant);
    if (c->grant != 0u) {
        (void)__atomic_and_fetch(&c->v->requests, ~VCPU_REQ_THROTTLE, __ATOMIC_SEQ_CST);
    } else {
        (void)__atomic_or_fetch(&c->v->requests, VCPU_REQ_THROTTLE, __ATOMIC_SEQ_CST);
    }
}

/* The counter overflowed: its grant is spent.  Charged with the skid
 * past it, and the next grant drawn.  True if no guest counter's
 * interrupt is pending with it. */
static bool overflow(void)
{
    uint32_t bit = 1u << pmu_reserved;
    uint32_t pending = sysreg_read_pmovsr() & sysreg_read_pmintenset();
    if (!(pending & bit)) {
        return false;
    }
    struct budget_cpu *c = mine();
    if (!c->b) {
        sysreg_write_pmintenclr(bit);   /* not counting for anyone here */
        sysreg_write_pmovsr(bit);
        return !(pending & ~bit);
    }
    uint32_t ovf, n = counted(c, &ovf);
    spin_lock(&c->b->lock);
    budget_pool_charge(&c->b->pool, c->period, c->grant, n);
    grant_next(c);
    spin_unlock(&c->b->lock);
    apply(c);
    return !(pending & ~bit);
}

/* The hypervisor timer: this CPU's period ended.  What it counted is
 * charged to that period, and what it counted past its grant (an overflow
 * not taken in time) is owed by the next ones; the pool of the new period,
 * opened by whichever of the partition's CPUs comes first, gives the
 * next grant. */
static void refill(void)
{
    struct budget_cpu *c = mine();
    uint64_t now = timer_now();
    uint32_t ovf, n = counted(c, &ovf);
    struct budget *b = c->b;
    spin_lock(&b->lock);
    budget_pool_charge(&b->pool, c->period, c->grant, n);
    while (c->deadline <= now) {
        c->period++;
        bool first = b->pool.period != c->period;
        budget_pool_open(&b->pool, c->period);
        c->deadline += timer_us_to_ticks(b->pool.period_us);
        if (first) {
            b->period_end = c->deadline;
        }
    }
    grant_next(c);
    spin_unlock(&b->lock);
    apply(c);
    hyp_timer_set(HYP_TIMER_BUDGET, c->deadline, refill);
}

void budget_vcpu_on(struct vcpu *v)
{
    struct budget_cpu *c = &cpus[v->pcpu];
    if (!c->b || c->started) {
        return;
    }
    c->started = true;
    c->grant = 0u;
    /* in step with the partition's other CPUs: the period in force (its
     * first refill catches up with any that ended meanwhile) */
    spin_lock(&c->b->lock);
    c->period = c->b->pool.period;
    c->deadline = c->b->period_end;
    grant_next(c);
    spin_unlock(&c->b->lock);
    apply(c);
    hyp_timer_set(HYP_TIMER_BUDGET, c->deadline, refill);
}

bool budget_init(const struct system_config *sys, struct vm *(*vm_of)(unsigned int i))
{
    bool any = false;
    epoch = timer_now();
    for (unsigned int i = 0u; i < sys->nguest_cfg; i++) {
        const struct guest_config *g = &sys->guest_cfg[i];
        if (!g->budget_events) {
            continue;
        }
        if (!any && !pmu_reserve()) {
            pr_err("guest '%s': property 'memory-budget': no PMU counter\n", g->name);
            return false;
        }
        any = true;
        struct budget *b = &budgets[i];
        budget_pool_init(&b->pool, g->budget_events, g->budget_period_us, g->ncpus);
        b->event = g->budget_event;
        b->period_end = epoch + timer_us_to_ticks(g->budget_period_us);
        for (unsigned int k = 0u; k < g->ncpus; k++) {
            cpus[g->cpus[k]].b = b;
            cpus[g->cpus[k]].v = &vm_of(i)->vcpu[k];
        }
        pr_info("budget: '%s': %lu of 0x%02lx per %lu us, counter %u\n", g->name,
                (unsigned long)g->budget_events, (unsigned long)g->budget_event,
                (unsigned long)g->budget_period_us, pmu_reserved);
    }
    if (any) {
        vgic_hw_pmu_reserve(pmu_guest_bits, overflow);
    }
    return true;
}
