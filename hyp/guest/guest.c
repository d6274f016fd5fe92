/*
 * Guest lifecycle: start (scrub memory, load the pristine images, write the
 * DT, build Stage-2, power on vCPU 0), stop, halt, crash and restart.
 * Starting and restarting happen on the boot CPU; any CPU may ask for them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include <arch/sysregs.h>
#include "guest.h"
#include "guest_parts.h"
#include "hyp/arch/pmu.h"
#include "guest_dt.h"
#include "guest_rooms.h"
#include "guest_vgic.h"
#include "hyp/lib/console.h"
#include "hyp/platform/hyp.h"
#include "hyp/platform/percpu.h"
#include "hyp/sched/sched.h"
#include "hyp/trap/traps.h"
#include "mm/cache.h"
#include "mm/page_alloc.h"
#include "mm/hyp_mmu.h"
#include "timer/timer.h"
#include "timer/hyp_timer.h"
#include "hyp/sched/sched_share.h"
#include "vgic/gic.h"
#include "vgic/vgic_hw.h"

/* us a stop waits for its guest's vCPUs to leave their CPUs: each leaves
 * at its next exit, whose work is bounded (docs/networks.md, "Bounded
 * work"), so this is only reached by a CPU that no longer answers */
#define GUEST_LEAVE_US 1000000u

/* zeroed by guests_init, the configured ones only: not with .bss */
struct guest guests[GUEST_MAX] __attribute__((section(".noinit.guests")));
unsigned int nguests;

/* what every guest may have (guest_rooms.h) */
static const struct guest_room *rooms;
static unsigned int nrooms;
void (*guest_manage_call)(struct vcpu *v, uint32_t *r);

void guest_rooms_set(const struct guest_room *r, unsigned int n)
{
    rooms = r;
    nrooms = n;
    for (unsigned int i = 0u; i < n; i++) {
        if (r[i].manage != NULL) {
            guest_manage_call = r[i].manage;
        }
    }
}

const char *guest_state_name(enum guest_state s)
{
    switch (s) {
    case GUEST_STOPPED: return "stopped";
    case GUEST_RUNNING: return "running";
    case GUEST_HALTED: return "halted";
    case GUEST_CRASHED: return "crashed";
    default: break;
    }
    return "?";
}

uint64_t guest_uptime_s(const struct guest *g)
{
    if (g->state != GUEST_RUNNING) {
        return 0;
    }
    return timer_ticks_to_us(timer_now() - g->start_ticks) / 1000000u;
}

void guests_init(const struct system_config *sys)
{
    nguests = sys->nguest_cfg;
    for (unsigned int i = 0u; i < nguests; i++) {
        struct guest *g = &guests[i];
        (void)memset(g, 0, sizeof(*g));
        g->cfg = &sys->guest_cfg[i];
        g->configured = g->cfg;
        g->id = i;
        g->vmid = (uint8_t)(i + 1u);     /* VMID 0 is never used by a guest */
        g->state = GUEST_STOPPED;
        for (unsigned int v = 0u; v < g->cfg->ncpus; v++) {
            g->vcpu[v].vm = guest_vm(g);
            g->vcpu[v].id = v;
            g->vcpu[v].mmio.vcpu = (uint8_t)v;     /* the distributor's banks */
            g->vcpu[v].pcpu = g->cfg->cpus[v];
            g->vcpu[v].vmpidr = 0x80000000u | v;    /* MP format, Aff0 = vCPU */
            vcpu_set_pmu(&g->vcpu[v], g->cfg->pmu && pmu_present());
            if (g->cfg->irq_mode == IRQ_DIRECT) {
                vcpu_set_direct(&g->vcpu[v]);
            }
            vcpu_psci_init(&g->vcpu[v]);
            sched_assign(&g->vcpu[v]);
        }
    }
    for (unsigned int i = 0u; i < nrooms; i++) {
        if (rooms[i].init != NULL) {
            rooms[i].init(sys);
        }
    }
}

