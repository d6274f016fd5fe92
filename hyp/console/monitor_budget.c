/*
 * The monitor's budget command (docs/monitor.md): a partition's
 * memory-bandwidth budget and its use (hyp/sched/budget.h), and a new
 * budget from its next period.
 */
#include <stdbool.h>
#include <stdint.h>
#include "monitor_cmds.h"
#include "hyp/guest/guest.h"
#include "hyp/lib/console.h"
#include "hyp/sched/budget.h"
#include <partita/manage_abi.h>

/* a decimal number of at most 32 bits, all of s */
static bool parse_u32(const char *s, uint32_t *out)
{
    uint64_t n = 0u;
    if (!*s) {
        return false;
    }
    for (; *s; s++) {
        if (*s < '0' || *s > '9') {
            return false;
        }
        n = n * 10u + (uint64_t)(*s - '0');
        if (n > 0xffffffffu) {
            return false;
        }
    }
    *out = (uint32_t)n;
    return true;
}

static uint64_t u64(uint32_t lo, uint32_t hi)
{
    return (uint64_t)hi << 32 | lo;
}

static void show(const struct guest *g)
{
    struct partita_budget p;
    if (!budget_fill(g->id, &p)) {
        pr_info("%-12s none\n", g->cfg->name);
        return;
    }
    pr_info("%-12s %lu/%lu us (next %lu/%lu) period %lu: last %llu, %lu periods, %lu over "
            "(most %llu), used %llu of %llu, %lu throttles\n", g->cfg->name,
            (unsigned long)p.events, (unsigned long)p.period_us, (unsigned long)p.next_events,
            (unsigned long)p.next_period_us, (unsigned long)p.period,
            u64(p.last_used_lo, p.last_used_hi), (unsigned long)p.periods,
            (unsigned long)p.overruns, u64(p.max_over_lo, p.max_over_hi),
            u64(p.total_used_lo, p.total_used_hi), u64(p.total_allowed_lo, p.total_allowed_hi),
            (unsigned long)p.throttles);
}

void cmd_budget(int argc, char **argv)
{
    if (argc == 1) {
        for (unsigned int i = 0u; i < nguests; i++) {
            show(&guests[i]);
        }
        if (!nguests) {
            pr_info("(no guests configured)\n");
        }
        return;
    }
    struct guest *g = guest_by_name(argv[1]);
    if (!g) {
        pr_info("budget: no guest '%s'\n", argv[1]);
        return;
    }
    if (argc == 2) {
        show(g);
        return;
    }
    uint32_t events, period;
    if (argc != 4 || !parse_u32(argv[2], &events) || !parse_u32(argv[3], &period)) {
        pr_info("budget: give NAME EVENTS PERIOD-US\n");
        return;
    }
    if (!budget_set(g->id, events, period)) {
        pr_info("budget: no budget, or not one (events > 0, 100 to 10000000 us)\n");
    } else {
        pr_info("budget: '%s' from its next period\n", g->cfg->name);
    }
}
