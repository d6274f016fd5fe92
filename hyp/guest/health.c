/*
 * The health monitor's events and actions (health.h).  A counted event is
 * looked at in periods of its threshold, back to back from the guest's
 * start: the period in which the count reaches the threshold fires the
 * action once.  Aborts and budget overruns are counted elsewhere (the trap
 * layer's vm.aborts, the budget pool's throttles) and read on the boot CPU
 * when a period ends, so their paths pay nothing for it; a deadline miss
 * is counted by its own call, which asks for the boot CPU's pass as soon
 * as the threshold is reached - once a period, whatever the guest calls.
 */
#include <partita/hvc.h>
#include "guest.h"
#include "guest_parts.h"
#include "health.h"
#include "hyp/lib/console.h"
#include "hyp/sched/budget.h"
#include "hyp/sched/cyclic.h"
#include "hyp/sched/sched.h"
#include "timer/timer.h"

struct health_state {
    uint64_t end[HEALTH_EVENTS];            /* counted events: the period's end; 0 off */
    uint32_t base[HEALTH_EVENTS];           /* the count when it began */
    volatile uint32_t fired;                /* bit per event: fired this period */
    volatile uint32_t pending;              /* bit per event: noted on another CPU */
    volatile uint32_t misses;               /* deadline misses reported */
    volatile uint32_t tag;                  /* the last one's r1 */
};

static struct health_state hstate[GUEST_MAX];
static volatile bool due;

static uint32_t count_of(struct guest *g, unsigned int e)
{
    struct partita_budget b;
    switch (e) {
    case HEALTH_EV_ABORTS: return g->aborts;
    case HEALTH_EV_OVERRUN: return budget_fill(g->id, &b) ? b.throttles : 0u;
    default: return __atomic_load_n(&hstate[g->id].misses, __ATOMIC_ACQUIRE);
    }
}

void health_guest_start(struct guest *g)
{
    struct health_state *s = &hstate[g->id];
    const struct guest_health *h = &g->cfg->health;
    uint64_t now = timer_now();
    s->fired = 0u;
    s->pending = 0u;
    for (unsigned int e = HEALTH_EV_COUNTED; e < HEALTH_EVENTS; e++) {
        s->end[e] = h->action[e] != HEALTH_ACT_NONE ? now + timer_us_to_ticks(h->period_us[e]) : 0u;
        s->base[e] = count_of(g, e);
    }
}

/* Every guest stopped for g's event: the monitor and the control partition
 * answer on, and say why */
static void stop_system(struct guest *g, unsigned int e)
{
    health_log_system_stop(g->id, e);
    for (unsigned int i = 0u; i < nguests; i++) {
        guest_stop(&guests[i]);
    }
    pr_err("health: system stopped: guest '%s': %s: every guest stopped\n", g->cfg->name,
           health_event_names[e]);
}

/* The schedule g's health table names, at the next major frame but one:
 * a switch already pending is not replaced (the first event's wins), and
 * one to the schedule in force is none */
static void health_switch_schedule(struct guest *g)
{
    const struct guest_health *h = &g->cfg->health;
    int rc = 0;
    if (schedule_in_force() == (int)h->schedule) {
        guest_log(g, "guest '%s': health: schedule '%s' in force already\n", g->cfg->name,
                  h->schedule_name);
    } else {
        rc = schedule_request_switch(h->schedule);
    }
    if ((rc == 0) && (schedule_in_force() != (int)h->schedule)) {
        guest_log(g, "guest '%s': health: schedule '%s' from frame %lu\n", g->cfg->name,
                  h->schedule_name, (unsigned long)schedule_switch_frame());
    } else if (rc != 0) {
        guest_log(g, "guest '%s': health: schedule '%s' not switched to: %s\n", g->cfg->name,
                  h->schedule_name,
                  (rc == SCHEDULE_E_BUSY) ? "a switch is pending" : "no schedules");
    } else {
        /* in force already: said above */
    }
}

/* Boot CPU: g's event e (count in its period, arg) met with its action */
static void health_act(struct guest *g, unsigned int e, uint32_t count, uint32_t arg)
{
    unsigned int a = g->cfg->health.action[e];
    if (a == HEALTH_ACT_NONE) {
        return;
    }
    (void)health_log_add(g->id, e, a, count, arg);
    if (e == HEALTH_EV_WATCHDOG) {
        guest_log(g, "guest '%s': watchdog expired (not fed for %lu ms): %s\n", g->cfg->name,
                  (unsigned long)g->cfg->watchdog_ms,
                  a == HEALTH_ACT_RESTART ? "restarting" : a == HEALTH_ACT_LOG ? "logged"
                                                                                : "stopping");
    } else {
        guest_log(g, "guest '%s': health: %s (%lu): %s\n", g->cfg->name,
                  health_event_names[e], (unsigned long)count, health_action_names[a]);
    }
    switch (a) {
    case HEALTH_ACT_LOG:
        /* a watchdog only logged watches on: its next deadline from now */
        if ((e == HEALTH_EV_WATCHDOG) && (g->state == GUEST_RUNNING)) {
            (void)guest_watchdog_feed(g);
        }
        break;
    case HEALTH_ACT_RESTART:
        /* a crashed guest restarts by its restart_pending (on-crash) */
        if (e != HEALTH_EV_CRASH) {
            (void)guest_op_restart(g);
        }
        break;
    case HEALTH_ACT_STOP:
        if (e != HEALTH_EV_CRASH) {
            (void)guest_op_stop(g);
        }
        break;
    case HEALTH_ACT_STOP_SYSTEM:
        stop_system(g, e);
        break;
    case HEALTH_ACT_SWITCH_SCHEDULE:
        health_switch_schedule(g);
        break;
    default:
        break;
    }
    watchdog_arm();
}

