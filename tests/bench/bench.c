/*
 * The benchmark guest: the cost of each virtualization path in
 * instructions, read through the guest's own counters under
 * `-icount shift=0,sleep=off` (one instruction = one virtual ns; CNTVCT at
 * 62.5 MHz ticks every 16 instructions).  The same image runs under Partita
 * and natively on QEMU's virt board (SVC mode, no hypervisor), where it
 * prints the metrics that exist there.  scripts/bench.py runs both and
 * parses the lines
 *
 *   BENCH <name> <value> <unit> <iterations>
 *
 * Exact counts from a 16-instruction tick: every timed window is measured
 * 16 times, the k-th time shifted by k nops against the tick.  The phase of
 * each start is fixed by an "anchor" first: the vCPU sleeps until its
 * virtual timer fires, and under icount that is exactly on a tick (the
 * clock warps to the deadline while every CPU sleeps).  By Hermite's
 * identity the 16 quantized differences then add up to exactly the number
 * of instructions in the window - no averaging error, no rounding.
 * The timed code is in bench_asm.S; the counter-read overhead and the loop
 * overhead are measured the same way and subtracted.
 *
 * Two vCPUs under icount: QEMU runs one CPU at a time (round robin), so a
 * CPU spinning while another has work would make a measurement of the
 * scheduler's time slices, not of Partita.  Here at most one vCPU is ever
 * runnable: the other sleeps in WFI (halted), or spins with YIELD, which
 * QEMU implements as "switch to the next CPU now".  The IPI sender YIELDs
 * right after its GICD_SGIR write, so the target's instructions follow at
 * once, and both CPUs' timestamps are on the one instruction clock.  The
 * results are identical from run to run (scripts/bench.py checks).
 */
#include <stdio.h>
#include <string.h>
#include "chan.h"

#define GICD_CTLR       (GICD_BASE + 0x000)
#define GICD_TYPER      (GICD_BASE + 0x004)
#define GICD_ISENABLER  (GICD_BASE + 0x100)
#define GICD_IPRIORITYR (GICD_BASE + 0x400)
#define GICD_SGIR       (GICD_BASE + 0xf00)
#define GICC_CTLR       (GICC_BASE + 0x000)
#define GICC_PMR        (GICC_BASE + 0x004)
#define GICC_BPR        (GICC_BASE + 0x008)
#define GICC_IAR        (GICC_BASE + 0x00c)
#define GICC_EOIR       (GICC_BASE + 0x010)
#define UART_FR         (VUART_BASE + 0x018)

#define VTIMER          27
#define SGI_PING        1
#define SGI_WAKE        2
#define UNMAPPED_IPA    0x0c000000u     /* nothing there on the virtual board */
#define UNKNOWN_HVC     0x8600fe00u     /* in Partita's range, not a call */

/* instructions of the IRQ entry before its counter read (bench_asm.S) */
#define IRQ_ENTRY_INSNS  6
/* an anchor sleeps this many ticks (must outlast the WFI trap path) */
#define ANCHOR_TICKS    64

/* workload sizes */
#define INT_ITERS       (2u << 20)
#define MEM_BUF         0x40400000u     /* 8 MiB, inside the 16 MiB guest */
#define MEM_WORDS       (2u << 20)

/* ---- bench_asm.S ---- */
extern uint32_t boot_stamp[4];
extern uint32_t bench_vectors[], irq_sled_end[];
extern volatile uint32_t irq_sled_target;
void dither(unsigned int j);
typedef uint32_t (*loop_fn)(uint32_t n, uint32_t a, uint32_t b);
uint32_t loop_empty(uint32_t n, uint32_t a, uint32_t b);
uint32_t loop_hvc(uint32_t n, uint32_t a, uint32_t b);
uint32_t loop_mov(uint32_t n, uint32_t a, uint32_t b);
uint32_t loop_ldr(uint32_t n, uint32_t a, uint32_t b);
uint32_t loop_str(uint32_t n, uint32_t a, uint32_t b);
uint32_t loop_ldr2(uint32_t n, uint32_t a, uint32_t b);
uint32_t read_pair(uint32_t n, uint32_t a, uint32_t b);
void eoi_round(uint32_t out[2]);
void ipi_round(uint32_t out[2], uint32_t sgir);
void doorbell_round(uint32_t out[2], uint32_t how, uint32_t arg);
void bench_irq(uint32_t lo, uint32_t hi);

