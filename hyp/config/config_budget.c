/*
 * memory-budget = <EVENTS PERIOD-US> and memory-budget-event = <EVENT>
 * (docs/configuration.md, "Memory-bandwidth budgets"): a partition may
 * cause EVENTS of the PMU event EVENT per PERIOD-US, all its vCPUs
 * together; the hypervisor counts them on the PMU counter it keeps for
 * itself (hyp/sched/budget.c).
 */
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

/* Level 2 data cache refill, a common event of the ARM ARM (C12.8,
 * "Common microarchitectural events"): what a partition reads from
 * memory past the shared L2, its share of the bus */
#define BUDGET_EVENT_DEFAULT 0x17u
/* PMXEVTYPER.evtCount is 8 bits in PMUv2 (B4.1.128) */
#define BUDGET_EVENT_MAX     0xffu

void config_parse_budget(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c)
{
    int len;
    const fdt32_t *v = dt_getprop(fdt, node, "memory-budget", &len);
    g->budget_event = BUDGET_EVENT_DEFAULT;
    int ev = cfg_get_u32(fdt, node, "memory-budget-event", &g->budget_event);
    if (ev < 0) {
        cfg_msg(c, true, g->name, "memory-budget-event", "must be one 32-bit cell");
    } else if (g->budget_event > BUDGET_EVENT_MAX) {
        cfg_msg(c, true, g->name, "memory-budget-event", "0x%lx: events are 0 to 0x%x",
                (unsigned long)g->budget_event, BUDGET_EVENT_MAX);
    } else {
        /* otherwise nothing to do */
    }
    if (!v) {
        if (ev > 0) {
            cfg_msg(c, true, g->name, "memory-budget-event", "no memory-budget");
        }
        return;
    }
    if (len != 8) {
        cfg_msg(c, true, g->name, "memory-budget", "give <EVENTS PERIOD-US>");
        return;
    }
    uint32_t events = fdt32_ld(&v[0]), period = fdt32_ld(&v[1]);
    if (!events) {
        cfg_msg(c, true, g->name, "memory-budget", "0 events");
    }
    if (period < GUEST_BUDGET_PERIOD_MIN_US || period > GUEST_BUDGET_PERIOD_MAX_US) {
        cfg_msg(c, true, g->name, "memory-budget", "period %lu us: give %u to %u",
                (unsigned long)period, GUEST_BUDGET_PERIOD_MIN_US, GUEST_BUDGET_PERIOD_MAX_US);
    }
    g->budget_events = events;
    g->budget_period_us = period;
}

/*
 * What a budget needs: a PMU with at least one counter and its interrupt
 * (the hypervisor keeps the highest counter), and CPUs of the guest's
 * own.  A shared CPU would have to move the counter with the vCPU at every
 * switch, and a direct guest takes the PMU's interrupt itself: neither is
 * done, so both are refused rather than left unregulated.  pmu = "off"
 * works with a budget: the counter is the hypervisor's, not the guest's.
 */
void config_check_budget(const struct config_host *h, const struct guest_config *g,
                         struct cfg_ctx *c)
{
    if (!g->budget_events) {
        return;
    }
    if (!h || !h->pmu_counters) {
        cfg_msg(c, true, g->name, "memory-budget", "no PMU with an interrupt to count it");
    }
    if (g->slice_us != 0u) {
        cfg_msg(c, true, g->name, "memory-budget", "needs CPUs of its own: no time-slice-us");
    }
    if (g->irq_mode == IRQ_DIRECT) {
        cfg_msg(c, true, g->name, "memory-budget", "not with interrupts = \"direct\"");
    }
}
