/*
 * Shared physical CPUs: the loop, the choice of the next vCPU, blocking in
 * WFI and waking (the policy is described in sched_share.h and
 * docs/configuration.md). Everything here runs on the shared CPU itself with
 * IRQs masked, except vcpu_kick (hyp/sched/sched.h), which other CPUs call:
 * it only sets a flag and kicks.
 */
#include <stdio.h>
#include <string.h>
#include <arch/sysregs.h>
#include "sched_share.h"
#include "sched_internal.h"
#include "share_internal.h"
#include "cyclic.h"
#include "sched.h"
#include "hyp/lib/console.h"
#include "hyp/arch/vm.h"
#include "hyp/platform/percpu.h"
#include "hyp/trap/traps.h"
#include "hyp/platform/hyp.h"
#include "mm/page_alloc.h"
#include "timer/hyp_timer.h"
#include "timer/timer.h"
#include "vgic/gic.h"
#include "vgic/vgic_hw.h"

/* every vCPU on shared CPU c, from the one whose turn it is */
#define for_each_on(c, v) \
    for (struct vcpu *v = (c)->rr, *_n = NULL; _n != (c)->rr; v = _n = v->share->next)

/* ---- set-up: the ring of vCPUs on each shared CPU ---- */

/* the page the next states are cut from, one after the other (each as
 * aligned as its type asks), and the bytes left in it */
static struct vcpu_share *share_pool;
static size_t share_left;

static struct vcpu_share *share_alloc(struct vcpu *v)
{
    if (share_left < sizeof(struct vcpu_share)) {
        share_pool = page_alloc(1, 1);
        share_left = (share_pool != NULL) ? (size_t)PAGE_SIZE : (size_t)0;
        if (share_pool == NULL) {
            pr_err("no hypervisor memory for the state of shared vCPUs\n");
            hyp_halt();
        }
    }
    struct vcpu_share *s = share_pool;
    share_pool = &share_pool[1];
    share_left -= sizeof(struct vcpu_share);
    (void)memset(s, 0, sizeof(*s));
    s->slice = timer_us_to_ticks(v->vm->cfg->slice_us);
    s->budget = (int64_t)s->slice;
    s->next = v;
    return s;
}

void sched_assign(struct vcpu *v)
{
    struct pcpu *c = &pcpus[v->pcpu];
    struct vcpu *first = c->vcpu;
    if (!first) {
        c->vcpu = c->rr = v;
        return;
    }
    if (!first->share) {
        first->share = share_alloc(first);
    }
    c->shared = true;
    v->share = share_alloc(v);
    struct vcpu *last = first;
    while (last->share->next != first) {
        last = last->share->next;
    }
    last->share->next = v;
    v->share->next = first;
}

void sched_share_own(struct vcpu *v)
{
    if (v->share == NULL) {
        v->share = share_alloc(v);
    }
    pcpus[v->pcpu].shared = true;
}

void sched_share_print(void)
{
    for (unsigned int i = 0u; i < MAX_CPUS; i++) {
        struct pcpu *c = &pcpus[i];
        if (!c->shared || sched_cyclic_cpu(i)) {
            continue;       /* (a CPU under the cyclic schedules: its windows) */
        }
        char line[160];
        int n = snprintf(line, sizeof(line), "sched: CPU %u shared by", i);
        for_each_on(c, v) {
            if (n < (int)sizeof(line)) {
                n += snprintf(line + n, sizeof(line) - (size_t)n, "%s %s/vcpu%u (%lu us)",
                              v == c->rr ? "" : ",", v->vm->cfg->name, v->id,
                              (unsigned long)v->vm->cfg->slice_us);
            }
        }
        pr_info("%s\n", line);
    }
}

void sched_share_reset(struct vcpu *v)
{
    struct vcpu_share *s = v->share;
    (void)memset(&s->vfp, 0, sizeof(s->vfp));     /* FPEXC.EN clear, as out of reset */
    if (pcpus[v->pcpu].vfp_owner == &s->vfp) {
        pcpus[v->pcpu].vfp_owner = NULL;    /* what the VFP holds is the old life's */
    }
    s->blocked = s->boost = s->ppi_active = s->pmu_ppi_active = false;
}

