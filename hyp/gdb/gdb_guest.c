/*
 * gdb's hold on a guest (gdb_guest.h): its vCPUs kept off their CPUs, and its
 * memory read and written as one of its vCPUs sees it.  The stub itself
 * (the protocol, the session) is hyp/gdb.
 */
#include <string.h>
#include <arch/sysregs.h>
#include "gdb_guest.h"
#include "debug_gdb.h"
#include "hyp/guest/guest_parts.h"
#include "hyp/lib/console.h"
#include "mm/cache.h"
#include "timer/timer.h"
#include "hyp/sched/sched.h"

/*
 * A vCPU whose saved state is gdb's to read: off its CPU, and not waiting
 * for its CPU to reset it for a new life.  A start or a PSCI CPU_ON asks
 * its CPU for that (VCPU_REQ_POWER_ON, VCPU_ON_PENDING); until the CPU has
 * taken the request (hyp/sched/sched.c vcpu_take_requests) what is saved
 * is the last life's - registers and a stage 1 over RAM the start has
 * scrubbed - and the CPU writes it while gdb would read it.
 */
static bool vcpu_settled(struct vcpu *v)
{
    bool settled = !__atomic_load_n(&v->on_cpu, __ATOMIC_SEQ_CST);
    if (settled) {
        enum vcpu_power power = __atomic_load_n(&v->power, __ATOMIC_ACQUIRE);
        settled = power != VCPU_ON_PENDING;
    }
    return settled;
}

static bool vcpus_settled(struct guest *g)
{
    for (unsigned int i = 0u; i < g->cfg->ncpus; i++) {
        if (!vcpu_settled(&g->vcpu[i])) {
            return false;
        }
    }
    return true;
}

/* a halt timed out: what each vCPU that did not settle was doing, so that
 * a report of it says which side never came - its CPU (held 1) or its
 * start (power 1, VCPU_ON_PENDING: enum vcpu_power, hyp/arch/vcpu.h) */
static void say_unsettled(struct guest *g)
{
    for (unsigned int i = 0u; i < g->cfg->ncpus; i++) {
        const struct vcpu *v = &g->vcpu[i];
        if (!vcpu_settled(&g->vcpu[i])) {
            pr_info("gdb: vCPU %u of '%s' (CPU %u): held %u, power %u, requests 0x%lx\n", i,
                    g->cfg->name, v->pcpu, (unsigned int)v->on_cpu, (unsigned int)v->power,
                    (unsigned long)v->requests);
        }
    }
}

bool guest_debug_halt(struct guest *g)
{
    guest_kick_all(g, VCPU_REQ_HALT);
    uint64_t t0 = timer_now();
    uint32_t looks = 0u;
    while (!vcpus_settled(g) && !timer_waited_us(t0, GUEST_DEBUG_HALT_US, &looks)) {
        ;
    }
    dsb_ish();      /* its saved registers, written by its CPUs, from here */
    bool settled = vcpus_settled(g);
    if (!settled) {
        say_unsettled(g);
    }
    return settled;
}

bool guest_debug_held(struct guest *g)
{
    for (unsigned int i = 0u; i < g->cfg->ncpus; i++) {
        struct vcpu *v = &g->vcpu[i];
        uint32_t requests = __atomic_load_n(&v->requests, __ATOMIC_SEQ_CST);
        if (((requests & VCPU_REQ_HALT) == 0u) || !vcpu_settled(v)) {
            return false;
            }
    }
    dsb_ish();      /* as after a halt: their saved registers from here */
    return true;
}

void guest_debug_resume(struct guest *g)
{
    dsb_ish();      /* what the debugger wrote, before the vCPUs look */
    for (unsigned int i = 0u; i < g->cfg->ncpus; i++) {
        (void)__atomic_and_fetch(&g->vcpu[i].requests, ~VCPU_REQ_HALT, __ATOMIC_SEQ_CST);
        vcpu_kick(&g->vcpu[i]);
    }
}

void guest_debug_resume_vcpu(struct vcpu *v)
{
    dsb_ish();
    (void)__atomic_and_fetch(&v->requests, ~VCPU_REQ_HALT, __ATOMIC_SEQ_CST);
    vcpu_kick(v);
}

/* v hit a breakpoint with gdb attached (its own CPU, the trap hook): the
 * whole guest halts, dbg_stopped names v, and the boot CPU is told */
static void guest_debug_stop(struct vcpu *v)
{
    struct guest *g = guest_of(v);
    uint32_t none = 0u;
    /* the first vCPU to stop is the one gdb hears of */
    (void)__atomic_compare_exchange_n(&g->dbg_stopped, &none, v->id + 1u, false,
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    guest_kick_all(g, VCPU_REQ_HALT);
    sched_cpu0_work();
}

/* One piece of an access, inside one page; false if it faults or leaves
 * the guest's RAM (a device, a channel: not for the debugger) */
static bool access_page(struct vcpu *v, uint32_t va, uint8_t *buf, uint32_t n, bool write)
{
    const struct guest_config *c = v->vm->cfg;
    uint64_t pa;
    /* translated for reading, written too: a debugger writes breakpoints
     * into code the guest's stage 1 maps read-only (Linux's kernel text),
     * as a JTAG probe would; only the guest's own RAM, checked below */
    if (!vcpu_translate(v, va, false, &pa)) {
        return false;
    }
    if (!guest_ram_has_pa(c, pa, n)) {
        return false;       /* a device or channel page, or nothing of its own */
    }
    uint8_t *p = (uint8_t *)(uint32_t)pa;       /* guest RAM: identity mapped */
    /* the guest may run with its caches off: memory itself, both ways */
    dcache_clean_inval_range(p, n);
    if (write) {
        (void)memcpy(p, buf, n);
        dcache_clean_inval_range(p, n);
        icache_invalidate_all();    /* a breakpoint written into its code */
    } else {
        (void)memcpy(buf, p, n);
    }
    return true;
}

uint32_t guest_debug_access(struct vcpu *v, uint32_t va, void *buf, uint32_t n, bool write)
{
    uint32_t done = 0u;
    while (done < n) {
        uint32_t at = va + done;
        uint32_t chunk = 0x1000u - (at & 0xfffu);
        if (chunk > n - done) {
            chunk = n - done;
        }
        if (!access_page(v, at, (uint8_t *)buf + done, chunk, write)) {
            break;
        }
        done += chunk;
    }
    return done;
}

/*
 * A BKPT stops the guest for gdb (its breakpoints, and the guest's own
 * BKPTs, which a debugger should see), as does a hit of one of gdb's
 * comparators (hyp/arch/debug.h: debug_gdb).
 */
bool gdb_debug_hit(struct vcpu *v, uint32_t hsr, uint32_t far, bool data)
{
    uint32_t ec = HSR_EC(hsr);
    bool bkpt = ec == (uint32_t)HSR_EC_BKPT32 ||
                (ec == (uint32_t)HSR_EC_PABT &&
                 (sysreg_read_dbgdscrint() & DBGDSCR_MOE_MASK) == DBGDSCR_MOE_BKPT);
    int wp = data ? debug_gdb_wp_match(&debug_gdb, far) : -1;
    if (!bkpt && wp < 0 && (data || debug_gdb_bp_match(&debug_gdb, far) < 0)) {
        return false;
    }
    int watch = wp + 1;         /* 0: no watchpoint, else its number + 1 */
    v->dbg_watch = (uint32_t)watch;
    guest_debug_stop(v);
    return true;
}