static bool native;
static unsigned int ncpus;

/* per-vCPU interrupt records, written by bench_irq */
static volatile uint32_t irq_stamp[2], irq_count[2], irq_id[2];
/* the second vCPU's loop: 0 = sleep in WFI, 1 = busy (YIELD), 2 = leave */
enum { SEC_WFI, SEC_BUSY, SEC_QUIT };
static volatile uint32_t sec_mode, sec_online, sec_done;

static inline void irq_on(void) { __asm__ volatile("cpsie i" ::: "memory"); }
static inline void irq_off(void) { __asm__ volatile("cpsid i" ::: "memory"); }
static inline void wfi(void) { __asm__ volatile("wfi" ::: "memory"); }
static inline void yield(void) { __asm__ volatile("yield" ::: "memory"); }

static inline void set_vbar(const void *v)
{
    __asm__ volatile("mcr p15, 0, %0, c12, c0, 0" : : "r"(v));
    isb();
}

static inline void cntv_set(uint64_t cval, uint32_t ctl)
{
    __asm__ volatile("mcrr p15, 3, %0, %1, c14" : : "r"((uint32_t)cval),
                     "r"((uint32_t)(cval >> 32)));
    __asm__ volatile("mcr p15, 0, %0, c14, c3, 1" : : "r"(ctl));
    isb();
}

static inline void cntv_ctl_set(uint32_t ctl)
{
    __asm__ volatile("mcr p15, 0, %0, c14, c3, 1" : : "r"(ctl));
    isb();
}

static inline uint32_t cntv_ctl(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c14, c3, 1" : "=r"(v));
    return v;
}

/*
 * Doorbell benchmark (tests/bench/configs/doorbell.dts): two guests on one
 * channel, each with its own CNTVOFF.  The peer publishes each IRQ stamp
 * in the channel memory on the physical counter's timebase; the sender
 * converts its own stamps the same way.
 */
struct db_shared {
    volatile uint32_t ready, count, stamp;
};
static struct db_shared *db_shared;     /* set in the peer only */
static uint32_t db_voff;                /* CNTPCT - CNTVCT, low word */

void bench_irq(uint32_t lo, uint32_t hi)
{
    unsigned int cpu = cpu_id() & 1;
    uint32_t iar = mmio_read32(GICC_IAR);
    uint32_t id = iar & 0x3ff;
    if (id == VTIMER)
        cntv_ctl_set(0);            /* drop the level before the EOI */
    if (db_shared) {
        db_shared->stamp = lo + db_voff;
        db_shared->count++;
    }
    irq_stamp[cpu] = lo;
    irq_id[cpu] = id;
    irq_count[cpu]++;
    if (id < 1020)
        mmio_write32(GICC_EOIR, iar);
}

static void cpu_if_init(void)
{
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_BPR, 0);
    mmio_write32(GICC_CTLR, 1);
}

/* Acknowledge and end the virtual timer's interrupt, IRQs masked. */
static void timer_ack(void)
{
    for (int i = 0; i < 64; i++) {
        uint32_t iar = mmio_read32(GICC_IAR);
        uint32_t id = iar & 0x3ff;
        if (id >= 1020)
            continue;
        if (id == VTIMER)
            cntv_ctl_set(0);
        mmio_write32(GICC_EOIR, iar);
        if (id == VTIMER)
            return;
    }
    gprintf("BENCHERR the anchor's timer interrupt never came\n");
}

/*
 * Sleep until the virtual timer fires ANCHOR_TICKS from now: afterwards
 * this vCPU is at a fixed instruction offset from a counter tick.
 * IRQs masked (the interrupt is taken by polling).
 */
static void anchor(void)
{
    cntv_set(cntvct() + ANCHOR_TICKS, 1);
    while (!(cntv_ctl() & 4))
        wfi();
    timer_ack();
}

/* Exact instructions in fn's window: 16 anchored runs, one per phase. */
static uint64_t window(loop_fn fn, uint32_t n, uint32_t a, uint32_t b)
{
    uint64_t sum = 0;
    anchor();                       /* warm-up: later rounds repeat this one */
    dither(0);
    fn(n, a, b);
    for (unsigned int j = 0; j < 16; j++) {
        anchor();
        dither(j);
        sum += fn(n, a, b);
    }
    return sum;
}