/* ---- waking ---- */

void sched_share_block(struct vcpu *v)
{
    v->share->blocked = true;
    this_cpu()->attention = 1u;  /* leave the guest: the loop puts v away */
}

/* The saved virtual timer's deadline on the physical counter, 0: none
 * (disabled or masked, B8.2.4; a compare value past the counter's range
 * never fires) */
static inline __attribute__((always_inline)) uint64_t vtimer_deadline(const struct vcpu *v)
{
    uint64_t cval = v->timer.cntv_cval, off = v->vm->cntvoff;
    if ((v->timer.cntv_ctl & 3u) != 1u || cval > ~0ULL - off) {
        return 0;
    }
    return cval + off;
}

/* d: its sched_share_vtimer_deadline */
static inline __attribute__((always_inline)) bool has_work(struct vcpu *v, uint64_t d, uint64_t now)
{
    /* a guest not started yet has no distributor to ask (its vgic_init
     * comes with its start, on the boot CPU, while this CPU already runs
     * the others) */
    return (v->requests & ~VCPU_REQ_HELD) || (d && d <= now) ||
           (v->vm->state == GUEST_RUNNING && vgic_saved_wants_wake(&v->vm->vgic, v->id));
}

static bool eligible(struct vcpu *v)
{
    return vcpu_runnable(v) && !v->share->blocked;
}


/* the hypervisor timer: a slice is over, or an away vCPU's timer is due */
static void look_again(void)
{
    this_cpu()->attention = 1u;
}

/* What one walk over the vCPUs found (update): the first two virtual-timer
 * deadlines still to come of the runnable vCPUs, and whose the first is
 * (the hypervisor timer watches the first one of a vCPU that is away: the
 * loaded one's own is live), and the vCPU pick runs first */
struct survey {
    uint64_t d1, d2;    /* HYP_TIMER_NEVER: none */
    struct vcpu *v1;
    struct vcpu *boosted;   /* and the first eligible boosted vCPU from the turn */
};

static uint64_t vtimer_away(const struct survey *n, const struct vcpu *cur)
{
    return n->v1 == cur ? n->d2 : n->d1;
}

/* Requests taken; a vCPU with an interrupt for it (or its virtual timer
 * due) while it slept in WFI or waited for its turn runs next, ahead of
 * the vCPU whose turn it is, if it has budget left.  (The vCPU that just
 * ran is asked too: an interrupt for it taken in HYP kicks it out of its
 * guest, and it runs again at once.)  One already due waits for budget,
 * not for a timer. */
static void update(struct pcpu *c, uint64_t now, struct survey *n)
{
    n->d1 = n->d2 = HYP_TIMER_NEVER;
    n->v1 = n->boosted = NULL;
    for_each_on(c, v) {
        struct vcpu_share *s = v->share;
        if (v->requests != 0u) {
            vcpu_take_requests(v);
        }
        uint64_t d = vtimer_deadline(v);
        if (d > now && d < n->d2 && vcpu_runnable(v)) {
            if (d < n->d1) {
                n->d2 = n->d1;
                n->d1 = d;
                n->v1 = v;
            } else {
                n->d2 = d;
            }
        }
        if (has_work(v, d, now)) {
            s->blocked = false;
            s->boost = s->budget > 0;
        }
        /* its state is final here (requests taken, woken or not): pick's
         * first choice, found in this walk, which starts at the turn too */
        if (s->boost && !n->boosted && eligible(v)) {
            n->boosted = v;
        }
    }
}

/* The vCPU to run next (`boosted`: update's first choice, if any), held
 * for this CPU (vcpu_claim: runnable once it is held), or NULL; the claim
 * is the round's test of each candidate, so the one that runs is looked
 * at once. */