struct guest *guest_by_name(const char *name)
{
    for (unsigned int i = 0u; i < nguests; i++) {
        if (strcmp(guests[i].cfg->name, name) == 0) {
            return &guests[i];
        }
    }
    return NULL;
}

struct vcpu *guest_vcpu_by_mpidr(struct guest *g, uint32_t mpidr)
{
    /* only Aff0 is used: vCPU i is MPIDR i */
    if ((mpidr & 0x00ffff00u) || (mpidr & 0xffu) >= g->cfg->ncpus) {
        return NULL;
    }
    return &g->vcpu[mpidr & 0xffu];
}

bool guest_vcpus_idle(struct guest *g)
{
    for (unsigned int i = 0u; i < g->cfg->ncpus; i++) {
        bool held = __atomic_load_n(&g->vcpu[i].on_cpu, __ATOMIC_ACQUIRE);
        if (held) {
            return false;
        }
    }
    return true;
}

/*
 * The boot CPU's look, in its pass, for g's vCPUs off every CPU, to
 * restart g or detach its devices.  It looks once a vCPU leaves (the
 * leaving CPU asks for the pass); a CPU that held one only to test it
 * meanwhile wakes it again, seeing the watch set before the look
 * (hyp/sched/sched_internal.h vcpu_claim).
 */
static bool guest_left(struct guest *g)
{
    __atomic_store_n(&g->leave_watch, true, __ATOMIC_SEQ_CST);
    bool idle = guest_vcpus_idle(g);
    if (idle) {
        g->leave_watch = false;
    }
    return idle;
}

/* Ask every vCPU of g to leave its physical CPU. */
void guest_kick_all(struct guest *g, uint32_t req)
{
    for (unsigned int i = 0u; i < g->cfg->ncpus; i++) {
        (void)__atomic_or_fetch(&g->vcpu[i].requests, req, __ATOMIC_SEQ_CST);
        vcpu_kick(&g->vcpu[i]);
    }
}

/* Every region a guest can be given fits its bus (guest_config.h's limits):
 * the distributor and the UART, the channels' doorbells, the management
 * page, the network devices and the virtio console */
_Static_assert(MMIO_MAX_REGIONS >= (GUEST_VBOARD_REGIONS + GUEST_MAX_CHANNELS + 1u +
               GUEST_MAX_NETS + 1u), "the MMIO bus holds every device a guest may have");

int guest_mmio_add(struct guest *g, const char *prop, uint64_t base, uint64_t size,
                   mmio_handler_t h, void *dev)
{
    if (mmio_register(&g->mmio, base, size, h, dev) == 0) {
        return 0;
    }
    /* config_check_mmio refuses what would come here: a bug, said so */
    pr_err("guest '%s': property '%s': no room on its MMIO bus for 0x%llx-0x%llx: "
           "not started\n", g->cfg->name, prop, (unsigned long long)base,
           (unsigned long long)(base + size));
    return -1;
}

/* Its emulated devices, reset, on a new MMIO bus; -1 (said) if one is not */
static int guest_attach_devices(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    mmio_bus_init(&g->mmio);
    vuart_init(&g->uart, guest_uart_tx, guest_uart_irq, g);
    /* the distributor first: the bus is searched in order, and it is the
     * device guests touch most (every interrupt enable, every IPI) */
    int rc;
    if (c->irq_mode == IRQ_DIRECT) {     /* its SGIs are physical ones */
        rc = guest_mmio_add(g, "interrupts", VBOARD_GICD_IPA, 0x1000, guest_vgic_direct_dist, g);
    } else {
        rc = guest_mmio_add(g, "interrupts", VBOARD_GICD_IPA, 0x1000, vgic_dist_handler,
                            &g->vgic);
    }
    if (rc || guest_mmio_add(g, "console", VBOARD_UART_IPA, 0x1000, guest_uart_mmio, g)) {
        return -1;
    }
    g->devices_live = true;     /* the rooms' devices write its RAM for others */
    for (unsigned int i = 0u; i < nrooms; i++) {
        if (rooms[i].attach && rooms[i].attach(g)) {
            guest_detach_devices(g);
            return -1;
        }
    }
    return 0;
}

