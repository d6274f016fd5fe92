/*
 * A guest's health node (docs/temporal-isolation.md, "Health monitor"):
 *
 *     health {
 *         crash = "restart";
 *         abort-storm = "stop";
 *         abort-storm-threshold = <100 1000000>;
 *     };
 *
 * Each event a property naming its action; a counted event may have a
 * threshold <COUNT PERIOD-US>.  on-crash and watchdog-action say what the
 * crash and watchdog entries say: either may be given, both only when they
 * agree.  Every error names the guest and "health/PROPERTY".
 */
#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

const char *const health_event_names[HEALTH_EVENTS] = {
    "crash", "watchdog", "abort-storm", "budget-overrun", "deadline-miss",
};

const char *const health_action_names[HEALTH_ACTIONS] = {
    "none", "log", "restart", "stop", "stop-system", "switch-schedule",
};

#define HEALTH_PROP_MAX 48      /* "health/" and the longest "...-threshold" */

static const char *hprop(char *buf, const char *p)
{
    return cfg_member_prop(buf, HEALTH_PROP_MAX, "health", p);
}

/* An action's name: its HEALTH_ACT_*, or HEALTH_ACT_NONE */
static unsigned int action_of(const char *s)
{
    for (unsigned int a = HEALTH_ACT_LOG; a < HEALTH_ACTIONS; a++) {
        if (strcmp(s, health_action_names[a]) == 0) {
            return a;
        }
    }
    return HEALTH_ACT_NONE;
}

/* Is pn one of the node's properties: an event, or a counted one's threshold? */
static bool health_prop_known(const char *pn)
{
    bool known = strcmp(pn, "schedule") == 0;
    for (unsigned int e = 0u; (e < HEALTH_EVENTS) && !known; e++) {
        size_t n = strlen(health_event_names[e]);
        known = (strncmp(pn, health_event_names[e], n) == 0) &&
                ((pn[n] == '\0') ||
                 ((e >= HEALTH_EV_COUNTED) && (strcmp(&pn[n], "-threshold") == 0)));
    }
    return known;
}

static void parse_threshold(const void *fdt, int hn, struct guest_config *g, unsigned int e,
                            struct cfg_ctx *c)
{
    char name[HEALTH_PROP_MAX], buf[HEALTH_PROP_MAX];
    struct guest_health *h = &g->health;
    h->count[e] = HEALTH_COUNT_DEFAULT;
    h->period_us[e] = HEALTH_PERIOD_DEFAULT_US;
    (void)snprintf(name, sizeof(name), "%s-threshold", health_event_names[e]);
    int len;
    const fdt32_t *v = dt_getprop(fdt, hn, name, &len);
    if (!v) {
        return;
    }
    if (h->action[e] == HEALTH_ACT_NONE) {
        cfg_msg(c, true, g->name, hprop(buf, name), "no %s entry to count for",
                health_event_names[e]);
        return;
    }
    if (len != 8) {
        cfg_msg(c, true, g->name, hprop(buf, name), "give <COUNT PERIOD-US>");
        return;
    }
    uint32_t n = fdt32_ld(&v[0]), us = fdt32_ld(&v[1]);
    if (!n || n > HEALTH_COUNT_MAX) {
        cfg_msg(c, true, g->name, hprop(buf, name), "count %lu: give 1 to %u",
                (unsigned long)n, HEALTH_COUNT_MAX);
    }
    if (us < HEALTH_PERIOD_MIN_US || us > HEALTH_PERIOD_MAX_US) {
        cfg_msg(c, true, g->name, hprop(buf, name), "period %lu us: give %u to %u",
                (unsigned long)us, HEALTH_PERIOD_MIN_US, HEALTH_PERIOD_MAX_US);
    }
    h->count[e] = n;
    h->period_us[e] = us;
}

/* on-crash or watchdog-action (given: present in the guest node) as the
 * crash or watchdog entry, or checked against it */
static void merge_legacy(struct guest_config *g, unsigned int e, const char *legacy, bool given,
                         bool restart, struct cfg_ctx *c)
{
    char buf[HEALTH_PROP_MAX];
    unsigned int was = restart ? HEALTH_ACT_RESTART : HEALTH_ACT_STOP;
    if (g->health.action[e] == HEALTH_ACT_NONE) {
        g->health.action[e] = (uint8_t)was;
    } else if (given && (g->health.action[e] != was)) {
        cfg_msg(c, true, g->name, hprop(buf, health_event_names[e]),
                "\"%s\" contradicts %s \"%s\"", health_action_names[g->health.action[e]],
                legacy, health_action_names[was]);
    } else {
        /* otherwise nothing to do */
    }
}

