/*
 * The guest's virtual timer state (ARM ARM B8.2): CNTV_CTL and CNTV_CVAL
 * belong to the guest and are switched with its vCPU.  Saving disables the
 * timer so that it cannot fire for a vCPU that is not here.
 */
#include <arch/sysregs.h>
#include "vcpu.h"

void vtimer_save(struct vcpu_timer *t)
{
    t->cntv_ctl = sysreg_read_cntv_ctl();
    t->cntv_cval = sysreg_read_cntv_cval();
    sysreg_write_cntv_ctl(0);
    isb();
}

void vtimer_restore(const struct vcpu_timer *t)
{
    sysreg_write_cntv_cval(t->cntv_cval);
    isb();      /* the new compare value before the timer may be enabled */
    sysreg_write_cntv_ctl(t->cntv_ctl);
    /* synchronized by vcpu_load's ISB (and the ERET into the guest) */
}
