/*
 * The guest's side of PSCI and Partita's calls: what the protocol logic
 * (hyp/trap/psci.c) acts on for a vCPU - its siblings' power states, its
 * memory, its lifecycle, its counters, its watchdog and channels.
 */
#include "guest.h"
#include "channel.h"
#include "disk.h"
#include "guest_rooms.h"
#include "health.h"
#include "hyp/platform/percpu.h"
#include "hyp/sched/sched.h"
#include "hyp/trap/psci.h"

static int env_vcpu_of_mpidr(void *ctx, uint32_t mpidr)
{
    struct vcpu *t = guest_vcpu_by_mpidr(guest_of((struct vcpu *)ctx), mpidr);
    return t ? (int)t->id : -1;
}

static enum vcpu_power_state env_state(void *ctx, unsigned int i)
{
    switch (guest_of((struct vcpu *)ctx)->vcpu[i].power) {
    case VCPU_ON: return PSCI_STATE_ON;
    case VCPU_ON_PENDING: return PSCI_STATE_ON_PENDING;
    default: return PSCI_STATE_OFF;
    }
}

static bool env_entry_valid(void *ctx, uint32_t entry)
{
    return guest_config_ipa_is_ram(guest_of((struct vcpu *)ctx)->cfg, entry & ~1u);
}

static void env_power_on(void *ctx, unsigned int i, uint32_t entry, uint32_t context)
{
    struct vcpu *t = &guest_of((struct vcpu *)ctx)->vcpu[i];
    vcpu_request_power_on(t, entry, context, 0u, 0u);
    vcpu_kick(t);           /* it may share this very CPU */
}

static void env_power_off_self(void *ctx)
{
    struct vcpu *v = ctx;
    v->power = VCPU_OFF;
    (void)__atomic_or_fetch(&v->requests, VCPU_REQ_STOP, __ATOMIC_SEQ_CST);  /* leave now */
}
static void env_suspend_self(void *ctx) { vcpu_wait(ctx); }
static void env_system_off(void *ctx) { guest_halt(guest_of((struct vcpu *)ctx)); }
static void env_system_reset(void *ctx)
{
    struct guest *g = guest_of((struct vcpu *)ctx);
    guest_log(g, "guest '%s' asked for a reset (PSCI SYSTEM_RESET)\n", g->cfg->name);
    guest_request_restart(g);
}

/* The statistics' numbers of partita/hvc.h, which the guests' C includes
 * too, in the unsigned type of the hypercall's argument */
#define STAT_EXITS      ((uint32_t)PARTITA_STAT_EXITS)
#define STAT_IDLE       ((uint32_t)PARTITA_STAT_IDLE)
#define STAT_TRAP(t)    ((uint32_t)PARTITA_STAT_TRAP0 + (uint32_t)(t))
#define STAT_INJECTED   ((uint32_t)PARTITA_STAT_INJECTED)
#define STAT_MAINT      ((uint32_t)PARTITA_STAT_MAINT)
_Static_assert(PARTITA_STAT_TRAP(0) == PARTITA_STAT_TRAP0, "the traps' counters from TRAP0");

static bool env_stat(void *ctx, uint32_t n, uint64_t *value)
{
    struct vcpu *v = ctx;
    if (n == STAT_EXITS) {
        *value = vcpu_exits(v);
    } else if (n == STAT_IDLE) {
        *value = this_cpu()->idle_ticks;
    } else if ((n >= STAT_TRAP(0u)) && (n < STAT_TRAP(TRAP_NR))) {
        *value = v->traps[n - STAT_TRAP(0u)];
    } else if (n == STAT_INJECTED) {
        *value = v->vgic.stats.injected;
    } else if (n == STAT_MAINT) {
        *value = v->vgic.stats.maintenance;
    } else {
        return false;
    }
    return true;
}

static int env_watchdog_feed(void *ctx)
{
    return guest_watchdog_feed(guest_of((struct vcpu *)ctx));
}

static int env_doorbell(void *ctx, uint32_t channel)
{
    return channel_ring(guest_of((struct vcpu *)ctx), channel);
}

static int env_blk_done(void *ctx, uint32_t disk)
{
    return disk_done(guest_of((struct vcpu *)ctx), disk);
}

static int env_deadline_miss(void *ctx, uint32_t tag)
{
    return health_deadline_miss(guest_of((struct vcpu *)ctx), tag);
}

static void env_manage(void *ctx, uint32_t *r)
{
    guest_manage_call(ctx, r);
}

void vcpu_psci_init(struct vcpu *v)
{
    v->psci = (struct psci_env){
        .ncpus = v->vm->cfg->ncpus, .self = v->id,
        .vcpu_of_mpidr = env_vcpu_of_mpidr, .state = env_state,
        .entry_valid = env_entry_valid, .power_on = env_power_on,
        .power_off_self = env_power_off_self, .suspend_self = env_suspend_self,
        .system_off = env_system_off, .system_reset = env_system_reset,
        .stat = env_stat, .watchdog_feed = env_watchdog_feed, .doorbell = env_doorbell,
        .blk_done = env_blk_done, .deadline_miss = env_deadline_miss,
        .manage = guest_manage_call ? env_manage : NULL,
        .guest_id = v->vm->id, .ctx = v,
    };
}
