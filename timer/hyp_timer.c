#include <arch/sysregs.h>
#include "hyp_timer.h"
#include "hyp/platform/hyp.h"
#include "hyp/platform/percpu.h"
#include "vgic/gic.h"

/* per CPU, touched only by that CPU with IRQs masked (HYP runs so) */
struct hyp_timers {
    uint64_t deadline[HYP_TIMER_SLOTS];     /* 0: slot not armed */
    hyp_timer_fn fn[HYP_TIMER_SLOTS];
    uint64_t loaded;                        /* what CNTHP holds armed, 0: off */
};
static struct hyp_timers timers[MAX_CPUS];

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
    uint64_t next = 0;
    for (unsigned int s = 0; s < HYP_TIMER_SLOTS; s++)
        if (t->deadline[s] && (!next || t->deadline[s] < next))
            next = t->deadline[s];
    uint64_t was = t->loaded;
    if (next == was)
        return;
    t->loaded = next;
    if (!next) {
        sysreg_write_cnthp_ctl(0);
        isb();
        return;
    }
    sysreg_write_cnthp_cval(next);
    isb();
    if (!was) {
        sysreg_write_cnthp_ctl(1);      /* ENABLE, not masked */
        isb();
    }
}

static bool hyp_timer_irq(unsigned int irq, void *arg)
{
    struct hyp_timers *t = &timers[this_cpu()->index];
    /* CNTHP is level-sensitive: turn it off before anything else */
    sysreg_write_cnthp_ctl(0);
    isb();
    t->loaded = 0;
    uint64_t now = sysreg_read_cntpct();
    for (unsigned int s = 0; s < HYP_TIMER_SLOTS; s++) {
        if (!t->deadline[s] || t->deadline[s] > now)
            continue;
        hyp_timer_fn fn = t->fn[s];
        t->deadline[s] = 0;
        if (fn)
            fn();           /* may arm its slot again */
    }
    program(t);
    return true;
}

void hyp_timer_cpu_init(void)
{
    sysreg_write_cnthp_ctl(0);
    isb();
    gic_irq_register(host.timer.irq_hyp, hyp_timer_irq, 0);
    gic_irq_enable(host.timer.irq_hyp, 0);
}

void hyp_timer_arm(enum hyp_timer_slot slot, uint64_t deadline, hyp_timer_fn fn)
{
    struct hyp_timers *t = &timers[this_cpu()->index];
    t->fn[slot] = fn;
    t->deadline[slot] = deadline ? deadline : 1;
}

void hyp_timer_disarm(enum hyp_timer_slot slot)
{
    timers[this_cpu()->index].deadline[slot] = 0;
}

void hyp_timer_program(void)
{
    program(&timers[this_cpu()->index]);
}

void hyp_timer_set(enum hyp_timer_slot slot, uint64_t deadline, hyp_timer_fn fn)
{
    hyp_timer_arm(slot, deadline, fn);
    hyp_timer_program();
}

void hyp_timer_cancel(enum hyp_timer_slot slot)
{
    struct hyp_timers *t = &timers[this_cpu()->index];
    if (!t->deadline[slot])
        return;
    t->deadline[slot] = 0;
    program(t);
}