/* ---- output ---- */

/* value = num / den (den > 0), printed with two decimals */
static void report(const char *name, int64_t num, int64_t den, const char *unit,
                   uint32_t iters)
{
    int64_t v100 = (num * 100 + (num >= 0 ? den / 2 : -den / 2)) / den;
    const char *sign = v100 < 0 ? "-" : "";
    uint64_t a = (uint64_t)(v100 < 0 ? -v100 : v100);
    gprintf("BENCH %s %s%llu.%02llu %s %lu\n", name, sign, (unsigned long long)(a / 100),
            (unsigned long long)(a % 100), unit, (unsigned long)iters);
}

static uint64_t pstat(uint32_t n)
{
    return partita_stat(n);
}

/* Exits per operation over n more operations (Partita only) */
static void report_exits(const char *name, loop_fn fn, uint32_t n, uint32_t a, uint32_t b,
                         uint32_t expect_per_op)
{
    uint64_t e0 = pstat(STAT_EXITS);
    fn(n, a, b);
    uint64_t e1 = pstat(STAT_EXITS);
    uint64_t per = (e1 - e0 - 1) / n;   /* the second stats call is one exit */
    gprintf("BENCHINFO %s exits/op %llu\n", name, (unsigned long long)per);
    if (per != expect_per_op)
        gprintf("BENCHERR %s: %llu exits per operation, expected %lu\n", name,
                (unsigned long long)per, (unsigned long)expect_per_op);
}

/* ---- single-vCPU paths: op loop minus its empty twin ---- */

#define LOOP_N 256

static uint64_t loop_cost_num(loop_fn op, loop_fn empty, uint32_t a, uint32_t b)
{
    return window(op, LOOP_N, a, b) - window(empty, LOOP_N, a, b);
}

static void bench_loop(const char *name, loop_fn op, loop_fn empty, uint32_t a, uint32_t b,
                       uint32_t ops_per_iter)
{
    uint64_t d = loop_cost_num(op, empty, a, b);
    report(name, (int64_t)d, (int64_t)LOOP_N * ops_per_iter, "insns",
           16 * LOOP_N * ops_per_iter);
}

static void bench_hypercalls(void)
{
    bench_loop("hvc_unknown", loop_hvc, loop_mov, UNKNOWN_HVC, 0, 1);
    report_exits("hvc_unknown", loop_hvc, 16, UNKNOWN_HVC, 0, 1);
    bench_loop("hvc_version", loop_hvc, loop_mov, PARTITA_VERSION, 0, 1);
    bench_loop("psci_version", loop_hvc, loop_mov, PSCI_VERSION, 0, 1);
}

static void bench_mmio(void)
{
    bench_loop("mmio_gicd_typer_read", loop_ldr, loop_empty, GICD_TYPER, 0, 1);
    bench_loop("mmio_gicd_isenabler_write", loop_str, loop_empty, GICD_ISENABLER,
               1u << VTIMER, 1);
    bench_loop("mmio_uart_fr_read", loop_ldr, loop_empty, UART_FR, 0, 1);
    if (!native) {
        report_exits("mmio_gicd_typer_read", loop_ldr, 16, GICD_TYPER, 0, 1);
        report_exits("mmio_uart_fr_read", loop_ldr, 16, UART_FR, 0, 1);
    }
}

static void bench_s2_fault(void)
{
    /* Partita prints a line for every abort it injects: few iterations */
    const uint32_t n = 2;
    uint64_t a0 = pstat(STAT_TRAP(6));
    uint64_t d = window(loop_ldr2, n, UNMAPPED_IPA, 0) - window(loop_empty, n, 0, 0);
    uint64_t faults = pstat(STAT_TRAP(6)) - a0;
    if (faults != 17 * 2 * n)     /* window() runs a warm-up round too */
        gprintf("BENCHERR s2_fault: %llu aborts, expected %lu\n", (unsigned long long)faults,
                (unsigned long)(17 * 2 * n));
    report("s2_fault_roundtrip", (int64_t)d, 2 * n, "insns", 16 * 2 * n);
}

/* ---- ACK + EOI of a virtual interrupt (GICC_IAR read, GICC_EOIR write) ---- */

