/* What the exclusive loop (hyp/sched/sched.c) shares with the shared one
 * (hyp/sched/sched_share.c); not for the rest of the hypervisor. */
#ifndef HYP_SCHED_INTERNAL_H
#define HYP_SCHED_INTERNAL_H

#include <stdbool.h>
#include "hyp/arch/vm.h"
#include "hyp/platform/percpu.h"
#include "hyp/trap/traps.h"

static inline bool vcpu_runnable(struct vcpu *v)
{
    return v && v->vm->state == GUEST_RUNNING && v->power == VCPU_ON &&
           !(v->requests & (VCPU_REQ_STOP | VCPU_REQ_HELD));
}

/*
 * The requests other CPUs left for v, taken; the holds (VCPU_REQ_HELD) stay
 * set.  A start (VCPU_REQ_POWER_ON) of a vCPU whose guest is not running is
 * dropped: its guest was stopped after asking, or is being started, and
 * guest_start asks again once the guest runs (hyp/arch/vcpu.h
 * vcpu_request_power_on).
 */
static inline uint32_t vcpu_requests_take(struct vcpu *v)
{
    uint32_t req = __atomic_fetch_and(&v->requests, VCPU_REQ_HELD, __ATOMIC_SEQ_CST);
    if (v->vm->state != GUEST_RUNNING) {
        req &= ~VCPU_REQ_POWER_ON;
    }
    return req;
}

/* v put back (after vcpu_put): its saved state is the boot CPU's and
 * gdb's again, once they see this store */
static inline void vcpu_release(struct vcpu *v)
{
    (void)__atomic_store_n(&v->on_cpu, false, __ATOMIC_RELEASE);
}

/* After v was held for a claim and let go: the boot CPU may have looked
 * while this CPU held it; if it waits for v's guest to leave its CPUs, it
 * looks again (hyp/sched/claim.c) */
void vcpu_claim_let_go(struct vcpu *v) __attribute__((cold));

/*
 * Take v for a run on this CPU, or let it be if it may no longer run.
 * The boot CPU ends a guest's life, and gdb holds a vCPU, by writing the
 * guest's state or a request and then waiting until no CPU holds its
 * vCPUs (guest_vcpus_idle, vcpu_settled).  This CPU found v runnable a
 * moment ago and may have been overtaken by that since: loading v then
 * would write its saved state back over what the boot CPU is resetting
 * or gdb is writing.  So this CPU holds v first and looks again after a
 * full barrier, while the other side writes first and looks after one
 * (its requests are set by a sequentially consistent read-modify-write):
 * either the boot CPU sees the hold and waits, or this CPU sees the stop
 * and lets go before it has touched anything of v (ARM ARM A3.8.3, the
 * DMB orders each side's store before its load).
 */
static inline bool vcpu_claim(struct vcpu *v)
{
    (void)__atomic_store_n(&v->on_cpu, true, __ATOMIC_RELAXED);
    (void)__atomic_thread_fence(__ATOMIC_SEQ_CST);
    bool runnable = vcpu_runnable(v);
    if (!runnable) {
        vcpu_release(v);
        vcpu_claim_let_go(v);
    }
    return runnable;
}

/*
 * An exclusive CPU's claim of its one vCPU, tried on every pass of its
 * loop: a vCPU that may not run is not held even for the look.  The boot
 * CPU looks when the vCPU of a guest whose life ended has left its CPU
 * (hyp/guest/guest.c guests_service); a look that found it held for the
 * claim's own look waited for a wake-up nobody sent, and a guest that
 * reset itself was never restarted.  The shared loops test their
 * candidates with the claim itself (the pick): a look during such a test
 * is taken again, the claim waking the boot CPU (vm.leave_watch).
 */
static inline bool vcpu_claim_own(struct vcpu *v)
{
    return vcpu_runnable(v) && vcpu_claim(v);
}

/* the boot CPU's work between guest entries: console, lifecycle (its
 * attention word cleared first); true if there was some */
bool cpu0_service(void);
bool cpu0_busy(void);

/* the attention word of a boot CPU polling its console: always set, so
 * that guest_run comes back after every exit for the UART to be looked at */
extern const volatile uint32_t sched_poll_attention;

/*
 * Run the loaded v until it or c is wanted outside the guest (v->requests,
 * c->attention; for a boot CPU that polls its console, its input or work
 * too).  The one loop of guest entries, for both schedulers (inline:
 * what it saves is a call and the set-up of its registers on every vCPU
 * switch): guest_run (hyp/arch/entry.S) handles exits, flushes the list
 * registers and goes back into the guest by itself while nothing is
 * wanted outside.
 */
static inline void vcpu_run(struct vcpu *v, struct pcpu *c, bool polled)
{
    const volatile uint32_t *attention = polled ? &sched_poll_attention : &c->attention;
    while (!(v->requests | c->attention) && !(polled && cpu0_busy())) {
        guest_run(v, trap_table, attention);
    }
}

/* Requests another CPU left for this vCPU, taken while it is not loaded. */
void vcpu_take_requests(struct vcpu *v);

#endif
