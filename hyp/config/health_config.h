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
 * count reaching its threshold within a period. */
enum health_event {
    HEALTH_EV_CRASH = PARTITA_HEALTH_CRASH,         /* marked crashed (guest_crash) */
    HEALTH_EV_WATCHDOG = PARTITA_HEALTH_WATCHDOG,   /* its watchdog not fed in time */
    /* aborts it took (injected for its bad accesses) */
    HEALTH_EV_ABORTS = PARTITA_HEALTH_ABORT_STORM,
    /* its vCPUs held for a spent memory budget */
    HEALTH_EV_OVERRUN = PARTITA_HEALTH_BUDGET_OVERRUN,
    /* deadline misses it reported (PARTITA_HC_DEADLINE_MISS) */
    HEALTH_EV_DEADLINE = PARTITA_HEALTH_DEADLINE_MISS,
    HEALTH_EVENTS
};
#define HEALTH_EV_COUNTED HEALTH_EV_ABORTS      /* the first counted event */

/*
 * The actions, in the order of health_action_names; HEALTH_ACT_NONE: the
 * event is not in the table.  A new action (switching to another cyclic
 * schedule, say) is one value here, its name there, and its case in
 * health_act (hyp/guest/health.c).
 */
enum health_action {
    HEALTH_ACT_NONE = PARTITA_HEALTH_NONE,
    HEALTH_ACT_LOG = PARTITA_HEALTH_LOG,            /* a console line, a record in the log */
    HEALTH_ACT_RESTART = PARTITA_HEALTH_RESTART,    /* restarted from its image */
    HEALTH_ACT_STOP = PARTITA_HEALTH_STOP,          /* stopped (a crashed one stays so) */
    /* every guest stopped; the monitor answers on */
    HEALTH_ACT_STOP_SYSTEM = PARTITA_HEALTH_STOP_SYSTEM,
    /* the cyclic schedule the health node's `schedule` names put in force
     * at the next major frame but one (hyp/sched/cyclic.h) */
    HEALTH_ACT_SWITCH_SCHEDULE = PARTITA_HEALTH_SWITCH_SCHEDULE,
    HEALTH_ACTIONS
};

/* a counted event's threshold: COUNT within PERIOD-US, by default 1 a second */
#define HEALTH_COUNT_DEFAULT     1u
#define HEALTH_COUNT_MAX         1000000u
#define HEALTH_PERIOD_DEFAULT_US 1000000u
/* a period is a window of the boot CPU's timer: at least 1 ms, at most a minute */
#define HEALTH_PERIOD_MIN_US     1000u
#define HEALTH_PERIOD_MAX_US     60000000u

struct guest_health {
    uint8_t action[HEALTH_EVENTS];          /* enum health_action */
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
