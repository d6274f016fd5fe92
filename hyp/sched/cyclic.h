/*
 * Cyclic schedules (docs/temporal-isolation.md): on the physical CPUs the
 * configuration's partita,schedule nodes give tables to, each guest's vCPU
 * runs only in its windows.  Window starts are computed from the
 * schedule's epoch (epoch + frame k's start + the window's offset, the
 * frames' ends kept exact in counter ticks), never from "now", so they do
 * not drift; a window's end is a hypervisor-timer interrupt that takes the
 * vCPU off its CPU whatever it does.  Several named schedules: a switch
 * takes effect at a major-frame boundary, on every CPU at the same one.
 * A configuration without schedules meets none of it.
 */
#ifndef HYP_SCHED_CYCLIC_H
#define HYP_SCHED_CYCLIC_H

#include <stdint.h>
#include <stdbool.h>

struct pcpu;
struct vm;
struct system_config;

/* boot, before guests_init: the CPUs under the schedules (their loop is
 * sched_cyclic_loop from the first time they are shared) */
void sched_cyclic_prepare(const struct system_config *sys);
/* boot, after guests_init: the windows' vCPUs (vm_of(i) is guest i's),
 * the epoch; the CPUs start their first frame together */
void sched_cyclic_start(const struct system_config *sys, struct vm *(*vm_of)(unsigned int i));
/* is CPU cpu under the schedules? */
bool sched_cyclic_cpu(unsigned int cpu);
/* the loop of a CPU under the schedules: never returns */
void sched_cyclic_loop(struct pcpu *c) __attribute__((noreturn));

/*
 * Put schedule index in force at the next major-frame boundary but one
 * of the schedule in force (the same boundary on every CPU): the monitor,
 * the control partition, a health monitor's action.  0, or
 * SCHEDULE_E_INVALID (no such schedule, or no schedules),
 * SCHEDULE_E_BUSY (a switch is pending still).  From any CPU.
 */
#define SCHEDULE_E_INVALID (-2)
#define SCHEDULE_E_BUSY    (-6)
int schedule_request_switch(unsigned int index);
/* the frame the last switch requested takes effect at */
uint32_t schedule_switch_frame(void);
/* the index of a schedule by name, or -1 */
int schedule_find(const char *name);

/* What a CPU under the schedules measured (counter ticks) */
struct cyclic_stats {
    uint32_t frame;         /* the frame it is in (counted from the epoch) */
    uint32_t starts;        /* windows whose vCPU it put on the CPU */
    uint32_t late_max;      /* the latest such start after the window's */
    uint32_t over_max;      /* the longest a vCPU stayed past its window */
    uint64_t switch_tick;   /* the start of the frame of the last switch (0: none) */
    uint32_t switch_frame;  /* its number */
};
/* schedules configured (0: none); the one in force (on the CPUs) and the
 * one pending (-1: none) */
unsigned int schedule_count(void);
int schedule_in_force(void);
int schedule_pending(void);
/* CPU cpu's measurements; false if it is not under the schedules */
bool schedule_cpu_stats(unsigned int cpu, struct cyclic_stats *o);
/* the configuration of schedule index (NULL: none) */
const struct schedule_config *schedule_config_of(unsigned int index);
/* the management ABI's PARTITA_MG_SCHEDULE; false: no schedules */
struct partita_schedule;
bool schedule_fill(struct partita_schedule *o);
/* the epoch (CNTPCT), for the monitor */
uint64_t schedule_epoch(void);

#endif
