/*
 * Partita's management ABI (docs/control-partition.md), version 1.2:
 * the calls a guest with the `control` capability makes on the other
 * guests, as hypercalls (SMC32 fast calls, owning entity 6) and through the
 * management page.  Shared by the hypervisor and guest tools (plain C99).
 */
#ifndef PARTITA_MANAGE_ABI_H
#define PARTITA_MANAGE_ABI_H

#include <stdint.h>

#define PARTITA_MANAGE_ABI_MAJOR 1
#define PARTITA_MANAGE_ABI_MINOR 2

/*
 * Calls: r0 = ID, r1 = target guest id, r2 = buffer IPA (in the caller's
 * RAM, all of it, or the call fails with PARTITA_E_ADDRESS), r3 = buffer
 * length, r4 = a further argument.  r0 returns >= 0 or a PARTITA_E_* code.
 */
#define PARTITA_MG_VERSION   0x86000005u /* r0 = ABI major << 16 | minor, r1 = rights,
                                          * r2 = guests in the system, r3 = guests the
                                          * caller may act on (bit per id) */
#define PARTITA_MG_INFO      0x86000006u /* r1 = id: struct partita_guest_info into the
                                          * buffer; r0 = bytes written */
#define PARTITA_MG_START     0x86000007u /* r1 = id: start a stopped/halted/crashed guest */
#define PARTITA_MG_STOP      0x86000008u /* r1 = id */
#define PARTITA_MG_RESTART   0x86000009u /* r1 = id */
#define PARTITA_MG_STATS     0x8600000au /* r1 = id: struct partita_guest_stats; r0 = bytes */
#define PARTITA_MG_CONSOLE_READ  0x8600000bu /* r1 = id, r4 = position: its console output
                                              * from there; r0 = bytes, r1 = next
                                              * position, r2 = bytes lost before them */
#define PARTITA_MG_CONSOLE_WRITE 0x8600000cu /* r1 = id: the buffer as console input;
                                              * r0 = bytes taken */
#define PARTITA_MG_LOAD      0x8600000du /* r1 = id, r4 = offset: one piece of a new
                                          * image (see struct partita_load) */
#define PARTITA_MG_BUDGET    0x8600000eu /* r1 = id: struct partita_budget into the
                                          * buffer; r0 = bytes (-2: it has no budget) */
#define PARTITA_MG_BUDGET_SET 0x8600000fu /* r1 = id, r2 = events, r3 = period in us
                                           * (no buffer): its budget from its next
                                           * period; -2 if it has none or these are no
                                           * budget */
/* r1 = id, r4 = a sequence number: the health monitor's records of guest
 * id from that one on (struct partita_health, then so many struct
 * partita_health_record); r0 = bytes.  Its ID follows the hypercalls
 * (include/partita/hvc.h: PARTITA_HC_MANAGE_HEALTH), outside the range
 * below, which was full */
#define PARTITA_MG_HEALTH    0x86000012u
/* the cyclic schedules' calls, past the health log's (include/partita/hvc.h:
 * PARTITA_HC_MANAGE2_FIRST), outside the range below */
#define PARTITA_MG_SCHEDULE  0x86000013u /* struct partita_schedule into the buffer
                                          * (r1 unused); r0 = bytes (-2: no cyclic
                                          * schedule configured) */
#define PARTITA_MG_SCHEDULE_SET 0x86000014u /* r1 = schedule index (no buffer): in
                                             * force at the start of the frame after
                                             * the next; r0 = 0, r1 = that frame, or -2
                                             * (no such schedule), -6 (a switch is
                                             * pending) */
#define PARTITA_MG_FIRST     PARTITA_MG_VERSION
#define PARTITA_MG_LAST      PARTITA_MG_BUDGET_SET

/* results (negative r0); the PSCI codes where they fit */
#define PARTITA_E_NOT_SUPPORTED  (-1)
#define PARTITA_E_INVALID        (-2)    /* no such guest, a bad length or offset */
#define PARTITA_E_DENIED         (-3)    /* no control right for this call or guest */
#define PARTITA_E_STATE          (-4)    /* the guest's state forbids it (e.g. running) */
#define PARTITA_E_FIT            (-5)    /* the image does not fit the guest's memory */
#define PARTITA_E_BUSY           (-6)    /* the boot CPU did not answer in time */
#define PARTITA_E_ADDRESS        (-9)    /* a buffer outside the caller's RAM */

/* states, as the monitor's list names them */
enum partita_state { PARTITA_STOPPED, PARTITA_RUNNING, PARTITA_HALTED, PARTITA_CRASHED };

