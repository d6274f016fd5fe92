/*
 * Memory-bandwidth budgets (docs/configuration.md, "Memory-bandwidth
 * budgets"): a partition configured with memory-budget may cause so many
 * PMU events per period, all its vCPUs together (the pool of
 * hyp/sched/budget_pool.h).  Each of its CPUs counts them on the PMU
 * counter the hypervisor keeps (HDCR.HPMN, hyp/arch/pmu.h), whose overflow
 * says a grant is spent; a vCPU that finds the pool empty is held off its
 * CPU (VCPU_REQ_THROTTLE: its interrupts wait for it) until its CPU's
 * hypervisor timer starts the next period.  A partition without a budget
 * meets none of it: no counter, no timer, no exit.
 */
#ifndef HYP_SCHED_BUDGET_H
#define HYP_SCHED_BUDGET_H

#include <stdint.h>
#include <stdbool.h>
#include "budget_pool.h"

struct vcpu;
struct vm;
struct system_config;

/* boot, before any guest starts: the budgets of the configured guests
 * (vm_of(i) is sys->guest_cfg[i]'s; the scheduler sees a guest only as its
 * struct vm); false if the PMU cannot keep them */
bool budget_init(const struct system_config *sys, struct vm *(*vm_of)(unsigned int i));
/* a vCPU powered on, on its own CPU: its CPU counts for its partition */
void budget_vcpu_on(struct vcpu *v);
/* guest id's budget and its use (the management ABI's PARTITA_MG_BUDGET,
 * the monitor's budget command); false: it has none */
struct partita_budget;
bool budget_fill(unsigned int id, struct partita_budget *o);
/* a new budget for guest id from its next period; false: it has none, or
 * events or period_us is 0 or out of range */
bool budget_set(unsigned int id, uint32_t events, uint32_t period_us);

#endif
