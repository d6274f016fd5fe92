/*
 * The monitor's health command (docs/monitor.md): the health monitor's
 * log (hyp/guest/health.h), oldest first, every guest's or one guest's,
 * and whether a stop-system action stopped every guest, for whose event.
 */
#include <stdint.h>
#include "monitor_cmds.h"
#include "hyp/guest/guest.h"
#include "hyp/guest/health.h"
#include "hyp/lib/console.h"
#include "timer/timer.h"

static const char *name_of(uint32_t id)
{
    return id < nguests ? guests[id].cfg->name : "?";
}

/* counter ticks as seconds and microseconds */
static void print_time(const char *what, uint64_t ticks)
{
    uint64_t us = timer_ticks_to_us(ticks);
    pr_info("%s%lu.%06lu s", what, (unsigned long)(us / 1000000u), (unsigned long)(us % 1000000u));
}

void cmd_health(int argc, char **argv)
{
    struct partita_health_record r;
    int id = -1;
    if (argc > 1) {
        struct guest *g = guest_by_name(argv[1]);
        if (!g) {
            pr_info("health: no guest '%s'\n", argv[1]);
            return;
        }
        id = (int)g->id;
    }
    unsigned int guest, event;
    uint64_t ticks;
    if (health_system_stopped(&guest, &event, &ticks)) {
        print_time("health: system stopped at ", ticks);
        pr_info(": guest '%s': %s: every guest stopped\n", name_of(guest),
                health_event_names[event]);
    } else {
        pr_info("health: system running\n");
    }
    uint32_t next = 0u;
    unsigned int n = 0u;
    while (health_log_read(id, next, &r, 1, &next) != 0u) {
        pr_info("health #%lu ", (unsigned long)r.seq);
        print_time("", (uint64_t)r.ticks_hi << 32 | r.ticks_lo);
        pr_info(" %s: %s (%lu, 0x%lx): %s\n", name_of(r.guest), health_event_names[r.event],
                (unsigned long)r.count, (unsigned long)r.arg, health_action_names[r.action]);
        n++;
    }
    for (unsigned int i = 0u; i < nguests; i++) {
        if ((id < 0 || (unsigned int)id == i) && health_log_dropped(i)) {
            pr_info("health: %s: %lu records dropped (rate limit)\n", name_of(i),
                    (unsigned long)health_log_dropped(i));
        }
    }
    pr_info("health: %u records, next #%lu\n", n, (unsigned long)next);
}