static void bench_eoi(void)
{
    uint32_t out[2];
    const unsigned int blocks = 8;
    uint64_t pair = window(read_pair, 0, 0, 0);
    uint64_t sum = 0;
    unsigned int bad = 0;
    anchor();                       /* warm-up */
    eoi_round(out);
    for (unsigned int r = 0; r < 16 * blocks; r++) {
        anchor();
        dither(r & 15);
        eoi_round(out);
        sum += out[0];
        if ((out[1] & 0x3ff) != 3)
            bad++;
    }
    if (bad)
        gprintf("BENCHERR eoi_ack: %u acknowledges did not return SGI 3\n", bad);
    report("eoi_ack", (int64_t)(sum - blocks * pair), blocks, "insns", 16 * blocks);
    if (native)
        return;
    /* it must not trap: the self-SGI is the only exit of a round */
    uint64_t e0 = pstat(STAT_EXITS);
    for (unsigned int r = 0; r < 64; r++)
        eoi_round(out);
    uint64_t extra = pstat(STAT_EXITS) - e0 - 1 - 64;
    report("eoi_ack_exits", (int64_t)extra, 64, "exits", 64);
}

/* ---- virtual timer: programmed deadline to the guest's IRQ vector ---- */

static void bench_vtimer(const char *name, bool sleep)
{
    const unsigned int blocks = 8;
    uint64_t sum = 0;
    mmio_write32(GICD_ISENABLER, 1u << VTIMER);
    irq_on();
    for (int r = -1; r < 16 * (int)blocks; r++) {   /* round -1: warm-up */
        irq_sled_target = (uint32_t)irq_sled_end - 4 * (r & 15);
        uint32_t c = irq_count[0];
        uint64_t d = cntvct() + 40;
        cntv_set(d, 1);
        if (sleep)
            while (irq_count[0] == c)
                wfi();
        else
            while (irq_count[0] == c)
                ;
        if (r >= 0)
            sum += (uint32_t)(irq_stamp[0] - (uint32_t)d);
    }
    irq_off();
    irq_sled_target = (uint32_t)irq_sled_end;
    /* A counter read returns the instructions executed, itself included,
     * over 16: sum / blocks counts from the deadline through the vector's
     * read, IRQ_ENTRY_INSNS + 1 instructions into it.  What is left is the
     * instructions between the deadline and the vector (natively 1: QEMU
     * takes the interrupt one instruction after the deadline). */
    report(name, (int64_t)(sum - blocks * (IRQ_ENTRY_INSNS + 1)), blocks, "insns",
           16 * blocks);
}

/* ---- virtual IPIs between vCPU 0 (sender) and vCPU 1 ---- */

struct ipi_sums { uint64_t send, recv; };

static void ipi_measure(struct ipi_sums *s, unsigned int blocks)
{
    uint32_t out[2];
    memset(s, 0, sizeof(*s));
    for (int r = -1; r < 16 * (int)blocks; r++) {   /* round -1: warm-up */
        anchor();
        uint32_t c = irq_count[1];
        dither(r & 15);
        ipi_round(out, (1u << (16 + 1)) | SGI_PING);
        for (int i = 0; irq_count[1] == c && i < 1000; i++)
            yield();
        if (irq_count[1] == c || irq_id[1] != SGI_PING)
            gprintf("BENCHERR ipi: round %d not received (id %lu)\n", r,
                    (unsigned long)irq_id[1]);
        if (r < 0)
            continue;
        s->send += out[1] - out[0];
        s->recv += irq_stamp[1] - out[1];
    }
}

