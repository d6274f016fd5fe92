/*
 * Cyclic schedules: cyclic.h says what.  Every CPU under the schedules
 * keeps its own copy of the frame sequence (the same arithmetic from the
 * same epoch gives the same boundaries on every CPU, with no message
 * between them), runs the vCPU of the window it is in, and sleeps in the
 * gaps.  Everything of a CPU happens on that CPU with IRQs masked; a
 * switch is requested through cyc_switch_to and cyc_switch_frame, which
 * each CPU reads at its frame boundaries.
 */
#include <string.h>
#include <arch/sysregs.h>
#include "cyclic.h"
#include "sched_internal.h"
#include "share_internal.h"
#include "cyclic_internal.h"
#include "hyp/arch/vm.h"
#include "hyp/arch/vcpu_share.h"
#include "hyp/config/guest_config.h"
#include "hyp/lib/console.h"
#include "hyp/platform/percpu.h"
#include "timer/hyp_timer.h"
#include "timer/timer.h"
#include "vgic/gic.h"

/* a frame's ticks are frame_us * CNTFRQ / US_PER_S, its remainder carried */
#define US_PER_S 1000000u
/* the first frame starts this long after the boot CPU set the epoch, so
 * that every CPU is in its loop for it */
#define EPOCH_LEAD_US 1000u

/* sched_cyclic_start with schedules */
static void cyclic_start_scheds(const struct system_config *sys,
                                struct vm *(*vm_of)(unsigned int i))
{
    uint64_t f = timer_freq();
    for (unsigned int i = 0u; i < cyc_nscheds; i++) {
        struct csched *s = &cyc_scheds[i];
        s->cfg = &sys->sched.s[i];
        uint64_t n = (uint64_t)s->cfg->frame_us * f;
        s->q = n / US_PER_S;
        s->r = (uint32_t)(n % US_PER_S);
        for (unsigned int cpu = 0u; cpu < SCHED_CPUS; cpu++) {
            const struct sched_table *t = &s->cfg->cpu[cpu];
            s->n[cpu] = t->nwindows;
            for (unsigned int k = 0u; k < t->nwindows; k++) {
                const struct sched_window *w = &t->w[k];
                const struct guest_config *g = &sys->guest_cfg[w->guest];
                struct vm *vm = vm_of(w->guest);
                s->w[cpu][k].start = timer_us_to_ticks(w->offset_us);
                s->w[cpu][k].end = timer_us_to_ticks(w->offset_us + w->length_us);
                s->w[cpu][k].v = NULL;
                for (unsigned int j = 0u; j < g->ncpus; j++) {
                    if (g->cpus[j] == cpu) {
                        s->w[cpu][k].v = &vm->vcpu[j];
                    }
                }
            }
        }
    }
    /* every vCPU on these CPUs is away at times: the shared CPUs' state */
    for (unsigned int gi = 0u; gi < sys->nguest_cfg; gi++) {
        for (unsigned int j = 0u; j < sys->guest_cfg[gi].ncpus; j++) {
            if (sched_cyclic_cpu(sys->guest_cfg[gi].cpus[j])) {
                sched_share_own(&vm_of(gi)->vcpu[j]);
            }
        }
    }
    cyc_epoch = timer_now() + timer_us_to_ticks(EPOCH_LEAD_US);
    for (unsigned int cpu = 0u; cpu < SCHED_CPUS; cpu++) {
        struct ccpu *cc = &cyc_cpus[cpu];
        (void)memset(cc, 0, sizeof(*cc));
        cc->sched = sys->sched.boot;
        cc->frame_start = cyc_epoch;
    }
    (void)__atomic_store_n(&cyc_started, true, __ATOMIC_SEQ_CST);
    for (unsigned int cpu = 1u; cpu < SCHED_CPUS; cpu++) {
        if (sched_cyclic_cpu(cpu) && pcpus[cpu].online) {
            gic_kick_cpu(cpu);
        }
    }
    const struct schedule_config *b = &sys->sched.s[sys->sched.boot];
    pr_info("schedule: '%s' in force, major frame %lu us, CPUs 0x%lx\n", b->name,
            (unsigned long)b->frame_us, (unsigned long)cyc_cpu_mask);
}

void sched_cyclic_start(const struct system_config *sys, struct vm *(*vm_of)(unsigned int i))
{
    if (cyc_nscheds != 0u) {
        cyclic_start_scheds(sys, vm_of);
    }
}

/* the end of cc's frame: its start plus the frame, the fractions carried */
static uint64_t frame_end(const struct ccpu *cc, const struct csched *s)
{
    return cc->frame_start + s->q + (((cc->acc + s->r) >= US_PER_S) ? 1u : 0u);
}

/* on to the next frame; the schedule requested for it takes over there,
 * its epoch that frame's start */
