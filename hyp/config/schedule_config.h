/*
 * Cyclic schedules as the configuration describes them
 * (docs/temporal-isolation.md, hyp/config/config_schedule.c): a major
 * frame and, per physical CPU under the schedules, a table of windows,
 * each the time one guest's vCPU on that CPU may run.  Plain data: the
 * host unit tests check every error of it.
 */
#ifndef HYP_SCHEDULE_CONFIG_H
#define HYP_SCHEDULE_CONFIG_H

#include <stdint.h>

#define SCHED_MAX          4u       /* named schedules */
#define SCHED_CPUS         8u       /* physical CPUs a schedule may name */
#define SCHED_WINDOWS_MAX  16u      /* windows per CPU and schedule */
/* a window or a frame is at least 10 us (each start is an interrupt and
 * a world switch), a frame at most 10 s */
#define SCHED_MIN_US       10u
#define SCHED_FRAME_MAX_US 10000000u

struct sched_window {
    uint32_t offset_us;             /* from the frame's start */
    uint32_t length_us;
    uint32_t guest;                 /* index in system_config.guest_cfg */
};

struct sched_table {
    uint32_t nwindows;              /* by offset; the gaps between them are idle */
    struct sched_window w[SCHED_WINDOWS_MAX];
};

struct schedule_config {
    char name[32];
    uint32_t frame_us;              /* major-frame-us */
    struct sched_table cpu[SCHED_CPUS];
};

struct schedules_config {
    uint32_t n;                     /* 0: no cyclic schedule, CPUs as configured */
    uint32_t boot;                  /* the one in force at boot */
    uint32_t nboot;                 /* how many say boot (one, or none of one) */
    uint32_t cpus;                  /* bit per physical CPU with a table */
    struct schedule_config s[SCHED_MAX];
};

#endif
