/*
 * A guest for cyclic schedules (tests/system/test_cyclic.py), by bootargs:
 *
 * role=0, honest: every vCPU takes its virtual timer every tick= us; a
 * tick after a silence longer than three ticks (or gap= us) is a window's start (the
 * tick fell due while the vCPU was off its CPU and is taken as soon as it
 * is back).  Each start's phase is its distance in counter ticks from
 * the first start of vCPU 0 plus a whole number of frames (frame= us):
 * zero drift keeps the phases of every start of every vCPU (gang) within
 * the jitter, however many frames pass.  A phase that jumps by more than
 * MOVE_US for two starts is a schedule switch: it is reported with the
 * distance between the last start before and the first after, and the
 * phases go on from there (one start away and the next back in place was
 * late: its phase counts).  vCPU 0 prints a report every report= windows; the phases of the
 * first warmup= windows are left out of it (the other CPUs' start-up).
 * Each start falls in a frame (the one whose whole-frame place is within
 * half a frame of it); from the warmup on, with trace=1 the report gives
 * each vCPU's starts and the frames they span: as many starts as frames is a window in
 * every frame, none lost and none twice (a partition's window trace,
 * which test_health_faults_leave_windows compares with and without a
 * fault beside it).
 *
 * role=1, hostile=N: tries to outrun its window: 1 interrupts masked and
 * a busy loop, 2 interrupts masked and WFE, 3 a busy loop.  It reads the
 * counter all the time and reports the longest run it saw between two
 * silences (its time on the CPU).
 *
 * role=3, a control partition: after= ms, reads the schedules
 * (PARTITA_MG_SCHEDULE) and switches to to= (PARTITA_MG_SCHEDULE_SET).
 */
#include "guest.h"
#include "manage_client.h"
#include <partita/manage_abi.h>

#define PSCI_CPU_ON     0x84000003u
#define VTIMER_PPI      27u
#define GICD_CTLR       (GICD_BASE + 0x000)
#define GICD_ISENABLER0 (GICD_BASE + 0x100)
#define GICD_ICENABLER0 (GICD_BASE + 0x180)
#define GICC_CTLR       (GICC_BASE + 0x000)
#define GICC_PMR        (GICC_BASE + 0x004)
#define GICC_IAR        (GICC_BASE + 0x00c)
#define GICC_EOIR       (GICC_BASE + 0x010)
#define MAX_VCPUS       4
#define MOVE_US         20u

static uint32_t frame_us = 1000, tick_us = 50, gap_us, report = 10000, warmup, role, hostile;
static uint32_t trace_on;
static uint32_t F, tick, gap, move;
static volatile uint64_t ref;
static volatile bool ref_set;

struct vstat {
    bool seen, started;
    uint64_t last, exp, prev;
    volatile uint32_t n, moves;
    volatile int32_t min, max, lastph;
    volatile uint32_t max_at;   /* the window of the latest start */
    volatile int32_t move_by;
    bool pending;               /* one start away from the phase: which? */
    int32_t pend_ph;
    uint64_t pend_apart;
    volatile uint64_t move_apart;
    uint32_t frame;             /* the frame of the latest start, from the first */
    uint32_t frame0;            /* the frame of the first start traced */
    volatile uint32_t traced;   /* starts from the warmup on */
    volatile uint32_t frames;   /* the frames they span */
};
static struct vstat st[MAX_VCPUS];

/* a start in frame f, counted from the warmup on */
static void trace(struct vstat *s, uint32_t f)
{
    if (s->n < warmup)
        return;
    if (!s->traced)
        s->frame0 = f;
    s->traced++;
    s->frames = f - s->frame0 + 1u;
}