static void bench_ipi(void)
{
    const unsigned int blocks = 8;
    uint32_t out[2];
    struct ipi_sums wfi_s, busy_s;

    irq_sled_target = (uint32_t)irq_sled_end;
    sec_mode = SEC_WFI;
    dsb();
    struct smc_ret r = hvc_call(PSCI_CPU_ON, 1, (uint32_t)secondary_start, 1);
    if ((int32_t)r.r0 != PSCI_SUCCESS) {
        gprintf("BENCHERR CPU_ON: %ld\n", (long)(int32_t)r.r0);
        return;
    }
    for (int i = 0; !sec_online && i < 100000; i++)
        yield();
    for (int i = 0; i < 16; i++)
        yield();                    /* let it reach its WFI */

    /* the counter-read overhead of a round (t0; t1; yield) */
    uint64_t pair = 0;
    for (unsigned int j = 0; j < 16; j++) {
        anchor();
        dither(j);
        ipi_round(out, 0);
        pair += out[1] - out[0];
    }

    ipi_measure(&wfi_s, blocks);    /* the target sleeps in WFI */

    sec_mode = SEC_BUSY;            /* the target spins in the guest */
    dsb();
    uint32_t c = irq_count[1];
    mmio_write32(GICD_SGIR, (1u << (16 + 1)) | SGI_WAKE);
    for (int i = 0; irq_count[1] == c && i < 1000; i++)
        yield();
    ipi_measure(&busy_s, blocks);

    sec_mode = SEC_QUIT;
    dsb();
    for (int i = 0; !sec_done && i < 100000; i++)
        yield();

    /*
     * send: the SGIR store's round trip (t1 - t0 less the read pair).
     * recv: instructions on the target before its IRQ vector, from the moment
     * it could run: t1 is read, the sender YIELDs (1), the target runs,
     * enters its vector and reads the counter IRQ_ENTRY_INSNS + 1 in; the
     * window t1..stamp spans 1 + recv + IRQ_ENTRY_INSNS + 1 instructions.
     */
    int64_t send = (int64_t)busy_s.send - blocks * pair;
    int64_t recv = (int64_t)busy_s.recv - blocks * (IRQ_ENTRY_INSNS + 2);
    int64_t wake = (int64_t)wfi_s.recv - blocks * (IRQ_ENTRY_INSNS + 2);
    int64_t send_w = (int64_t)wfi_s.send - blocks * pair;
    report("ipi_send", send, blocks, "insns", 16 * blocks);
    report("ipi_recv", recv, blocks, "insns", 16 * blocks);
    report("ipi_latency", send + recv, blocks, "insns", 16 * blocks);
    report("wfi_wake_ipi", wake, blocks, "insns", 16 * blocks);
    report("ipi_latency_wfi", send_w + wake, blocks, "insns", 16 * blocks);
}

void guest_secondary(unsigned int cpu)
{
    set_vbar(bench_vectors);
    cpu_if_init();
    sec_online = 1;
    dsb();
    irq_on();
    for (;;) {
        uint32_t m = sec_mode;
        if (m == SEC_QUIT)
            break;
        if (m == SEC_BUSY)
            yield();
        else
            wfi();
    }
    irq_off();
    sec_done = 1;
    dsb();
}

/* ---- channel doorbells: ring (hypercall or doorbell page) to the peer's vector ---- */

/* CNTPCT - CNTVCT exactly: both read within one tick of the physical counter */
static uint32_t counter_offset(void)
{
    for (;;) {
        uint64_t p0 = cntpct(), v = cntvct(), p1 = cntpct();
        if (p0 == p1)
            return (uint32_t)(p0 - v);
    }
}

static void doorbell_peer(struct chan *c)
{
    irq_sled_target = (uint32_t)irq_sled_end;
    db_voff = counter_offset();
    db_shared = (struct db_shared *)c->ipa;
    db_shared->ready = 1;
    dsb();
    irq_on();
    for (;;)
        wfi();                      /* the sender ends the run (its SYSTEM_OFF) */
}

struct db_sums { uint64_t send, recv, total; };

static void doorbell_measure(struct chan *c, uint32_t how, uint32_t arg, struct db_sums *s,
                             unsigned int blocks)
{
    volatile struct db_shared *sh = (volatile struct db_shared *)c->ipa;
    uint32_t out[2], voff = counter_offset();
    memset(s, 0, sizeof(*s));
    for (int r = -1; r < 16 * (int)blocks; r++) {   /* round -1: warm-up */
        anchor();
        uint32_t n = sh->count;
        dither(r & 15);
        doorbell_round(out, how, arg);
        for (int i = 0; sh->count == n && i < 1000; i++)
            yield();
        if (sh->count == n)
            gprintf("BENCHERR doorbell: round %d (how %lu) not received\n", r,
                    (unsigned long)how);
        if (r < 0)
            continue;
        s->send += out[1] - out[0];
        s->recv += sh->stamp - (out[1] + voff);
        s->total += sh->stamp - (out[0] + voff);    /* t0 to the vector */
    }
}

/*
 * As the IPI benchmark: the peer's vCPU sleeps in WFI (in Partita), the
 * sender YIELDs right after t1, so the peer's instructions follow at once
 * on the one instruction clock.  send: the ring's round trip; wake: the
 * peer's instructions from t1 to its vector (the window t1..stamp spans
 * 1 + wake + IRQ_ENTRY_INSNS + 1 instructions); latency = send + wake.
 */
