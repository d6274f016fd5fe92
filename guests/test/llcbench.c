/*
 * The interference benchmark to run on a board (docs/colours.md,
 * docs/temporal-isolation.md): what cache colouring and memory-bandwidth
 * budgets buy cannot be seen in QEMU, which models no cache and counts no
 * refills.
 *
 * bootargs role=victim ws=<KiB> rounds=<n> [tick=<Hz>]: a pointer chase
 * through a working set of ws KiB (one pointer per 64-byte line, in a
 * random cyclic order, so no prefetcher helps), timed with the PMU's cycle
 * counter: the victim's run time.  It prints the cycles per access of every
 * round and the minimum, median and maximum.  With tick, a virtual-timer
 * interrupt at that rate runs beside the chase and the lateness of its
 * handler against each deadline is its latency: the summary adds the
 * average and worst in nanoseconds.  Then it powers off.
 * bootargs role=aggressor mb=<MiB>: writes one word per line through a
 * buffer of mb MiB, round after round, evicting whatever shares its cache
 * sets and loading the memory bus; it never stops (the monitor's `stop`
 * does).
 * Both run with the MMU and caches on: with its Stage-1 MMU off a guest's
 * data accesses are Strongly-ordered, never cached (ARM ARM B3.2.1), and
 * the benchmark would measure DRAM alone.
 * tests/system/configs/llcbench-*.dts place them: shared, coloured,
 * regulated (a memory-bandwidth budget on the aggressor) and both.
 */
#include <string.h>
#include "guest.h"

#define LINE        64u
#define PMCR_E      (1u << 0)
#define PMCR_C      (1u << 2)
#define CCNT        (1u << 31)
#define MAX_ROUNDS  64
#define SCTLR_M     (1u << 0)
#define SCTLR_C     (1u << 2)
#define VTIMER_PPI  27u
#define INTID_MASK  0x3ffu
#define INTID_SPURIOUS 1020u
#define NS_PER_S    1000000000ull

/* the virtual timer's ticks of role=victim tick=Hz: lateness of each handler */
static volatile uint32_t ticks;
static volatile uint64_t late_sum, late_worst;
static uint64_t deadline, period;

static inline uint32_t ccnt(void)
{
    uint32_t v;
    __asm__ volatile("isb\n mrc p15, 0, %0, c9, c13, 0" : "=r"(v));
    return v;
}

static void ccnt_on(void)
{
    __asm__ volatile("mcr p15, 0, %0, c9, c12, 0" : : "r"(PMCR_E | PMCR_C));
    __asm__ volatile("mcr p15, 0, %0, c9, c12, 1" : : "r"(CCNT));
}

