/*
 * The per-guest watchdog (configuration "watchdog", "watchdog-action"):
 * every deadline on the boot CPU's hypervisor timer, fed by the guest's
 * PARTITA_HC_WATCHDOG call.
 */
#include "guest.h"
#include "guest_parts.h"
#include "health.h"
#include "hyp/sched/sched.h"
#include "timer/timer.h"
#include "timer/hyp_timer.h"

/* ---- the watchdog: checked on the boot CPU's hypervisor timer ---- */

uint64_t ms_to_ticks(uint32_t ms)
{
    return (uint64_t)ms * timer_freq() / 1000u;
}

/* Boot CPU: the earliest armed deadline on the hypervisor timer, the
 * health monitor's ends of periods among them (hyp/guest/health.c) */
static void watchdog_check(void);
void watchdog_arm(void)
{
    uint64_t next = health_next_deadline();
    for (unsigned int i = 0u; i < nguests; i++) {
        uint64_t d = guests[i].wd_deadline;
        if (d && (!next || d < next)) {
            next = d;
        }
    }
    if (next != 0u) {
        hyp_timer_set(HYP_TIMER_WATCHDOG, next, watchdog_check);
    } else {
        hyp_timer_cancel(HYP_TIMER_WATCHDOG);
    }
}

/* Interrupt context on the boot CPU: flag what expired, act outside it */
static void watchdog_check(void)
{
    uint64_t now = timer_now();
    bool any = health_due(now);
    for (unsigned int i = 0u; i < nguests; i++) {
        struct guest *g = &guests[i];
        if (g->wd_deadline && now >= g->wd_deadline && g->state == GUEST_RUNNING) {
            g->wd_deadline = 0u;
            g->wd_expired = true;
            any = true;
        }
    }
    if (any) {
        sched_cpu0_work();
    }
    watchdog_arm();
}

int guest_watchdog_feed(struct guest *g)
{
    if (!g->cfg->watchdog_ms || g->state != GUEST_RUNNING) {
        return -1;
    }
    /* the boot CPU's timer fires at the old deadline and finds this one */
    g->wd_deadline = timer_now() + ms_to_ticks(g->cfg->watchdog_ms);
    return 0;
}
