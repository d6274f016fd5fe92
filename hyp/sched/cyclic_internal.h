/* What cyclic.c (the CPUs' loop, the timer) and cyclic_ctl.c (switching,
 * what the monitor and the control partition read) share; not for the
 * rest of the hypervisor. */
#ifndef HYP_SCHED_CYCLIC_INTERNAL_H
#define HYP_SCHED_CYCLIC_INTERNAL_H

#include <stdint.h>
#include <stdbool.h>
#include "cyclic.h"
#include "hyp/config/schedule_config.h"
#include "hyp/lib/spinlock.h"

struct vcpu;

/* one window in counter ticks from its frame's start */
struct cwin {
    uint64_t start;
    uint64_t end;
    struct vcpu *v;
};

/* one schedule as the CPUs run it: the frame is q + r / 10^6 ticks */
struct csched {
    const struct schedule_config *cfg;
    uint64_t q;
    uint32_t r;
    uint32_t n[SCHED_CPUS];
    struct cwin w[SCHED_CPUS][SCHED_WINDOWS_MAX];
};

/* one CPU under the schedules */
struct ccpu {
    unsigned int sched;         /* in force here */
    volatile uint32_t frame;    /* the frame's number, from the cyc_epoch */
    uint64_t frame_start;       /* CNTPCT */
    uint32_t acc;               /* the frame start's fraction of a tick, in 10^-6 */
    struct vcpu *cur;           /* the window's vCPU; NULL: a gap */
    uint64_t seg_start;         /* the window's (or gap's) bounds */
    uint64_t seg_end;
    uint32_t seg_id;            /* which window it is */
    uint32_t entered;           /* the last one started */
    struct cyclic_stats st;
};

extern struct csched cyc_scheds[SCHED_MAX];
extern unsigned int cyc_nscheds;
extern uint32_t cyc_cpu_mask;
extern struct ccpu cyc_cpus[SCHED_CPUS];
extern uint64_t cyc_epoch;
extern volatile bool cyc_started;
/* a switch: to schedule cyc_switch_to - 1 at the start of frame cyc_switch_frame */
extern volatile uint32_t cyc_switch_to;
extern volatile uint32_t cyc_switch_frame;

#endif