/* a random cyclic order of the n lines at buf: each holds the next's address */
static void build_chase(uint8_t *buf, uint32_t n, uint32_t seed)
{
    static uint32_t order[65536];
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    for (uint32_t i = n - 1; i > 0; i--) {      /* Fisher-Yates */
        uint32_t j = rand_next(&seed) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (uint32_t i = 0; i < n; i++)
        *(uint8_t **)(buf + order[i] * LINE) = buf + order[(i + 1) % n] * LINE;
}

static uint32_t chase(uint8_t *p, uint32_t steps)
{
    uint32_t t0 = ccnt();
    for (uint32_t i = 0; i < steps; i++)
        p = *(uint8_t **)p;
    uint32_t t = ccnt() - t0;
    __asm__ volatile("" : : "r"(p));
    return t;
}

void guest_irq_handler(uint32_t *frame)
{
    (void)frame;
    uint32_t iar = mmio_read32(GICC_BASE + 0x00cu);      /* GICC_IAR */
    bool tick = (iar & INTID_MASK) == VTIMER_PPI;
    if (tick) {
        uint64_t late = cntvct() - deadline;
        late_sum += late;
        if (late > late_worst)
            late_worst = late;
        ticks++;
        deadline += period;
        /* off until after the EOI, as Linux masks its timer in the
         * handler: a deadline already passed would hold the line high
         * through the EOI, which QEMU does not signal again
         * (docs/qemu-versions.md) */
        vtimer_off();
    }
    if ((iar & INTID_MASK) < INTID_SPURIOUS)
        mmio_write32(GICC_BASE + 0x010u, iar);            /* GICC_EOIR */
    if (tick)
        vtimer_arm(deadline);
}

/* the virtual timer's PPI to this CPU at hz, IRQs unmasked */
static void tick_start(uint32_t hz)
{
    period = cntfrq() / hz;
    mmio_write32(GICD_BASE + 0x000u, 1u);                 /* GICD_CTLR */
    mmio_write32(GICD_BASE + 0x100u, 1u << VTIMER_PPI);   /* GICD_ISENABLER0 */
    mmio_write32(GICC_BASE + 0x004u, 0xf0u);              /* GICC_PMR */
    mmio_write32(GICC_BASE + 0x000u, 1u);                 /* GICC_CTLR */
    deadline = cntvct() + period;
    vtimer_arm(deadline);
    __asm__ volatile("cpsie i");
}

static uint32_t sctlr(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c1, c0, 0" : "=r"(v));
    return v;
}

static void sort(uint32_t *v, unsigned int n)
{
    for (unsigned int i = 1; i < n; i++)
        for (unsigned int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint32_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

static void victim(uint32_t ws_kib, uint32_t rounds, uint32_t hz)
{
    uint8_t *buf = (uint8_t *)((image_end() + 0xfffffu) & ~0xfffffu);
    uint32_t lines = ws_kib * 1024 / LINE, hundredths[MAX_ROUNDS];
    if (lines > 65536)
        lines = 65536;
    rounds = rounds > MAX_ROUNDS ? MAX_ROUNDS : rounds;
    build_chase(buf, lines, 12345);
    ccnt_on();
    if (hz)
        tick_start(hz);
    chase(buf, lines);                          /* warm: the set in the cache */
    for (uint32_t r = 0; r < rounds; r++) {
        uint32_t t = chase(buf, 4 * lines);
        hundredths[r] = (uint32_t)((uint64_t)t * 100 / (4 * lines));
        gprintf("llcbench: round %lu: %lu.%02lu cycles/access\n", (unsigned long)r,
                (unsigned long)(hundredths[r] / 100), (unsigned long)(hundredths[r] % 100));
        delay_ms(10);
    }
    sort(hundredths, rounds);
    uint32_t mn = hundredths[0], md = hundredths[rounds / 2], mx = hundredths[rounds - 1];
    gprintf("llcbench: working set %lu KiB, %lu rounds: cycles/access min %lu.%02lu median "
            "%lu.%02lu max %lu.%02lu\n", (unsigned long)ws_kib, (unsigned long)rounds,
            (unsigned long)(mn / 100), (unsigned long)(mn % 100), (unsigned long)(md / 100),
            (unsigned long)(md % 100), (unsigned long)(mx / 100), (unsigned long)(mx % 100));
    if (hz) {
        __asm__ volatile("cpsid i");
        vtimer_off();
        uint64_t f = cntfrq(), n = ticks;
        uint64_t avg = n ? late_sum / n : 0;
        gprintf("llcbench: timer at %lu Hz, %lu ticks: latency avg %lu ns, worst %lu ns\n",
                (unsigned long)hz, (unsigned long)n, (unsigned long)(avg * NS_PER_S / f),
                (unsigned long)(late_worst * NS_PER_S / f));
    }
}

static void aggressor(uint32_t mb)
{
    volatile uint32_t *buf = (volatile uint32_t *)((image_end() + 0xfffffu) & ~0xfffffu);
    uint32_t words = mb * (1024 * 1024 / 4);
    gprintf("llcbench: aggressor writing through %lu MiB\n", (unsigned long)mb);
    for (uint32_t round = 0;; round++)
        for (uint32_t i = 0; i < words; i += LINE / 4)
            buf[i] = round;
}

void guest_main(uint32_t dtb)
{
    uint32_t ws = 256, rounds = 20, mb = 4, hz = 0;
    mmu_enable();
    uint32_t on = sctlr() & (SCTLR_M | SCTLR_C);
    gprintf("llcbench: MMU %s, data cache %s\n", (on & SCTLR_M) ? "on" : "off",
            (on & SCTLR_C) ? "on" : "off");
    bootarg_u32("ws", &ws);
    bootarg_u32("rounds", &rounds);
    bootarg_u32("mb", &mb);
    bootarg_u32("tick", &hz);
    if (strstr(guest_dt.bootargs, "role=aggressor"))
        aggressor(mb);
    else
        victim(ws ? ws : 1, rounds ? rounds : 1, hz);
}