void guest_detach_devices(struct guest *g)
{
    for (unsigned int i = 0u; i < nrooms; i++) {
        if (rooms[i].detach != NULL) {
            rooms[i].detach(g);
        }
    }
    g->devices_live = false;
}

/*
 * Wait until no CPU holds a vCPU of g, at most GUEST_LEAVE_US; true if none
 * does.  A stopped guest's vCPUs leave at the next exit, which is bounded;
 * a CPU that picked one just before the stop may still hold it for the
 * moment it takes to see the stop and let go (vcpu_claim), longer only if
 * the host pauses it there.
 */
static bool guest_wait_idle(struct guest *g)
{
    uint64_t t0 = timer_now();
    uint32_t looks = 0u;
    bool idle = guest_vcpus_idle(g);
    while (!idle && !timer_waited_us(t0, GUEST_LEAVE_US, &looks)) {
        idle = guest_vcpus_idle(g);
    }
    return idle;
}

int guest_start(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    if (g->state == GUEST_RUNNING) {
        return -1;
    }
    if (!guest_wait_idle(g)) {
        pr_err("guest '%s': its vCPUs are still leaving their CPUs\n", c->name);
        return -1;
    }
    uint32_t entry, dtb;
    guest_detach_devices(g);    /* no frame lands in RAM being reloaded */
    for (unsigned int i = 0u; i < nrooms; i++) {
        if (rooms[i].load != NULL) {
            rooms[i].load(g);   /* a loaded image's CRC taken again (hyp/manage) */
        }
    }
    if (guest_load(g, &entry, &dtb) != 0 || guest_build_s2(g) != 0) {
        pr_err("guest '%s': out of hypervisor memory for its tables\n", c->name);
        g->state = GUEST_CRASHED;
        return -1;
    }
    if (guest_attach_devices(g) != 0) {
        g->state = GUEST_CRASHED;
        return -1;
    }
    g->in_count = 0u;
    g->aborts = 0;
    g->line_len = 0u;
    g->dtb_ipa = dtb;
    g->wd_expired = false;
    g->wd_deadline = c->watchdog_ms ? timer_now() + timer_ms_to_ticks(c->watchdog_ms) : 0u;
    health_guest_start(g);
    if (this_cpu()->index == 0u) {
        watchdog_arm();
    }
    /* guest virtual time starts near zero (CNTVCT = CNTPCT - CNTVOFF) */
    g->cntvoff = timer_now();
    g->start_ticks = g->cntvoff;
    g->starts++;
    for (unsigned int i = 0u; i < c->ncpus; i++) {
        struct vcpu *v = &g->vcpu[i];
        v->power = VCPU_OFF;
        v->requests = 0u;
        (void)memset(v->traps, 0, sizeof(v->traps));
    }
    guest_vgic_init(g);
    /*
     * Running first, then vCPU 0's start.  Its CPU may be looking at it
     * now, still taking the stop of the last life (guest_wait_idle saw it
     * let go of the vCPU, not done with its requests), and drops a start
     * of a guest it does not yet see running: with the request first, a
     * CPU that looked between the two left vCPU 0 pending for ever, the
     * guest "running" with nothing run and every gdb halt timing out
     * (tests/unit/sched/test_claim.c).  Its vCPUs are all off or pending
     * here, so none runs before its start.
     */
    dsb_ish();
    g->state = GUEST_RUNNING;
    dsb_ish();
    /* vCPU 0 boots like Linux wants it (r0 = 0, r1 = ~0, r2 = DTB); its
     * own CPU resets it, so per-CPU state is cleaned where it lives */
    struct vcpu *v0 = &g->vcpu[0];
    vcpu_request_power_on(v0, entry, 0u, 0xffffffffu, dtb);
    vcpu_kick(v0);
    return 0;
}