/* Does any event of g switch schedules? */
bool config_health_switches(const struct guest_config *g)
{
    bool any = false;
    for (unsigned int e = 0u; e < (unsigned int)HEALTH_EVENTS; e++) {
        any = any || ((uint32_t)g->health.action[e] == (uint32_t)HEALTH_ACT_SWITCH_SCHEDULE);
    }
    return any;
}

/* `schedule`: the one switch-schedule puts in force; checked against the
 * schedules when they are read (config_check_schedules) */
static void parse_health_schedule(const void *fdt, int hn, struct guest_config *g, struct cfg_ctx *c)
{
    char buf[HEALTH_PROP_MAX];
    bool bad = false;
    const char *s = (hn >= 0) ? cfg_get_string(fdt, hn, "schedule", &bad) : NULL;
    if (bad) {
        cfg_msg(c, true, g->name, hprop(buf, "schedule"), "not a string");
    } else if ((s != NULL) && !config_health_switches(g)) {
        cfg_msg(c, true, g->name, hprop(buf, "schedule"), "no event switches schedules");
    } else if ((s == NULL) && config_health_switches(g)) {
        cfg_msg(c, true, g->name, hprop(buf, "schedule"),
                "switch-schedule needs the schedule to switch to");
    } else {
        g->health.schedule_name = s;
    }
}

void config_parse_health(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    char buf[HEALTH_PROP_MAX];
    struct guest_health *h = &g->health;
    (void)memset(h, 0, sizeof(*h));
    int hn = fdt_subnode_offset(fdt, node, "health");
    int prop;
    if (hn >= 0) {
        fdt_for_each_property_offset(prop, fdt, hn) {
            const char *pn = NULL;
            if (fdt_getprop_by_offset(fdt, prop, &pn, NULL) && pn && !health_prop_known(pn)) {
                cfg_msg(c, true, g->name, hprop(buf, pn), "no such event");
            }
        }
    }
    for (unsigned int e = 0u; (hn >= 0) && (e < HEALTH_EVENTS); e++) {
        bool bad;
        const char *s = cfg_get_string(fdt, hn, health_event_names[e], &bad);
        if (bad) {
            cfg_msg(c, true, g->name, hprop(buf, health_event_names[e]), "not a string");
        } else if (s && action_of(s) == HEALTH_ACT_NONE) {
            cfg_msg(c, true, g->name, hprop(buf, health_event_names[e]),
                    "\"%s\": use \"log\", \"restart\", \"stop\", \"stop-system\" or "
                    "\"switch-schedule\"", s);
        } else if (s != NULL) {
            h->action[e] = (uint8_t)action_of(s);
        } else {
            /* otherwise nothing to do */
        }
        if (e >= HEALTH_EV_COUNTED) {
            parse_threshold(fdt, hn, g, e, c);
        }
    }
    merge_legacy(g, HEALTH_EV_CRASH, "on-crash", dt_getprop(fdt, node, "on-crash", NULL) != NULL,
                 g->on_crash == ON_CRASH_RESTART, c);
    g->on_crash = h->action[HEALTH_EV_CRASH] == HEALTH_ACT_RESTART ? ON_CRASH_RESTART
                                                                  : ON_CRASH_STOP;
    if (!g->watchdog_ms) {
        if (h->action[HEALTH_EV_WATCHDOG] != HEALTH_ACT_NONE) {
            cfg_msg(c, true, g->name, hprop(buf, "watchdog"), "the guest has no watchdog");
        }
    } else {
        merge_legacy(g, HEALTH_EV_WATCHDOG, "watchdog-action",
                     dt_getprop(fdt, node, "watchdog-action", NULL) != NULL,
                     g->watchdog_action == ON_CRASH_RESTART, c);
        g->watchdog_action = h->action[HEALTH_EV_WATCHDOG] == HEALTH_ACT_RESTART
                                 ? ON_CRASH_RESTART : ON_CRASH_STOP;
    }
    if (!g->budget_events && h->action[HEALTH_EV_OVERRUN] != HEALTH_ACT_NONE) {
        cfg_msg(c, true, g->name, hprop(buf, "budget-overrun"), "the guest has no memory-budget");
    }
    parse_health_schedule(fdt, hn, g, c);
}

void config_check_health_schedules(struct system_config *sys, struct cfg_ctx *c)
{
    char buf[HEALTH_PROP_MAX];
    for (unsigned int i = 0u; i < sys->nguest_cfg; i++) {
        struct guest_config *g = &sys->guest_cfg[i];
        const char *name = g->health.schedule_name;
        unsigned int k = 0u;
        while ((name != NULL) && (k < sys->sched.n) && (strcmp(sys->sched.s[k].name, name) != 0)) {
            k++;
        }
        if ((name != NULL) && (k == sys->sched.n)) {
            cfg_msg(c, true, g->name, hprop(buf, "schedule"), "no schedule '%s'", name);
        }
        g->health.schedule = k;
    }
}