static void bench_doorbell(struct chan *c)
{
    const unsigned int blocks = 8;
    volatile struct db_shared *sh = (volatile struct db_shared *)c->ipa;
    struct db_sums hvc_s, mmio_s;
    for (int i = 0; !sh->ready && i < 1000000; i++)
        yield();
    if (!sh->ready) {
        gprintf("BENCHERR doorbell: the peer never came up\n");
        return;
    }
    for (int i = 0; i < 16; i++)
        yield();                    /* let it reach its WFI */
    uint64_t pair = 0;
    uint32_t out[2];
    for (unsigned int j = 0; j < 16; j++) {
        anchor();
        dither(j);
        doorbell_round(out, 0, 0);
        pair += out[1] - out[0];
    }
    doorbell_measure(c, 1, c->id, &hvc_s, blocks);
    if (strstr(guest_dt.bootargs, "shared")) {
        /*
         * The peer shares this CPU (configs/doorbellshared.dts): the ring's
         * exit switches to it at once (it wakes with budget), so it stamps
         * its vector before the hypercall returns here: t0 to the stamp is
         * the ring, one vCPU switch and its wake, with the same corrections
         * as doorbell_latency_hvc.
         */
        report(strstr(guest_dt.bootargs, "pmu-used") ? "doorbell_latency_shared_pmu"
                                                     : "doorbell_latency_shared",
               (int64_t)hvc_s.total - blocks * pair - blocks * (IRQ_ENTRY_INSNS + 2), blocks,
               "insns", 16 * blocks);
        return;
    }
    doorbell_measure(c, 2, c->db + CHAN_DB_RING, &mmio_s, blocks);
    int64_t send_h = (int64_t)hvc_s.send - blocks * pair;
    int64_t send_m = (int64_t)mmio_s.send - blocks * pair;
    int64_t wake_h = (int64_t)hvc_s.recv - blocks * (IRQ_ENTRY_INSNS + 2);
    int64_t wake_m = (int64_t)mmio_s.recv - blocks * (IRQ_ENTRY_INSNS + 2);
    report("doorbell_hvc_send", send_h, blocks, "insns", 16 * blocks);
    report("doorbell_mmio_send", send_m, blocks, "insns", 16 * blocks);
    report("doorbell_wake", wake_h, blocks, "insns", 16 * blocks);
    report("doorbell_latency_hvc", send_h + wake_h, blocks, "insns", 16 * blocks);
    report("doorbell_latency_mmio", send_m + wake_m, blocks, "insns", 16 * blocks);
    if (wake_h != wake_m)
        gprintf("BENCHINFO doorbell: wake after the hypercall %lld, after the store %lld\n",
                (long long)wake_h / blocks, (long long)wake_m / blocks);
}

/* ---- CPU-bound workloads (compare with the native run) ---- */

static uint32_t __attribute__((noinline)) work_int(uint32_t n)
{
    uint32_t x = 0x12345678u, y = 0, z = 1;
    for (uint32_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        y += x * 2654435761u;
        z = (z * 31u) ^ (y >> 3);
    }
    return x ^ y ^ z;
}

static uint32_t __attribute__((noinline)) work_mem(volatile uint32_t *buf, uint32_t words)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i < words; i++)          /* fill */
        buf[i] = i * 2654435761u;
    for (uint32_t i = 0; i < words; i++)          /* sequential read */
        sum += buf[i];
    for (uint32_t s = 0; s < 16; s++)             /* one word per 64-byte line */
        for (uint32_t i = s; i < words; i += 16)
            sum ^= buf[i];
    for (uint32_t i = 0; i < words / 2; i++)      /* copy one half onto the other */
        buf[i + words / 2] = buf[i];
    return sum;
}

static volatile uint32_t sink;

/* the workloads; suffix names a configuration's variant ("_coloured") */
static void bench_cpu(const char *suffix)
{
    char name[32];
    uint64_t t0 = cntvct();
    sink = work_int(INT_ITERS);
    uint64_t t1 = cntvct();
    snprintf(name, sizeof(name), "cpu_int%s", suffix);
    report(name, (int64_t)(t1 - t0) * 16, 1, "insns", 1);
    t0 = cntvct();
    sink = work_mem((volatile uint32_t *)MEM_BUF, MEM_WORDS);
    t1 = cntvct();
    snprintf(name, sizeof(name), "cpu_mem%s", suffix);
    report(name, (int64_t)(t1 - t0) * 16, 1, "insns", 1);
}