static struct vcpu *pick(struct pcpu *c, struct vcpu *boosted)
{
    if ((boosted != NULL) && vcpu_claim(boosted)) {
        return boosted;
    }
    for (int round = 0; round < 2; round++) {
        for_each_on(c, v) {
            if (!v->share->blocked && (v->share->budget > 0) && vcpu_claim(v)) {
                c->rr = v;
                return v;
            }
        }
        /* no runnable vCPU has budget left: the next round, after the
         * vCPU whose turn it was */
        bool any = false;
        for_each_on(c, v) {
            struct vcpu_share *s = v->share;
            any |= eligible(v);
            /* an overrun (the slice's timer is late, or the last exit
             * was long) is paid back, at most half a slice a round, so
             * every runnable vCPU has budget again; none is kept */
            uint64_t half = s->slice / 2u;
            int64_t debt = (s->budget < -(int64_t)half) ? -(int64_t)half
                                                        : ((s->budget < 0) ? s->budget : 0);
            s->budget = debt + (int64_t)s->slice;
            s->boost = false;
        }
        if (!any) {
            return NULL;
        }
        c->rr = c->rr->share->next;
    }
    return NULL;
}

/* ---- switching ----
 *
 * The helpers the cyclic loop borrows (the wrappers at the end of this
 * file) are always inlined here: with a second caller GCC would call them
 * out of line, and every vCPU switch of a shared CPU, under a schedule or
 * not, would pay the calls (make bench-check: vcpu_switch). */

static inline __attribute__((always_inline)) void share_load(struct pcpu *c, struct vcpu *v)
{
    c->vcpu = v;
    /* its timer's PPI as it left it: active until its guest EOIs it
     * (hardware-linked list register), so no other vCPU's timer shows */
    if (v->share->ppi_active) {
        gic_irq_activate(host.timer.irq_virt);
    }
    vcpu_load(v);
    /* its PMU, once it has used it (the others pay this one test) */
    if (v->pmu_used) {
        if (v->share->pmu_ppi_active) {
            gic_irq_activate(host.pmu_irq);
        }
        pmu_restore(&v->share->pmu);
    }
    /* its breakpoints and watchpoints, once it has used them */
    if (v->dbg_used) {
        debug_load(&v->dbg, v->dbg_trap);
    }
    sysreg_write_hcptr(VCPU_HCPTR | (c->vfp_owner == &v->share->vfp ? 0u : HCPTR_TCP10_11));
    isb();
    v->share->switches++;
    c->switches++;
}

static inline __attribute__((always_inline)) void share_put(struct vcpu *v)
{
    if (v->dbg_used) {      /* (always, under gdb) */
        debug_save_moe(&v->dbg);
        debug_quiet();      /* none of its breakpoints fires in the next vCPU */
        /* under gdb: the VFP registers into the save area gdb reads, and
         * no longer the VFP's, so that what gdb writes is what comes back */
        struct pcpu *c = this_cpu();
        if (v->dbg_trap && (c->vfp_owner == &v->share->vfp)) {
            vfp_save(&v->share->vfp);
            c->vfp_owner = NULL;
        }
    }
    if (v->pmu_used) {
        pmu_save(&v->share->pmu);   /* and stopped: no overflow of its fires now */
        bool pmu_active = host.pmu_irq && gic_irq_active(host.pmu_irq);
        v->share->pmu_ppi_active = pmu_active;
        if (pmu_active) {
            gic_irq_deactivate(host.pmu_irq);
        }
    }
    vcpu_put(v);    /* the virtual timer is off from here: no new PPI */
    bool active = gic_irq_active(host.timer.irq_virt);
    v->share->ppi_active = active;      /* (tested in a register, not read back) */
    if (active) {
        gic_irq_deactivate(host.timer.irq_virt);
    }
}

void sched_share_left(struct vcpu *v)
{
    if (v->vm->state != GUEST_RUNNING) {
        sched_cpu0_work();  /* restart or detach: sched.c */
    }
}

