/*
 * The end of a claim that let its vCPU go (sched_internal.h vcpu_claim):
 * out of line, as it is rare, and so that the claim's header needs
 * nothing of the boot CPU's wake-up.
 */
#include <stdbool.h>
#include "sched.h"
#include "sched_internal.h"

void vcpu_claim_let_go(struct vcpu *v)
{
    /* The boot CPU stores the watch, then looks at the vCPUs after a full
     * barrier (hyp/guest/guest.c guest_left); this CPU released v, and
     * reads the watch after one: either the boot CPU saw v let go, or
     * this CPU sees the watch (ARM ARM A3.8.3). */
    (void)__atomic_thread_fence(__ATOMIC_SEQ_CST);
    bool watched = __atomic_load_n(&v->vm->leave_watch, __ATOMIC_RELAXED);
    if (watched) {
        sched_cpu0_work();
    }
}
