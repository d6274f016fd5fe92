#include <arch/sysregs.h>
#include "hyp_timer.h"
#include "hyp/platform/hyp.h"
#include "hyp/platform/percpu.h"
#include "vgic/gic.h"

/* per CPU, touched only by that CPU with IRQs masked (HYP runs so); one
 * cache line each, whose index is a shift */
struct __attribute__((aligned(64))) hyp_timers {
    uint64_t deadline[HYP_TIMER_SLOTS];     /* NEVER: slot not armed */
    hyp_timer_fn fn[HYP_TIMER_SLOTS];
    uint64_t loaded;                        /* what CNTHP holds armed, NEVER: off */
};
static struct hyp_timers timers[MAX_CPUS];
/* an unarmed slot's deadline: later than any, so the earliest is a plain
 * minimum (a deadline of the counter's last value is never reached) */
#define NEVER HYP_TIMER_NEVER
/* the number of slots, unsigned as the loops' index is */
#define NR_SLOTS ((unsigned int)HYP_TIMER_SLOTS)

/*
 * Put the earliest armed deadline in the comparator, or turn it off.  The
 * comparator is written only when that deadline changed, and CNTHP_CTL
 * only when the timer goes on or off (a shared CPU's switch moves the
 * slice's deadline, nothing else): with ENABLE set, a new CNTHP_CVAL is
 * compared from the write on (B8.1.4, the timer condition is evaluated
 * continuously).
 */
static void program(struct hyp_timers *t)
{
    uint64_t next = t->deadline[0];
    for (unsigned int s = 1u; s < NR_SLOTS; s++) {
        next = t->deadline[s] < next ? t->deadline[s] : next;
    }
    uint64_t was = t->loaded;
    if (next == was) {
        return;
    }
    t->loaded = next;
    if (next == NEVER) {
        sysreg_write_cnthp_ctl(0);
        isb();
        return;
    }
    sysreg_write_cnthp_cval(next);
    isb();
    if (was == NEVER) {
        sysreg_write_cnthp_ctl(1);      /* ENABLE, not masked */
        isb();
    }
}

static struct hyp_timers *mine(void)
{
    return &timers[this_cpu()->index];
}

static bool hyp_timer_irq(unsigned int irq, void *arg)
{
    struct hyp_timers *t = mine();
    /* CNTHP is level-sensitive: turn it off before anything else */
    sysreg_write_cnthp_ctl(0);
    isb();
    t->loaded = NEVER;
    uint64_t now = sysreg_read_cntpct();
    for (unsigned int s = 0u; s < NR_SLOTS; s++) {
        if (t->deadline[s] > now) {
            continue;
        }
        hyp_timer_fn fn = t->fn[s];
        t->deadline[s] = NEVER;
        if (fn != NULL) {
            fn();           /* may arm its slot again */
        }
    }
    program(t);
    return true;
}

void hyp_timer_cpu_init(void)
{
    struct hyp_timers *t = mine();
    for (unsigned int s = 0u; s < NR_SLOTS; s++) {
        t->deadline[s] = NEVER;
    }
    t->loaded = NEVER;
    sysreg_write_cnthp_ctl(0);
    isb();
    gic_irq_register(host.timer.irq_hyp, hyp_timer_irq, 0);
    gic_irq_enable(host.timer.irq_hyp, 0);
}

/* deadline 0 is "now": the counter's first tick, already past */
static void arm(struct hyp_timers *t, enum hyp_timer_slot slot, uint64_t deadline,
                hyp_timer_fn fn)
{
    t->fn[slot] = fn;
    t->deadline[slot] = deadline ? deadline : 1u;
}

void hyp_timer_set(enum hyp_timer_slot slot, uint64_t deadline, hyp_timer_fn fn)
{
    struct hyp_timers *t = mine();
    arm(t, slot, deadline, fn);
    program(t);
}

void hyp_timer_set_share(uint64_t slice_end, uint64_t vtimer, hyp_timer_fn fn)
{
    struct hyp_timers *t = mine();
    t->fn[HYP_TIMER_SLICE] = t->fn[HYP_TIMER_VTIMER] = fn;
    t->deadline[HYP_TIMER_SLICE] = slice_end;
    t->deadline[HYP_TIMER_VTIMER] = vtimer;
    program(t);
}

void hyp_timer_cancel(enum hyp_timer_slot slot)
{
    struct hyp_timers *t = mine();
    if (t->deadline[slot] == NEVER) {
        return;
    }
    t->deadline[slot] = NEVER;
    program(t);
}
