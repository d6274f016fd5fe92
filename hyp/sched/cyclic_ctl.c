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
volatile uint32_t cyc_switch_to, cyc_switch_frame;
static spinlock_t switch_lock;


bool sched_cyclic_cpu(unsigned int cpu)
{
    return cpu < SCHED_CPUS && (cyc_cpu_mask & (1u << cpu));
}

void sched_cyclic_prepare(const struct system_config *sys)
{
    cyc_nscheds = sys->sched.n;
    cyc_cpu_mask = cyc_nscheds ? sys->sched.cpus : 0;
}

int schedule_find(const char *name)
{
    for (unsigned int i = 0; i < cyc_nscheds; i++) {
        if (strcmp(cyc_scheds[i].cfg->name, name) == 0) {
            return (int)i;
        }
    }
    return -1;
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
    return cyc_nscheds ? (int)cyc_cpus[first_cpu()].sched : -1;
}

/* every CPU runs schedule to - 1 */
static bool switched(uint32_t to)
{
    for (unsigned int cpu = 0; cpu < SCHED_CPUS; cpu++) {
        if (sched_cyclic_cpu(cpu) && cyc_cpus[cpu].sched != to - 1) {
            return false;
        }
    }
    return true;
}

int schedule_pending(void)
{
    uint32_t to = cyc_switch_to;
    return to && !switched(to) ? (int)to - 1 : -1;
}

int schedule_request_switch(unsigned int index)
{
    if (index >= cyc_nscheds || !cyc_started) {
        return SCHEDULE_E_INVALID;
    }
    spin_lock(&switch_lock);
    uint32_t to = cyc_switch_to;
    if (to && !switched(to)) {
        spin_unlock(&switch_lock);
        return SCHEDULE_E_BUSY;
    }
    /* the latest frame any CPU is in, two on: no CPU has reached it */
    uint32_t latest = 0;
    bool any = false;
    for (unsigned int cpu = 0; cpu < SCHED_CPUS; cpu++) {
        if (!sched_cyclic_cpu(cpu)) {
            continue;
        }
        uint32_t k = __atomic_load_n(&cyc_cpus[cpu].frame, __ATOMIC_RELAXED);
        if (!any || (int32_t)(k - latest) > 0) {
            latest = k;
        }
        any = true;
    }
    cyc_switch_frame = latest + SWITCH_FRAMES_AHEAD;
    __atomic_store_n(&cyc_switch_to, index + 1, __ATOMIC_RELEASE);
    spin_unlock(&switch_lock);
    return 0;
}

uint32_t schedule_switch_frame(void)
{
    return cyc_switch_frame;
}

bool schedule_cpu_stats(unsigned int cpu, struct cyclic_stats *o)
{
    if (!sched_cyclic_cpu(cpu)) {
        return false;
    }
    *o = cyc_cpus[cpu].st;
    return true;
}

const struct schedule_config *schedule_config_of(unsigned int index)
{
    return index < cyc_nscheds ? cyc_scheds[index].cfg : NULL;
}

uint64_t schedule_epoch(void)
{
    return cyc_epoch;
}

bool schedule_fill(struct partita_schedule *o)
{
    memset(o, 0, sizeof(*o));
    if (!cyc_nscheds) {
        return false;
    }
    o->count = cyc_nscheds;
    o->in_force = (uint32_t)schedule_in_force();
    o->pending = schedule_pending();
    o->switch_frame = cyc_switch_frame;
    o->frame = cyc_cpus[first_cpu()].frame;
    for (unsigned int i = 0; i < cyc_nscheds && i < PARTITA_SCHEDULES; i++) {
        o->frame_us[i] = cyc_scheds[i].cfg->frame_us;
        strncpy(o->name[i], cyc_scheds[i].cfg->name, sizeof(o->name[i]) - 1);
    }
    return true;
}