#define PARTITA_INFO_VCPUS 8
struct partita_guest_info {
    char name[32];
    uint32_t id, state, nvcpus;
    uint32_t pcpu[PARTITA_INFO_VCPUS];   /* physical CPU of vCPU i */
    uint32_t mem_base_lo, mem_base_hi, mem_size_lo, mem_size_hi;
    uint32_t uptime_s;
    uint32_t exits_lo, exits_hi;
    uint32_t starts;
    uint32_t image_size, image_crc32;    /* the image it boots (CRC-32, IEEE) */
    uint32_t image_loaded;               /* 1: given at run time, 0: configured */
    uint32_t rights;                     /* its own control rights (0: none) */
};

#define PARTITA_TRAPS 11                 /* wfi cp15 cp14 hvc smc mmio abort pabt undef irq vfp */
struct partita_vcpu_stats {
    uint32_t exits_lo, exits_hi;
    uint32_t traps[PARTITA_TRAPS];
    uint32_t injected, maintenance, pcpu;
    uint32_t sgis_sent, lr_overflows;
    uint32_t slice_us, run_ms, turns;    /* on a shared CPU (slice_us 0: alone) */
};
#define PARTITA_STATS_CHANNELS 4
struct partita_channel_stats {
    uint32_t id, rung, raised;           /* doorbells it rang, raised in it */
};
/*
 * Since 1.2: its disks (docs/disks.md), those it is a frontend of
 * (PARTITA_DISK_FRONTEND) and those it drives (PARTITA_DISK_DRIVER).  The
 * fields follow 1.1's, so a caller of 1.1 with a buffer of 1.1's size gets
 * what it knew (the call copies at most the buffer's length).
 */
#define PARTITA_STATS_DISKS 6            /* 2 as a frontend, 4 as a driver */
#define PARTITA_DISK_NAME_MAX 32       /* a disk's name, NUL-terminated */
#define PARTITA_DISK_FRONTEND 0u       /* its role: a frontend of the disk */
#define PARTITA_DISK_DRIVER   1u       /* the disk's driver partition */
struct partita_disk_stats {
    char name[PARTITA_DISK_NAME_MAX];    /* the disk's */
    uint32_t role;                       /* PARTITA_DISK_FRONTEND or _DRIVER */
    uint32_t requests;                   /* frontend: taken off its queue; driver:
                                          * put into its slots (again, too) */
    uint32_t answers;                    /* frontend: completed by the driver; driver:
                                          * answers taken */
    uint32_t ioerrors;                   /* frontend: answered other than OK */
    uint32_t bad_answers;                /* wrong answers (frontend: to its requests;
                                          * driver: all it gave), each an IOERR */
    uint32_t dropped;                    /* frontend: in flight at a reset or stop */
    uint32_t errors;                     /* frontend: malformed rings (NEEDS_RESET) */
    uint32_t requeued;                   /* driver: held at its stop, given again */
    uint32_t waiting;                    /* driver: requests waiting for a slot */
    uint32_t read_lo;                    /* frontend: bytes of reads completed OK, */
    uint32_t read_hi;
    uint32_t written_lo;                 /* and of writes */
    uint32_t written_hi;
};
struct partita_guest_stats {
    uint32_t nvcpus, aborts, denied;     /* denied: management calls it was refused */
    uint32_t starts, nchannels;
    struct partita_vcpu_stats vcpu[PARTITA_INFO_VCPUS];
    struct partita_channel_stats channel[PARTITA_STATS_CHANNELS];
    uint32_t ndisks;                     /* 1.2 */
    struct partita_disk_stats disk[PARTITA_STATS_DISKS];
};

/* PARTITA_MG_BUDGET: a memory-bandwidth budget (memory-budget) and its use */
struct partita_budget {
    uint32_t events, period_us;          /* in force */
    uint32_t next_events, next_period_us; /* from the next period */
    uint32_t event;                      /* the PMU event counted */
    uint32_t period;                     /* the number of the period in force */
    uint32_t last_used_lo, last_used_hi; /* events of the last complete period */
    uint32_t periods, overruns;          /* complete periods; those over budget */
    uint32_t max_over_lo, max_over_hi;   /* the most events over a budget */
    uint32_t total_used_lo, total_used_hi;       /* over all complete periods, */
    uint32_t total_allowed_lo, total_allowed_hi; /* and their budgets */
    uint32_t throttles;                  /* vCPUs held for an empty pool */
};