/* ---- memory-bandwidth budgets ---- */

#define BUDGET_SPIN (1u << 24)      /* loop iterations, two instructions each */

/*
 * configs/budget.dts: the instructions of one exit of the budget (a
 * counter overflow drawing the next grant, or a period's refill): the
 * virtual time a fixed loop takes, less its own instructions, per exit
 * counted meanwhile (nothing else exits: no timer armed, interrupts off).
 */
static void bench_budget(void)
{
    uint64_t e0 = pstat(STAT_EXITS);
    uint64_t t0 = cntvct();
    uint32_t n = BUDGET_SPIN;
    __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n) : : "cc");
    uint64_t t1 = cntvct();
    uint64_t exits = pstat(STAT_EXITS) - e0 - 1;    /* the second stats call is one */
    gprintf("BENCHINFO budget exits %llu\n", (unsigned long long)exits);
    if (!exits) {
        gprintf("BENCHERR budget: no exit in %lu loop iterations\n",
                (unsigned long)BUDGET_SPIN);
        return;
    }
    report("budget_exit", (int64_t)((t1 - t0) * 16) - 2 * (int64_t)BUDGET_SPIN,
           (int64_t)exits, "insns", (uint32_t)exits);
}

/* ---- cyclic schedules ---- */

#define CYCLIC_FRAME_US   1000u
#define CYCLIC_WINDOW_US  500u
#define CYCLIC_WINDOWS    64u
/* a silence in the counter longer than this (16 us) is time off the CPU */
#define CYCLIC_GAP_TICKS  1000u

/*
 * configs/cyclic.dts: 'bench' has the first CYCLIC_WINDOW_US of every
 * 1 ms frame on CPU 1 and spins reading the counter.  Each silence is the
 * gap between its windows plus the hypervisor's instructions at the
 * window's end (the timer's interrupt, the vCPU put away, the CPU asleep)
 * and at the next start (the timer, the vCPU loaded, back into the
 * guest): cyclic_window_switch is those instructions, the silences less
 * the gaps' virtual time.  cyclic_window_jitter is how far apart the
 * windows' starts lie from whole frames after the first one.
 */
static void bench_cyclic(void)
{
    uint64_t frame = (uint64_t)CYCLIC_FRAME_US * cntfrq() / 1000000u;
    gprintf("BENCHINFO cyclic frame %lu ticks\n", (unsigned long)frame);
    uint64_t last = cntvct(), exp = 0, gaps = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint32_t n = 0;
    while (n <= CYCLIC_WINDOWS) {
        uint64_t t = cntvct();
        if (t - last > CYCLIC_GAP_TICKS) {
            if (n == 0) {
                exp = t;    /* the first whole window from here */
            } else {
                gaps += t - last;
                /* signed: a start a little earlier in its frame than the
                 * first one is a phase below zero, not 2^64 ticks ahead
                 * (unsigned, this loop added frames for ever) */
                while ((int64_t)(t - exp) > (int64_t)(frame / 2))
                    exp += frame;
                int64_t ph = (int64_t)(t - exp);
                lo = ph < lo ? ph : lo;
                hi = ph > hi ? ph : hi;
            }
            n++;
            /* progress, printed in the window, not in the gap it measures */
            if (n % 16 == 1)
                gprintf("BENCHINFO cyclic window %lu\n", (unsigned long)n);
        }
        last = t;
    }
    /* one instruction a virtual ns: the gap's instructions are its ns */
    int64_t idle = (int64_t)CYCLIC_WINDOWS * (CYCLIC_FRAME_US - CYCLIC_WINDOW_US) * 1000;
    report("cyclic_window_switch", (int64_t)gaps * 16 - idle, CYCLIC_WINDOWS, "insns",
           CYCLIC_WINDOWS);
    report("cyclic_window_jitter", (hi - lo) * 16, 1, "insns", CYCLIC_WINDOWS);
}

/* ---- boot ---- */

