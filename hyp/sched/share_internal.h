/* What the shared CPUs' loop (hyp/sched/sched_share.c) lends the cyclic
 * one (hyp/sched/cyclic.c): moving a vCPU on and off its CPU, waking, the
 * CPU's sleep.  Not for the rest of the hypervisor. */
#ifndef HYP_SCHED_SHARE_INTERNAL_H
#define HYP_SCHED_SHARE_INTERNAL_H

#include <stdint.h>
#include <stdbool.h>

struct pcpu;
struct vcpu;

/* v gets the state of a vCPU that is away at times (its VFP, timer PPI,
 * PMU), and its CPU runs the shared CPUs' loop, before any guest starts */
void sched_share_own(struct vcpu *v);
/* v onto c, and off its CPU (everything it owns moves with it) */
void sched_share_load(struct pcpu *c, struct vcpu *v);
void sched_share_put(struct vcpu *v);
/* v just left its CPU: if its guest's life ended, the boot CPU restarts
 * or detaches it (hyp/sched/sched.c) */
void sched_share_left(struct vcpu *v);
/* nothing to run: WFI until an interrupt, unless c has attention */
void sched_share_idle(struct pcpu *c);
/* gdb asked c to save the VFP registers it holds (c->vfp_flush) */
void sched_share_vfp_service(struct pcpu *c);
/* v's saved virtual timer's deadline on CNTPCT (0: none); whether v has
 * something to do (a request, an interrupt, its timer d due at now) */
uint64_t sched_share_vtimer_deadline(const struct vcpu *v);
bool sched_share_has_work(struct vcpu *v, uint64_t d, uint64_t now);
/* the hypervisor timer's callback: the loop looks again */
void sched_share_look_again(void);

#endif
