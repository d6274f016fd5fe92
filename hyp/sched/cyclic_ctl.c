/*
 * Cyclic schedules as the monitor and the control partition see and switch
 * them (cyclic.h); the CPUs' loop is cyclic.c.  No registers here: the
 * host unit tests link it.
 */
#include <string.h>
#include <partita/manage_abi.h>
#include "cyclic.h"
#include "cyclic_internal.h"
#include "hyp/config/guest_config.h"

/* a switch takes effect at the start of the frame after the next: the
 * requester may read a CPU's frame number just before it moves on */
#define SWITCH_FRAMES_AHEAD 2u

struct csched cyc_scheds[SCHED_MAX];
unsigned int cyc_nscheds;
uint32_t cyc_cpu_mask;
struct ccpu cyc_cpus[SCHED_CPUS];
uint64_t cyc_epoch;
volatile bool cyc_started;
/* a switch: to schedule cyc_switch_to - 1 at the start of frame cyc_switch_frame */
volatile uint32_t cyc_switch_to;
volatile uint32_t cyc_switch_frame;

bool sched_cyclic_cpu(unsigned int cpu)
{
    return (cpu < SCHED_CPUS) && ((cyc_cpu_mask & (1u << cpu)) != 0u);
}

void sched_cyclic_prepare(const struct system_config *sys)
{
    cyc_nscheds = sys->sched.n;
    cyc_cpu_mask = (cyc_nscheds != 0u) ? sys->sched.cpus : 0u;
}

int schedule_find(const char *name)
{
    int found = -1;
    for (unsigned int i = 0u; (i < cyc_nscheds) && (found < 0); i++) {
        if (strcmp(cyc_scheds[i].cfg->name, name) == 0) {
            found = (int)i;
        }
    }
    return found;
}

unsigned int schedule_count(void)
{
    return cyc_nscheds;
}

static unsigned int first_cpu(void)
{
    return (unsigned int)__builtin_ctz(cyc_cpu_mask);
}

int schedule_in_force(void)
{
    return (cyc_nscheds != 0u) ? (int)cyc_cpus[first_cpu()].sched : -1;
}

/* every CPU runs schedule to - 1 */
static bool switched(uint32_t to)
{
    bool all = true;
    for (unsigned int cpu = 0u; cpu < SCHED_CPUS; cpu++) {
        if (sched_cyclic_cpu(cpu) && (cyc_cpus[cpu].sched != (to - 1u))) {
            all = false;
        }
    }
    return all;
}

int schedule_pending(void)
{
    uint32_t to = cyc_switch_to;
    return ((to != 0u) && !switched(to)) ? ((int)to - 1) : -1;
}

/* schedule_request_switch of a schedule that is */
static int request_switch(unsigned int index)
{
    static spinlock_t switch_lock;
    spin_lock(&switch_lock);
    int rc = 0;
    uint32_t to = cyc_switch_to;
    if ((to != 0u) && !switched(to)) {
        rc = SCHEDULE_E_BUSY;
    } else {
        /* the latest frame any CPU is in, two on: no CPU has reached it */
        uint32_t latest = 0u;
        bool any = false;
        for (unsigned int cpu = 0u; cpu < SCHED_CPUS; cpu++) {
            if (sched_cyclic_cpu(cpu)) {
                uint32_t k = __atomic_load_n(&cyc_cpus[cpu].frame, __ATOMIC_RELAXED);
                uint32_t ahead = k - latest;
                if (!any || ((int32_t)ahead > 0)) {
                    latest = k;
                }
                any = true;
            }
        }
        cyc_switch_frame = latest + SWITCH_FRAMES_AHEAD;
        (void)__atomic_store_n(&cyc_switch_to, index + 1u, __ATOMIC_RELEASE);
    }
    spin_unlock(&switch_lock);
    return rc;
}

int schedule_request_switch(unsigned int index)
{
    int rc = SCHEDULE_E_INVALID;
    if ((index < cyc_nscheds) && cyc_started) {
        rc = request_switch(index);
    }
    return rc;
}

uint32_t schedule_switch_frame(void)
{
    return cyc_switch_frame;
}

bool schedule_cpu_stats(unsigned int cpu, struct cyclic_stats *o)
{
    bool on = sched_cyclic_cpu(cpu);
    if (on) {
        *o = cyc_cpus[cpu].st;
    }
    return on;
}

const struct schedule_config *schedule_config_of(unsigned int index)
{
    return (index < cyc_nscheds) ? cyc_scheds[index].cfg : NULL;
}

uint64_t schedule_epoch(void)
{
    return cyc_epoch;
}

bool schedule_fill(struct partita_schedule *o)
{
    (void)memset(o, 0, sizeof(*o));
    bool any = cyc_nscheds != 0u;
    if (any) {
        o->count = cyc_nscheds;
        o->in_force = (uint32_t)schedule_in_force();
        o->pending = schedule_pending();
        o->switch_frame = cyc_switch_frame;
        o->frame = cyc_cpus[first_cpu()].frame;
        for (unsigned int i = 0u; (i < cyc_nscheds) && (i < PARTITA_SCHEDULES); i++) {
            o->frame_us[i] = cyc_scheds[i].cfg->frame_us;
            (void)strncpy(o->name[i], cyc_scheds[i].cfg->name, sizeof(o->name[i]) - 1u);
        }
    }
    return any;
}
