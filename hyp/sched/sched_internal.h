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

/*
 * Run the loaded v until it or c is wanted outside the guest (v->requests,
 * c->attention; for a boot CPU that polls its console, its input or work
 * too).  The one loop of guest entries: guest_run (hyp/arch/entry.S)
 * handles exits, flushes the list registers and goes back into the guest
 * by itself while nothing is wanted outside.
 */
void vcpu_run(struct vcpu *v, struct pcpu *c, bool polled);

/* Requests another CPU left for this vCPU, taken while it is not loaded. */
void vcpu_take_requests(struct vcpu *v);
/* the boot CPU's work between guest entries: console, lifecycle */
void cpu0_service(void);
bool cpu0_busy(void);

#endif