/* PARTITA_MG_SCHEDULE: the cyclic schedules (docs/temporal-isolation.md) */
#define PARTITA_SCHEDULES 4u
struct partita_schedule {
    uint32_t count;                      /* schedules configured */
    uint32_t in_force;                   /* the index of the one in force */
    int32_t pending;                     /* the one requested, -1: none */
    uint32_t switch_frame;               /* the frame it takes effect at */
    uint32_t frame;                      /* the frame the first CPU is in */
    uint32_t frame_us[PARTITA_SCHEDULES];
    char name[PARTITA_SCHEDULES][32];
};

/*
 * PARTITA_MG_HEALTH: the health monitor's log (docs/temporal-isolation.md,
 * "Health monitor"), the records of one guest, oldest first.  Events and
 * actions are numbered as here; a record's arg is the crash's PC, the
 * watchdog's period in ms or the deadline-miss call's r1, and its count the
 * events counted in the period that reached the threshold.
 */
enum partita_health_event {
    PARTITA_HEALTH_CRASH, PARTITA_HEALTH_WATCHDOG, PARTITA_HEALTH_ABORT_STORM,
    PARTITA_HEALTH_BUDGET_OVERRUN, PARTITA_HEALTH_DEADLINE_MISS
};
enum partita_health_action {
    PARTITA_HEALTH_NONE, PARTITA_HEALTH_LOG, PARTITA_HEALTH_RESTART, PARTITA_HEALTH_STOP,
    PARTITA_HEALTH_STOP_SYSTEM, PARTITA_HEALTH_SWITCH_SCHEDULE
};
struct partita_health {
    uint32_t next_seq;                   /* the sequence number to ask for next */
    uint32_t nrecords;                   /* records of the guest after this */
    uint32_t dropped;                    /* its records the log's rate limit dropped */
    uint32_t freq;                       /* counter ticks a second */
    uint32_t system_stopped;             /* 1: a stop-system action stopped every guest, */
    uint32_t stop_guest, stop_event;     /* for this guest's event, */
    uint32_t stop_ticks_lo, stop_ticks_hi;   /* at this counter value */
};
struct partita_health_record {
    uint32_t seq, ticks_lo, ticks_hi;    /* when (the counter, CNTPCT) */
    uint32_t guest, event, action;
    uint32_t count, arg;
};

/*
 * PARTITA_MG_LOAD: a new image, in pieces.  The piece at offset 0 starts
 * with this header; its fields say how big the kernel and initrd are; the
 * kernel, then the initrd follow it in the stream.  The piece that
 * completes the stream checks the image as the configuration's would be and
 * makes it the guest's; r0 = bytes taken, and 1 << 30 once it is complete.
 */
#define PARTITA_LOAD_MAGIC 0x50544c44u   /* "PTLD" */
#define PARTITA_LOAD_DONE  0x40000000u     /* bit 30 */
struct partita_load {
    uint32_t magic, format;              /* 0 raw, 1 linux */
    uint32_t kernel_size, initrd_size;
    uint32_t load_offset, entry_offset;  /* raw images */
    char bootargs[256];
};

/*
 * The management page (the control guest's DT: /partita-manage, reg = the
 * register page, then the data page): the same calls for a program that
 * cannot issue an HVC (Linux user space, through /dev/mem).  32-bit
 * accesses only.  Write the arguments, then the call's ID to CALL; the
 * results are in RET0..3.  The data page stands for the buffer (r2 is
 * ignored, r3 is at most 4096).
 */
#define PARTITA_MGPAGE_MAGIC   0x00   /* read: "PTMG" 0x474d5450 */
#define PARTITA_MGPAGE_VERSION 0x04   /* read: ABI major << 16 | minor */
#define PARTITA_MGPAGE_CALL    0x08   /* write: a PARTITA_MG_* ID */
#define PARTITA_MGPAGE_ARG0    0x10   /* where ARG(n) counts from */
#define PARTITA_MGPAGE_ARG(n)  (PARTITA_MGPAGE_ARG0 + (4 * (n)))  /* r1..r4: n = 1..4 */
#define PARTITA_MGPAGE_RET0    0x30   /* where RET(n) counts from */
#define PARTITA_MGPAGE_RET(n)  (PARTITA_MGPAGE_RET0 + (4 * (n)))  /* r0..r3: n = 0..3 */
#define PARTITA_MGPAGE_DATA    0x1000 /* the data page: 4096 bytes */
#define PARTITA_MGPAGE_SIZE    0x2000
#define PARTITA_MGPAGE_MAGIC_VALUE 0x474d5450u

#endif
