/*
 * A guest's health table (docs/temporal-isolation.md, "Health monitor"):
 * which of its events the hypervisor acts on, and how.  The configuration
 * parses it (config_health.c); the guest layer counts the events and acts
 * (hyp/guest/health.c).
 */
#ifndef HYP_HEALTH_CONFIG_H
#define HYP_HEALTH_CONFIG_H

#include <stdint.h>
#include <partita/manage_abi.h>

/* The events, in the order of health_event_names.  The first two happen
 * once (a crash, a watchdog miss); the rest are counted, and an event is a
 * count reaching its threshold within a period.  They index the tables
 * below and the per-event state of hyp/guest/health.c, so they are
 * unsigned constants (MISRA C:2012 rule 10.4) rather than an enumeration. */
/* marked crashed (guest_crash) */
#define HEALTH_EV_CRASH    ((unsigned int)PARTITA_HEALTH_CRASH)
/* its watchdog not fed in time */
#define HEALTH_EV_WATCHDOG ((unsigned int)PARTITA_HEALTH_WATCHDOG)
/* aborts it took (injected for its bad accesses) */
#define HEALTH_EV_ABORTS   ((unsigned int)PARTITA_HEALTH_ABORT_STORM)
/* its vCPUs held for a spent memory budget */
#define HEALTH_EV_OVERRUN  ((unsigned int)PARTITA_HEALTH_BUDGET_OVERRUN)
/* deadline misses it reported (PARTITA_HC_DEADLINE_MISS) */
#define HEALTH_EV_DEADLINE ((unsigned int)PARTITA_HEALTH_DEADLINE_MISS)
#define HEALTH_EVENTS      (HEALTH_EV_DEADLINE + 1u)
#define HEALTH_EV_COUNTED  HEALTH_EV_ABORTS     /* the first counted event */

/*
 * The actions, in the order of health_action_names; HEALTH_ACT_NONE: the
 * event is not in the table.  They are unsigned constants, as the events
 * are.  A new action is one value here, its name there, and its case in
 * health_act (hyp/guest/health.c).
 */
#define HEALTH_ACT_NONE        ((unsigned int)PARTITA_HEALTH_NONE)
/* a console line, a record in the log */
#define HEALTH_ACT_LOG         ((unsigned int)PARTITA_HEALTH_LOG)
/* restarted from its image */
#define HEALTH_ACT_RESTART     ((unsigned int)PARTITA_HEALTH_RESTART)
/* stopped (a crashed one stays so) */
#define HEALTH_ACT_STOP        ((unsigned int)PARTITA_HEALTH_STOP)
/* every guest stopped; the monitor answers on */
#define HEALTH_ACT_STOP_SYSTEM ((unsigned int)PARTITA_HEALTH_STOP_SYSTEM)
/* the cyclic schedule the health node's `schedule` names put in force
 * at the next major frame but one (hyp/sched/cyclic.h) */
#define HEALTH_ACT_SWITCH_SCHEDULE ((unsigned int)PARTITA_HEALTH_SWITCH_SCHEDULE)
#define HEALTH_ACTIONS             (HEALTH_ACT_SWITCH_SCHEDULE + 1u)

/* a counted event's threshold: COUNT within PERIOD-US, by default 1 a second */
#define HEALTH_COUNT_DEFAULT     1u
#define HEALTH_COUNT_MAX         1000000u
#define HEALTH_PERIOD_DEFAULT_US 1000000u
/* a period is a window of the boot CPU's timer: at least 1 ms, at most a minute */
#define HEALTH_PERIOD_MIN_US     1000u
#define HEALTH_PERIOD_MAX_US     60000000u

struct guest_health {
    uint8_t action[HEALTH_EVENTS];          /* HEALTH_ACT_* */
    /* switch-schedule's schedule: its name in the configuration (the blob
     * stays), its index once the schedules are read (config_schedule.c) */
    const char *schedule_name;
    uint32_t schedule;
    uint32_t count[HEALTH_EVENTS];          /* counted events: the threshold, */
    uint32_t period_us[HEALTH_EVENTS];      /* within so many microseconds */
};

/* "crash", "watchdog", "abort-storm", "budget-overrun", "deadline-miss" */
extern const char *const health_event_names[HEALTH_EVENTS];
/* "none", "log", "restart", "stop", "stop-system", "switch-schedule" */
extern const char *const health_action_names[HEALTH_ACTIONS];

#endif