static void sample(struct vstat *s, uint64_t t)
{
    if (!s->seen) {         /* it started somewhere in a window */
        s->seen = true;
        s->last = t;
        return;
    }
    bool start = t - s->last > gap;
    s->last = t;
    if (!start)
        return;
    if (!ref_set) {
        ref = t;
        dsb();
        ref_set = true;
    }
    if (!s->started) {
        s->started = true;
        s->exp = ref;
        s->min = 0x7fffffff;
        s->max = -0x7fffffff;
    }
    while ((int64_t)(t - s->exp) > (int64_t)(F / 2)) {
        s->exp += F;
        s->frame++;
    }
    int32_t ph = (int32_t)(int64_t)(t - s->exp);
    bool jump = s->n && (ph - s->lastph > (int32_t)move || s->lastph - ph > (int32_t)move);
    if (jump && s->pending && ph - s->pend_ph <= (int32_t)move &&
        s->pend_ph - ph <= (int32_t)move) {
        /* two starts at the new place: a switch moved the windows (in the
         * warmup, the start-up's disturbance: no switch); the phases go
         * on from there */
        s->exp += (uint64_t)(int64_t)(ph - s->lastph);
        if (s->n >= warmup) {
            s->move_by = ph - s->lastph;
            s->move_apart = s->pend_apart;
            s->moves++;
        }
        ph = s->lastph;
        jump = false;
        s->pending = false;
    } else if (jump) {
        /* one start elsewhere: a late start, or the first of a move */
        s->pending = true;
        s->pend_ph = ph;
        s->pend_apart = t - s->prev;
        s->prev = t;
        return;
    } else if (s->pending) {
        /* back in place: that one start was late, and counts so (in
         * the frame before this start's) */
        s->pending = false;
        trace(s, s->frame - 1u);
        if (s->pend_ph < s->min)
            s->min = s->pend_ph;
        if (s->pend_ph > s->max) {
            s->max = s->pend_ph;
            s->max_at = s->n;
        }
    }
    if (s->n == warmup) {       /* the boot's disturbances forgotten */
        s->min = 0x7fffffff;
        s->max = -0x7fffffff;
    }
    if (ph < s->min)
        s->min = ph;
    if (ph > s->max) {
        s->max = ph;
        s->max_at = s->n;
    }
    s->lastph = ph;
    s->prev = t;
    trace(s, s->frame);
    s->n++;
}

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) == VTIMER_PPI) {
        uint64_t t = cntvct();
        sample(&st[cpu_id() % MAX_VCPUS], t);
        vtimer_arm(t + tick);
    }
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

static void tick_start(void)
{
    mmio_write32(GICD_ISENABLER0, 1u << VTIMER_PPI);
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
    vtimer_arm(cntvct() + tick);
    __asm__ volatile("cpsie i");
}

static void report_all(void)
{
    int32_t lo = 0x7fffffff, hi = -0x7fffffff;
    uint32_t starts = 0;
    for (unsigned int i = 0; i < MAX_VCPUS; i++) {
        if (!st[i].n)
            continue;
        starts++;
        lo = st[i].min < lo ? st[i].min : lo;
        hi = st[i].max > hi ? st[i].max : hi;
    }
    gprintf("cyclic: %lu windows, %lu vCPUs, %lu moves, phase %ld..%ld ticks\n",
            (unsigned long)st[0].n, (unsigned long)starts, (unsigned long)st[0].moves,
            (long)lo, (long)hi);
    /* each vCPU's own, for a gang: which of them a start was off on */
    for (unsigned int i = 0; i < MAX_VCPUS && starts > 1; i++) {
        if (st[i].n)
            gprintf("cyclic: vCPU %u: %lu windows, phase %ld..%ld ticks\n", i,
                    (unsigned long)st[i].n, (long)st[i].min, (long)st[i].max);
    }
    /* (only when asked: longer reports moved one of test_cyclic_hostile's
     * starts by a thousand ticks, under -icount the same on every run;
     * its bound was measured with these) */
    for (unsigned int i = 0; i < MAX_VCPUS && trace_on; i++) {
        if (st[i].n)
            gprintf("cyclic: vCPU %u traced %lu starts in %lu frames\n", i,
                    (unsigned long)st[i].traced, (unsigned long)st[i].frames);
    }
    gprintf("cyclic: latest start in window %lu\n", (unsigned long)st[0].max_at);
}

static void __attribute__((noreturn)) honest(unsigned int cpu)
{
    if (cpu) {
        tick_start();
        for (;;)
            WFI_WHILE(true);    /* its ticks, in the interrupt handler */
    }
    uint32_t next = report, moves = 0;
    for (;;) {
        WFI_WHILE(st[0].n < next && st[0].moves == moves);
        if (st[0].moves != moves) {
            moves = st[0].moves;
            gprintf("cyclic: moved by %ld ticks, starts %lu ticks apart\n",
                    (long)st[0].move_by, (unsigned long)st[0].move_apart);
        }
        if (st[0].n >= next) {
            next += report;
            report_all();
        }
    }
}