void health_crash(struct guest *g)
{
    (void)__atomic_or_fetch(&hstate[g->id].pending, 1u << HEALTH_EV_CRASH, __ATOMIC_SEQ_CST);
    sched_cpu0_work();
}

void health_watchdog(struct guest *g)
{
    health_act(g, HEALTH_EV_WATCHDOG, 1, g->cfg->watchdog_ms);
}

int health_deadline_miss(struct guest *g, uint32_t tag)
{
    struct health_state *s = &hstate[g->id];
    const struct guest_health *h = &g->cfg->health;
    /* the tag before the count, released with it: the boot CPU that sees
     * the count reach the threshold (count_of, acquire) records this
     * call's tag, not the one before it */
    s->tag = tag;
    uint32_t n = __atomic_add_fetch(&s->misses, 1, __ATOMIC_RELEASE);
    if (h->action[HEALTH_EV_DEADLINE] == HEALTH_ACT_NONE) {
        return -1;
    }
    uint32_t bit = 1u << HEALTH_EV_DEADLINE;
    /* once a period: the first call to reach the threshold asks */
    if (((n - s->base[HEALTH_EV_DEADLINE]) >= h->count[HEALTH_EV_DEADLINE]) &&
        (((uint32_t)__atomic_fetch_or(&s->pending, bit, __ATOMIC_SEQ_CST) & bit) == 0u) &&
        ((s->fired & bit) == 0u)) {
        sched_cpu0_work();
    }
    return 0;
}

/* Boot CPU: g's counted events - a threshold reached fires, a period over
 * starts the next one */
static void check_counts(struct guest *g, uint64_t now)
{
    struct health_state *s = &hstate[g->id];
    const struct guest_health *h = &g->cfg->health;
    for (unsigned int e = HEALTH_EV_COUNTED; (e < HEALTH_EVENTS) && (g->state == GUEST_RUNNING);
         e++) {
        if (!s->end[e]) {
            continue;
        }
        uint32_t bit = 1u << e, n = count_of(g, e) - s->base[e];
        if (!(s->fired & bit) && n >= h->count[e]) {
            s->fired |= bit;
            health_act(g, e, n, e == HEALTH_EV_DEADLINE ? s->tag : 0u);
        }
        if (g->state != GUEST_RUNNING || !s->end[e] || now < s->end[e]) {
            continue;
        }
        /* the next period, on the grid of the first (a late pass skips) */
        uint64_t p = timer_us_to_ticks(h->period_us[e]);
        s->end[e] += ((now - s->end[e]) / p + 1u) * p;
        s->base[e] = count_of(g, e);
        s->fired &= ~bit;
        (void)__atomic_and_fetch(&s->pending, ~bit, __ATOMIC_SEQ_CST);
    }
}

void health_service(void)
{
    uint64_t now = timer_now();
    due = false;
    for (unsigned int i = 0u; i < nguests; i++) {
        struct guest *g = &guests[i];
        struct health_state *s = &hstate[i];
        if (((uint32_t)__atomic_fetch_and(&s->pending, ~(1u << HEALTH_EV_CRASH), __ATOMIC_SEQ_CST) &
             (1u << HEALTH_EV_CRASH)) != 0u) {
            health_act(g, HEALTH_EV_CRASH, 1, g->crash.pc);
        }
        if (g->state == GUEST_RUNNING) {
            check_counts(g, now);
        }
    }
    watchdog_arm();
}

uint64_t health_next_deadline(void)
{
    uint64_t next = 0u;
    for (unsigned int i = 0u; i < nguests && !due; i++) {
        for (unsigned int e = HEALTH_EV_COUNTED; e < HEALTH_EVENTS; e++) {
            uint64_t d = hstate[i].end[e];
            if (d && guests[i].state == GUEST_RUNNING && (!next || d < next)) {
                next = d;
            }
        }
    }
    return next;
}

bool health_due(uint64_t now)
{
    uint64_t next = health_next_deadline();
    if (!next || now < next) {
        return false;
    }
    due = true;     /* not armed again until the pass has looked */
    return true;
}
