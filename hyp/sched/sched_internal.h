/* What the exclusive loop (hyp/sched/sched.c) shares with the shared one
 * (hyp/sched/sched_share.c); not for the rest of the hypervisor. */
#ifndef HYP_SCHED_INTERNAL_H
#define HYP_SCHED_INTERNAL_H

#include <stdbool.h>
#include "hyp/guest/guest.h"

static inline bool vcpu_runnable(struct vcpu *v)
{
    return v && v->guest->state == GUEST_RUNNING && v->power == VCPU_ON &&
           !(v->requests & (VCPU_REQ_STOP | VCPU_REQ_HALT));
}

/* Requests another CPU left for this vCPU, taken while it is not loaded. */
void vcpu_take_requests(struct vcpu *v);
/* the boot CPU's work between guest entries: console, lifecycle */
void cpu0_service(void);
bool cpu0_busy(void);

#endif