static void next_frame(struct ccpu *cc)
{
    const struct csched *s = &cyc_scheds[cc->sched];
    cc->frame_start = frame_end(cc, s);
    cc->acc = (cc->acc + s->r) % US_PER_S;
    cc->frame++;
    uint32_t to = __atomic_load_n(&cyc_switch_to, __ATOMIC_ACQUIRE);
    if ((to != 0u) && (cc->frame == cyc_switch_frame) && (cc->sched != (to - 1u))) {
        cc->sched = to - 1u;
        cc->acc = 0u;
        cc->st.switch_tick = cc->frame_start;
        cc->st.switch_frame = cc->frame;
    }
    (void)__atomic_store_n(&cc->st.frame, cc->frame, __ATOMIC_RELAXED);
}

/* advance from the epoch on (inlined into advance: the window-switch path,
 * make bench's cyclic_window_switch) */
static inline __attribute__((always_inline)) void advance_frames(struct ccpu *cc,
                                                                 unsigned int cpu, uint64_t now)
{
    while (now >= frame_end(cc, &cyc_scheds[cc->sched])) {
        next_frame(cc);
    }
    const struct csched *s = &cyc_scheds[cc->sched];
    uint64_t off = now - cc->frame_start;
    cc->cur = NULL;
    cc->seg_end = frame_end(cc, s);
    for (unsigned int i = 0u; i < s->n[cpu]; i++) {
        const struct cwin *w = &s->w[cpu][i];
        if (off >= w->end) {
            continue;
        }
        if (off >= w->start) {
            cc->cur = w->v;
            cc->seg_start = cc->frame_start + w->start;
            cc->seg_end = cc->frame_start + w->end;
            cc->seg_id = (cc->frame * SCHED_WINDOWS_MAX) + i + 1u;
        } else {
            cc->seg_end = cc->frame_start + w->start;
        }
        break;
    }
}

/* Where cpu is at now: the frame, the window or gap, its end */
static void advance(struct ccpu *cc, unsigned int cpu, uint64_t now)
{
    if (now < cyc_epoch) {
        cc->cur = NULL;
        cc->seg_end = cyc_epoch;
    } else {
        advance_frames(cc, cpu, now);
    }
}

/* the window's vCPU may run: powered, its guest running, and not in WFI
 * without an interrupt (its virtual timer d watched while it sleeps) */
static bool may_run(struct vcpu *v, uint64_t d, uint64_t now)
{
    bool runnable = vcpu_runnable(v);
    if (runnable && v->share->blocked && sched_share_has_work(v, d, now)) {
        v->share->blocked = false;
    }
    return runnable && !v->share->blocked;
}

/* the requests of every vCPU on c (none of them is loaded) */
static void take_requests(struct pcpu *c)
{
    struct vcpu *first = c->rr;
    struct vcpu *v = first;
    if (v != NULL) {
        do {
            if (v->requests != 0u) {
                vcpu_take_requests(v);
            }
            v = v->share->next;
        } while (v != first);
    }
}

static void run_window(struct pcpu *c, struct ccpu *cc, struct vcpu *v, bool polled)
{
    sched_share_load(c, v);
    hyp_timer_set_share(cc->seg_end, HYP_TIMER_NEVER, sched_share_look_again);
    uint64_t t0 = timer_now();
    if (cc->entered != cc->seg_id) {
        /* the window's first entry: how late after its start */
        cc->entered = cc->seg_id;
        cc->st.starts++;
        uint64_t late = t0 - cc->seg_start;
        if (late > cc->st.late_max) {
            cc->st.late_max = (uint32_t)((late > 0xffffffffu) ? 0xffffffffu : late);
        }
    }
    vcpu_run(v, c, polled);
    uint64_t t1 = timer_now();
    if ((t1 > cc->seg_end) && ((t1 - cc->seg_end) > cc->st.over_max)) {
        cc->st.over_max = (uint32_t)(t1 - cc->seg_end);
    }
    sched_share_put(v);
    vcpu_release(v);
    v->share->run_ticks += t1 - t0;
    sched_share_left(v);
}

void sched_cyclic_loop(struct pcpu *c)
{
    struct ccpu *cc = &cyc_cpus[c->index];
    bool boot_cpu = c->index == 0u;
    for (;;) {
        if (!boot_cpu) {
            c->attention = 0u;
            dsb_ish();  /* clear before looking: a later kick is seen next time */
        } else {
            (void)cpu0_service();
        }
        if (c->vfp_flush) {
            sched_share_vfp_service(c);
        }
        if (!__atomic_load_n(&cyc_started, __ATOMIC_ACQUIRE)) {
            sched_share_idle(c);
            continue;
        }
        take_requests(c);
        uint64_t now = timer_now();
        advance(cc, c->index, now);
        struct vcpu *v = cc->cur;
        uint64_t d = (v != NULL) ? sched_share_vtimer_deadline(v) : 0u;
        /* held first (vcpu_claim): a stop may overtake the look above */
        if ((v != NULL) && may_run(v, d, now) && vcpu_claim(v)) {
            run_window(c, cc, v, boot_cpu && console_is_polled());
            continue;
        }
        /* a gap, or its vCPU asleep: until the boundary or its timer */
        hyp_timer_set_share(cc->seg_end,
                            ((v != NULL) && (d > now) && (d < cc->seg_end)) ? d : HYP_TIMER_NEVER,
                            sched_share_look_again);
        sched_share_idle(c);
    }
}
