/*
 * The scheduler: each physical CPU's loop, and the one way to wake a vCPU
 * and the one way for a vCPU to sleep.
 */
#ifndef HYP_SCHED_H
#define HYP_SCHED_H
#include <stdbool.h>
#include "hyp/arch/vcpu.h"
#include "hyp/platform/percpu.h"
#include "vgic/gic.h"

/* Every physical CPU ends here: run the vCPU pinned to it, or sleep. */
void pcpu_loop(void) __attribute__((noreturn));
/* the boot CPU has monitor or lifecycle work: leave the guest for it */
void sched_cpu0_work(void);
/* console input arrived (the UART interrupt, on the boot CPU) */
void sched_console_input(void);
/*
 * The boot CPU's work between guest entries (the monitor, guest restarts):
 * registered by boot/main.c, so that the scheduler calls neither the
 * monitor nor the guest code.
 */
void sched_set_housekeeping(void (*fn)(void));

/*
 * Make v look at its requests (and, on a shared CPU, its turn) soon: from
 * any CPU, with the request already set.  A vCPU on another CPU gets an
 * IPI that takes it out of the guest or its WFI; on a shared CPU the loop
 * is told to look again (hyp/sched/sched_share.c).
 */
static inline void vcpu_kick(struct vcpu *v)
{
    if (v->share != NULL) {
        pcpus[v->pcpu].attention = 1u;
    }
    if (v->pcpu != this_cpu()->index) {
        gic_kick_cpu(v->pcpu);
    }
}

/* Sleep until v has something to do (an interrupt or a request): WFI */
void vcpu_wait(struct vcpu *v);

#endif