/* Nothing to run: sleep until an interrupt (a kick, a timer) */
static inline __attribute__((always_inline)) void share_idle(struct pcpu *c)
{
    if (c->attention || ((c->index == 0u) && (cpu0_busy() || console_is_polled()))) {
        return;
    }
    uint64_t t0 = sysreg_read_cntpct();
    wfi();
    c->idle_ticks += sysreg_read_cntpct() - t0;
    gic_handle_irq();
}

void sched_share_vfp_service(struct pcpu *c)
{
    if (c->vfp_owner != NULL) {
        sysreg_write_hcptr(VCPU_HCPTR);     /* CP10/11 open to HYP */
        isb();
        vfp_save(c->vfp_owner);
        c->vfp_owner = NULL;
    }
    dsb_ish();          /* saved, before the asker reads the area */
    c->vfp_flush = false;
}

bool sched_share_vfp_flush(unsigned int cpu)
{
    struct pcpu *c = &pcpus[cpu];
    if (c == this_cpu()) {
        sched_share_vfp_service(c);   /* here, between guests */
        return true;
    }
    c->vfp_flush = true;
    c->attention = 1u;   /* out of its guest, to the top of its loop */
    dsb_ish();
    gic_kick_cpu(cpu);
    uint64_t t0 = timer_now();
    uint32_t looks = 0u;
    while (c->vfp_flush && !timer_waited_us(t0, 1000000u, &looks)) {
        ;
    }
    dsb_ish();
    return !c->vfp_flush;
}

void sched_share_loop(struct pcpu *c)
{
    bool boot_cpu = c->index == 0u;
    uint64_t now = timer_now();
    for (;;) {
        if (!boot_cpu) {
            c->attention = 0u;
            dsb_ish();  /* clear before looking: a later kick is seen next time */
        } else if (cpu0_service()) {
            now = timer_now();      /* (the housekeeping took its time) */
        } else {
            /* no housekeeping this pass: now still holds */
        }
        if (c->vfp_flush) {
            sched_share_vfp_service(c);
        }
        struct survey vt;
        update(c, now, &vt);
        struct vcpu *v = pick(c, vt.boosted);
        if (!v) {
            hyp_timer_set_share(HYP_TIMER_NEVER, vtimer_away(&vt, NULL), look_again);
            share_idle(c);
            now = timer_now();
            continue;
        }
        share_load(c, v);
        /* the slice's end and the away vCPUs' first timer: one comparator
         * write.  The last slice's deadline stayed armed while the CPU was
         * between guests (IRQs masked: at worst one more look) */
        uint64_t t0 = timer_now();
        hyp_timer_set_share(t0 + (uint64_t)v->share->budget, vtimer_away(&vt, v),
                            look_again);
        vcpu_run(v, c, boot_cpu && console_is_polled());
        share_put(v);
        vcpu_release(v);
        now = timer_now();
        uint64_t ran = now - t0;
        v->share->run_ticks += ran;
        v->share->budget -= (int64_t)ran;
        v->share->boost = false;    /* served: back to its turn in the round */
        if (v->vm->state != GUEST_RUNNING) {
            sched_cpu0_work();  /* restart or detach: sched.c */
        }
    }
}

/* ---- what the cyclic loop (hyp/sched/cyclic.c) borrows: share_internal.h
 * (wrappers, so that this loop keeps its own calls inlined) ---- */

void sched_share_load(struct pcpu *c, struct vcpu *v)
{
    share_load(c, v);
}

void sched_share_put(struct vcpu *v)
{
    share_put(v);
}

void sched_share_idle(struct pcpu *c)
{
    share_idle(c);
}

uint64_t sched_share_vtimer_deadline(const struct vcpu *v)
{
    return vtimer_deadline(v);
}

bool sched_share_has_work(struct vcpu *v, uint64_t d, uint64_t now)
{
    return has_work(v, d, now);
}

void sched_share_look_again(void)
{
    look_again();
}