static void report_boot(void)
{
    uint64_t pct = ((uint64_t)boot_stamp[1] << 32) | boot_stamp[0];
    uint64_t vct = ((uint64_t)boot_stamp[3] << 32) | boot_stamp[2];
    gprintf("BENCHINFO boot CNTPCT %llu CNTVCT %llu at the first guest instruction\n",
            (unsigned long long)pct, (unsigned long long)vct);
    if (!native)
        report(strstr(guest_dt.bootargs, "boot-only") ? "boot_first_insn_min"
               : strstr(guest_dt.bootargs, "coloured") ? "boot_first_insn_coloured"
                                                       : "boot_first_insn",
               (int64_t)pct * 16, 1, "insns", 1);
}

void guest_main(uint32_t dtb)
{
    set_vbar(bench_vectors);
    /* natively the HVC reaches QEMU's PSCI, which knows no Partita calls */
    native = hvc_call(PARTITA_VERSION, 0, 0, 0).r0 == 0xffffffffu;
    ncpus = native ? 1 : hvc_call(PARTITA_GUEST_INFO, 0, 0, 0).r1;
    gprintf("BENCHINFO mode %s, %u vCPU%s, CNTFRQ %lu\n", native ? "native" : "partita",
            ncpus, ncpus == 1 ? "" : "s", (unsigned long)cntfrq());
    if (strstr(guest_dt.bootargs, "pmu-used")) {
        /* touch the PMU once: from now on a shared CPU switches its state
         * with the vCPU (configs/doorbellsharedpmu.dts) */
        uint32_t pmcr;
        __asm__ volatile("mrc p15, 0, %0, c9, c12, 0" : "=r"(pmcr));
        (void)pmcr;
    }
    bool doorbell = !native && strstr(guest_dt.bootargs, "doorbell");
    bool direct = !native && strstr(guest_dt.bootargs, "direct");
    bool budget = !native && strstr(guest_dt.bootargs, "budget");
    bool cyclic = !native && strstr(guest_dt.bootargs, "cyclic");
    if (!doorbell && !direct && !budget && !cyclic)
        report_boot();
    if (budget || cyclic) {
        if (budget)
            bench_budget();
        else
            bench_cyclic();
        gprintf("BENCH done\n");
        return;
    }
    mmio_write32(GICD_CTLR, 1);
    cpu_if_init();
    *(volatile uint8_t *)(GICD_IPRIORITYR + VTIMER) = 0x80;
    mmio_write32(GICD_ISENABLER, 1u << VTIMER);
    irq_off();

    struct chan ch;
    if (doorbell && chan_setup(&ch)) {
        if (ch.member == 1)
            doorbell_peer(&ch);
        bench_doorbell(&ch);
        gprintf("BENCH done\n");
        return;
    }

    if (direct) {
        /* configs/direct.dts: interrupts = "direct", the physical GIC CPU
         * interface (docs/direct-interrupts.md): the timer's latency only */
        bench_vtimer("vtimer_latency_direct", false);
        bench_vtimer("vtimer_latency_wfi_direct", true);
        gprintf("BENCH done\n");
        return;
    }

    if (strstr(guest_dt.bootargs, "boot-only")) {
        /*
         * Stay up for the monitor's `info`, with a timer ticking: with every
         * CPU asleep and no timer armed, QEMU 7.2's icount (sleep=off) has
         * been seen to miss the wake-up by a console interrupt.
         */
        gprintf("BENCH done\n");
        for (;;)
            anchor();
    }

    if (strstr(guest_dt.bootargs, "coloured")) {
        /* configs/coloured.dts: the workloads on coloured RAM only */
        bench_cpu("_coloured");
        gprintf("BENCH done\n");
        return;
    }

    if (strstr(guest_dt.bootargs, "coloured")) {
        /* configs/coloured.dts: the workloads on coloured RAM only */
        bench_cpu("_coloured");
        gprintf("BENCH done\n");
        return;
    }

    uint64_t pair = window(read_pair, 0, 0, 0);
    report("counter_read", (int64_t)pair, 1, "insns", 16);

    if (!native) {
        bench_hypercalls();
    }
    bench_mmio();
    if (!native)
        bench_s2_fault();
    bench_eoi();
    bench_vtimer("vtimer_latency", false);
    bench_vtimer("vtimer_latency_wfi", true);
    if (!native && ncpus >= 2)
        bench_ipi();
    bench_cpu("");
    gprintf("BENCH done\n");
}
