#include <arch/sysregs.h>
#include "hyp_timer.h"
#include "hyp/hyp.h"
#include "hyp/percpu.h"
#include "vgic/gic.h"

static hyp_timer_fn timer_fn[MAX_CPUS];

static bool hyp_timer_irq(unsigned int irq, void *arg)
{
    /* CNTHP is level-sensitive: turn it off before anything else */
    sysreg_write_cnthp_ctl(0);
    isb();
    hyp_timer_fn fn = timer_fn[this_cpu()->index];
    timer_fn[this_cpu()->index] = 0;
    if (fn)
        fn();
    return true;
}

void hyp_timer_cpu_init(void)
{
    sysreg_write_cnthp_ctl(0);
    isb();
    gic_irq_register(host.timer.irq_hyp, hyp_timer_irq, 0);
    gic_irq_enable(host.timer.irq_hyp, 0);
}

void hyp_timer_set(uint64_t deadline, hyp_timer_fn fn)
{
    timer_fn[this_cpu()->index] = fn;
    sysreg_write_cnthp_cval(deadline);
    isb();
    sysreg_write_cnthp_ctl(1);      /* ENABLE, not masked */
    isb();
}

void hyp_timer_cancel(void)
{
    sysreg_write_cnthp_ctl(0);
    isb();
    timer_fn[this_cpu()->index] = 0;
}