static void __attribute__((noreturn)) outrun(void)
{
    if (hostile != 3)
        __asm__ volatile("cpsid if");
    uint64_t last = cntvct(), run_start = last, longest = 0;
    uint32_t n = 0;
    for (;;) {
        if (hostile == 2)
            __asm__ volatile("wfe");
        uint64_t t = cntvct();
        if (t - last > gap) {
            uint64_t run = last - run_start;
            if (n && run > longest)
                longest = run;
            if (++n % report == 0)
                gprintf("hostile %lu: %lu windows, longest run %lu ticks\n",
                        (unsigned long)hostile, (unsigned long)n, (unsigned long)longest);
            run_start = t;
        }
        last = t;
    }
}

static void switcher(void)
{
    uint32_t to = 1, after = 1000;
    bootarg_u32("to", &to);
    bootarg_u32("after", &after);
    /* asleep until then (not a busy loop: under -icount a busy CPU costs
     * a QEMU instruction per virtual ns): the virtual timer's interrupt,
     * masked, ends each WFI */
    uint64_t end = cntvct() + (uint64_t)after * (cntfrq() / 1000u);
    mmio_write32(GICD_ISENABLER0, 1u << VTIMER_PPI);
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
    vtimer_arm(end);
    while (cntvct() < end)
        __asm__ volatile("wfi");
    vtimer_off();
    /* its interrupt acknowledged (masked, it is never taken) and off: left
     * pending it would end every later WFI at once, and CPU 0 would loop
     * through WFI exits beside the windows measured */
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
    mmio_write32(GICD_ICENABLER0, 1u << VTIMER_PPI);
    static struct partita_schedule s;
    struct r4 r = mg_call(PARTITA_MG_SCHEDULE, 0, (uint32_t)&s, sizeof(s), 0);
    gprintf("switcher: %ld schedules %lu, in force %s\n", (long)r.r0, (unsigned long)s.count,
            s.name[s.in_force % PARTITA_SCHEDULES]);
    r = mg_call(PARTITA_MG_SCHEDULE_SET, to, 0, 0, 0);
    gprintf("switcher: switch to %lu: %ld, from frame %lu\n", (unsigned long)to, (long)r.r0,
            (unsigned long)r.r1);
    r = mg_call(PARTITA_MG_SCHEDULE_SET, to, 0, 0, 0);
    gprintf("switcher: again at once: %ld\n", (long)r.r0);
    r = mg_call(PARTITA_MG_SCHEDULE_SET, 99, 0, 0, 0);
    gprintf("switcher: to 99: %ld\n", (long)r.r0);
}

void guest_secondary(unsigned int cpu)
{
    honest(cpu);
}

void guest_main(uint32_t dtb)
{
    bootarg_u32("role", &role);
    bootarg_u32("hostile", &hostile);
    bootarg_u32("frame", &frame_us);
    bootarg_u32("tick", &tick_us);
    bootarg_u32("gap", &gap_us);
    bootarg_u32("report", &report);
    bootarg_u32("warmup", &warmup);
    bootarg_u32("trace", &trace_on);
    uint64_t hz = cntfrq();
    F = (uint32_t)(frame_us * hz / 1000000u);
    tick = (uint32_t)(tick_us * hz / 1000000u);
    gap = gap_us ? (uint32_t)(gap_us * hz / 1000000u) : 3 * tick;
    move = (uint32_t)(MOVE_US * hz / 1000000u);
    mmio_write32(GICD_CTLR, 1);
    gprintf("cyclic: role %lu, frame %lu us, %lu ticks\n", (unsigned long)role,
            (unsigned long)frame_us, (unsigned long)F);
    if (role == 1)
        outrun();
    if (role == 3) {
        switcher();
        for (;;)
            __asm__ volatile("wfi");
    }
    tick_start();
    for (unsigned int i = 1; i < guest_dt.ncpus && i < MAX_VCPUS; i++) {
        /* after vCPU 0's first window start: the reference is set */
        while (!ref_set)
            WFI_WHILE(!ref_set);
        struct smc_ret r = hvc_call(PSCI_CPU_ON, i, (uint32_t)secondary_start, i);
        if (r.r0)
            gprintf("cyclic: vCPU %u on: %ld\n", i, (long)(int32_t)r.r0);
    }
    honest(0);
}