void guest_stop(struct guest *g)
{
    /* an expiry flagged or a reset asked for before the stop must not
     * start it again afterwards */
    g->wd_deadline = 0u;
    g->wd_expired = false;
    uint32_t f = spin_lock_irqsave(&g->life_lock);
    if (g->state == GUEST_RUNNING) {
        g->state = GUEST_STOPPED;
    }
    g->restart_pending = false;
    spin_unlock_irqrestore(&g->life_lock, f);
    guest_kick_all(g, VCPU_REQ_STOP);
    if (!guest_wait_idle(g)) {
        pr_err("guest '%s': a vCPU did not leave its CPU\n", g->cfg->name);
    }
    guest_vgic_release(g);
    guest_detach_devices(g);
}

/*
 * A vCPU ends its guest's life (SYSTEM_OFF, SYSTEM_RESET, a crash) while
 * the monitor may be stopping it on the boot CPU: only a running guest
 * changes state here, under its life lock, so a stop is never undone by a
 * restart asked for a moment before.  Returns false if it was not running.
 */
static bool guest_end_life(struct guest *g, enum guest_state to, bool restart)
{
    uint32_t f = spin_lock_irqsave(&g->life_lock);
    bool running = g->state == GUEST_RUNNING;
    if (running) {
        g->restart_pending = restart;
        g->state = to;
    }
    spin_unlock_irqrestore(&g->life_lock, f);
    guest_kick_all(g, VCPU_REQ_STOP);
    return running;
}

void guest_halt(struct guest *g)
{
    if (guest_end_life(g, GUEST_HALTED, false)) {
        guest_log(g, "guest '%s' halted (PSCI SYSTEM_OFF)\n", g->cfg->name);
    }
}

void guest_request_restart(struct guest *g)
{
    if (guest_end_life(g, GUEST_STOPPED, true)) {
        sched_cpu0_work();
    }
}

void guest_crash(struct vcpu *v, const char *why, uint32_t hsr, uint32_t far)
{
    struct guest *g = guest_of(v);
    bool restart = g->cfg->on_crash == ON_CRASH_RESTART;
    if (!guest_end_life(g, GUEST_CRASHED, restart)) {
        return;         /* stopped meanwhile, or another vCPU crashed it first */
    }
    struct guest_crash *k = &g->crash;
    k->pc = v->regs.pc;
    k->cpsr = v->regs.cpsr;
    k->hsr = hsr;
    k->far = far;
    (void)snprintf(k->why, sizeof(k->why), "%s", why);
    guest_log(g, "guest '%s' crashed on vCPU %u: %s: PC 0x%08lx mode 0x%02lx HSR 0x%08lx "
            "FAR 0x%08lx\n", g->cfg->name, v->id, why, (unsigned long)k->pc,
            (unsigned long)(k->cpsr & (uint32_t)PSR_MODE_MASK), (unsigned long)hsr,
            (unsigned long)far);
    health_crash(g);    /* its health table's crash entry, in the boot CPU's pass */
}

void guests_service(void)
{
    health_service();
    for (unsigned int i = 0u; i < nrooms; i++) {
        if (rooms[i].service != NULL) {
            rooms[i].service();
        }
    }
    for (unsigned int i = 0u; i < nguests; i++) {
        struct guest *g = &guests[i];
        /* its life ended on its own vCPU (halt, crash, reset): once they
         * have all left, nothing of another partition's writes its RAM
         * (each vCPU leaving a guest that is not running asks for this
         * pass, hyp/sched/sched.c) */
        if (g->devices_live && g->state != GUEST_RUNNING && guest_left(g)) {
            guest_detach_devices(g);
        }
        if (g->wd_expired) {
            g->wd_expired = false;
            g->wd_fires++;
            health_watchdog(g);     /* its watchdog entry, watchdog-action by default */
            continue;
        }
        if (!g->restart_pending || !guest_left(g)) {
            continue;
        }
        uint32_t f = spin_lock_irqsave(&g->life_lock);
        bool restart = g->restart_pending;
        g->restart_pending = false;
        g->state = GUEST_STOPPED;
        spin_unlock_irqrestore(&g->life_lock, f);
        if (!restart) {
            continue;
        }
        guest_log(g, "guest '%s': restarting\n", g->cfg->name);
        (void)guest_start(g);   /* a failure is said, the guest marked crashed */
    }
}
