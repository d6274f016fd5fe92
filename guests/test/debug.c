/*
 * The debug registers for a guest, from the guest's side:
 * hardware breakpoints and watchpoints in monitor debug-mode, taken as the
 * guest's own prefetch and data aborts (IFSR/DFSR "debug event").
 *
 * bootargs dbg=1 (a CPU of its own): DBGDIDR names the CPU's comparators;
 * the OS Lock and monitor mode work; a breakpoint fires at its address and
 * only at the privilege levels it asks for; a watchpoint fires on stores
 * and not on loads; a comparator that asks for Hyp mode or the Secure
 * state changes nothing for the guest and the hypervisor runs on through
 * hypercalls and trapped accesses (on a real CPU such a comparator would
 * fire in Hyp mode if Partita let it through; QEMU, 7.2 and 10.0 alike,
 * never raises debug exceptions in Hyp mode, so there the unit test of the
 * filter, tests/unit/arch/test_debug_filter.c, is what shows it; see
 * docs/qemu-versions.md).
 * bootargs dbg=1 gdb=1: the same, with gdb attached (tests/system/test_gdb.py):
 * the guest waits until gdb clears gdb_wait, then its own comparators'
 * hits come to the hypervisor (HDCR.TDE while gdb is attached), which
 * hands each back to it as the prefetch or data abort it would have taken.
 * bootargs dbg=2 seed=N: these share one CPU.  Seed 1 arms a breakpoint
 * and a watchpoint once and hits them every round; seed 2 runs the same
 * code at the same addresses in monitor mode of its own, seed 3 without
 * ever touching a debug register, and neither may see them: the
 * comparators are switched with the vCPU (written when one that used them
 * comes in, cleared when it goes).
 */
#include "guest.h"

#define DBG_RD(crn, crm, op2) ({ uint32_t _v; \
    __asm__ volatile("mrc p14, 0, %0, " #crn ", " #crm ", " #op2 : "=r"(_v)); _v; })
#define DBG_WR(crn, crm, op2, v) __asm__ volatile("mcr p14, 0, %0, " #crn ", " #crm ", " #op2 \
                                                  : : "r"((uint32_t)(v)) : "memory")
#define DBGDIDR()       DBG_RD(c0, c0, 0)
#define DBGDSCRINT()    DBG_RD(c0, c1, 0)
#define DBGDSCREXT()    DBG_RD(c0, c2, 2)
#define DBGDSCREXT_SET(v) DBG_WR(c0, c2, 2, v)
#define DBGOSLAR(v)     DBG_WR(c1, c0, 4, v)
#define DBGOSLSR()      DBG_RD(c1, c1, 4)
#define BVR0(v)         DBG_WR(c0, c0, 4, v)
#define BCR0(v)         DBG_WR(c0, c0, 5, v)
#define BCR0_RD()       DBG_RD(c0, c0, 5)
#define WVR0(v)         DBG_WR(c0, c0, 6, v)
#define WCR0(v)         DBG_WR(c0, c0, 7, v)
#define WCR0_RD()       DBG_RD(c0, c0, 7)
#define WVR1(v)         DBG_WR(c0, c1, 6, v)
#define WCR1(v)         DBG_WR(c0, c1, 7, v)

#define MDBGEN      (1u << 15)
#define OSLK        (1u << 1)
#define MOE(dscr)   (((dscr) >> 2) & 0xf)
#define MOE_BKPT    0x1         /* breakpoint */
#define MOE_WPT_A   0x2         /* asynchronous watchpoint */
#define MOE_WPT_S   0xa         /* synchronous watchpoint */
#define FS_DEBUG    0x2         /* short-descriptor FSR: debug event */
/* controls (C11.11.7, C11.11.45): enabled, PL0+PL1, 4 bytes; stores */
#define E           1u
#define PL_ALL      (3u << 1)
#define PL0_ONLY    (2u << 1)
#define BAS4        (0xfu << 5)
#define LSC_STORE   (2u << 3)
#define LSC_ANY     (3u << 3)
#define HMC         (1u << 13)
#define SSC_HYP     (3u << 14)
#define BT_MISMATCH (4u << 20)
#define MASK_2G     (31u << 24)

/* gdb=1: cleared by gdb (`set var gdb_wait = 0`) once it is attached */
volatile uint32_t gdb_wait = 1;

static volatile uint32_t hits, hit_kind, hit_pc, hit_fs, hit_moe;
static volatile bool skip_on_hit;      /* step over the instruction, or re-run it */
static volatile uint32_t wp_var __attribute__((aligned(8)));

/* a breakpoint's or watchpoint's abort: count it, and either disarm (the
 * instruction then runs) or step over the instruction (it stays armed) */
bool guest_debug_event(uint32_t *frame, uint32_t kind, uint32_t fsr)
{
    uint32_t fs = (fsr & 0xf) | ((fsr >> 6) & 0x10);
    if (fs != FS_DEBUG)
        return false;
    hits++;
    hit_kind = kind;
    hit_pc = frame[13];
    hit_fs = fs;
    hit_moe = MOE(DBGDSCRINT());
    if (skip_on_hit)
        frame[13] += 4;
    else if (kind == FAULT_PABT)
        BCR0(0);
    else
        WCR0(0);
    return true;
}

/* ARM code (the guests are built -marm); the first instruction a NOP that
 * a hit steps over */
__attribute__((noinline)) uint32_t bp_target(uint32_t x)
{
    __asm__ volatile("nop");
    return x * 3 + 1;
}

__attribute__((noinline)) void wp_store(uint32_t v)
{
    wp_var = v;
}

__attribute__((noinline)) uint32_t wp_load(void)
{
    return wp_var;
}

static void monitor_on(void)
{
    DBGOSLAR(0);
    DBGDSCREXT_SET(DBGDSCREXT() | MDBGEN);
    isb();
}

static void ids_and_locks(void)
{
    test_begin("debug_id");
    uint32_t didr = DBGDIDR(), dfr0;
    __asm__ volatile("mrc p15, 0, %0, c0, c1, 2" : "=r"(dfr0));
    uint32_t brps = ((didr >> 24) & 0xf) + 1, wrps = ((didr >> 28) & 0xf) + 1;
    uint32_t version = (didr >> 16) & 0xf;
    CHECK(version == 5 && (dfr0 & 0xf) == 5, "DBGDIDR 0x%08lx, ID_DFR0 0x%08lx: not v7.1 debug",
          (unsigned long)didr, (unsigned long)dfr0);
    CHECK(brps >= 2 && wrps >= 2, "DBGDIDR 0x%08lx", (unsigned long)didr);
    CHECK(!(didr & (1u << 13)), "DBGDIDR 0x%08lx says DBGPCSR, which guests do not get",
          (unsigned long)didr);
    gprintf("debug: v7.1, %lu breakpoints, %lu watchpoints\n", (unsigned long)brps,
            (unsigned long)wrps);
    test_end();

    test_begin("os_lock");
    DBGOSLAR(0xc5acce55u);
    uint32_t locked = DBGOSLSR();
    DBGOSLAR(0);
    uint32_t open = DBGOSLSR();
    CHECK((locked & OSLK) && !(open & OSLK) && (open & 9) == 8,
          "DBGOSLSR 0x%lx locked, 0x%lx open", (unsigned long)locked, (unsigned long)open);
    test_end();

    test_begin("monitor_mode");
    monitor_on();
    CHECK((DBGDSCREXT() & MDBGEN) && (DBGDSCRINT() & MDBGEN), "DBGDSCR 0x%08lx / 0x%08lx",
          (unsigned long)DBGDSCREXT(), (unsigned long)DBGDSCRINT());
    test_end();
}

static void breakpoint(void)
{
    test_begin("breakpoint_fires");
    hits = 0;
    skip_on_hit = false;
    BVR0((uint32_t)bp_target);
    BCR0(E | PL_ALL | BAS4);
    isb();
    uint32_t r = bp_target(5);
    CHECK(hits == 1 && hit_kind == FAULT_PABT && hit_pc == (uint32_t)bp_target,
          "%lu hits, kind %lu at 0x%08lx (breakpoint at 0x%08lx)", (unsigned long)hits,
          (unsigned long)hit_kind, (unsigned long)hit_pc, (unsigned long)bp_target);
    CHECK(hit_moe == MOE_BKPT, "DBGDSCR.MOE %lu", (unsigned long)hit_moe);
    CHECK(r == 16, "bp_target(5) = %lu after the hit", (unsigned long)r);
    bp_target(6);                       /* disarmed by the handler */
    CHECK(hits == 1, "%lu hits after the breakpoint was disarmed", (unsigned long)hits);
    test_end();

    test_begin("breakpoint_privilege");
    hits = 0;
    BCR0(E | PL0_ONLY | BAS4);          /* user mode only: not here (SVC) */
    isb();
    bp_target(7);
    CHECK(hits == 0, "a PL0-only breakpoint fired in SVC mode");
    BCR0(0);
    test_end();
}

static void watchpoint(void)
{
    test_begin("watchpoint_fires_on_store");
    hits = 0;
    skip_on_hit = false;
    wp_var = 1;
    WVR0((uint32_t)&wp_var);
    WCR0(E | PL_ALL | BAS4 | LSC_STORE);
    isb();
    uint32_t v = wp_load();
    CHECK(hits == 0 && v == 1, "a load hit a store watchpoint (%lu hits)", (unsigned long)hits);
    wp_store(7);
    CHECK(hits == 1 && hit_kind == FAULT_DABT && hit_fs == FS_DEBUG,
          "%lu hits, kind %lu", (unsigned long)hits, (unsigned long)hit_kind);
    CHECK(hit_moe == MOE_WPT_S || hit_moe == MOE_WPT_A, "DBGDSCR.MOE %lu", (unsigned long)hit_moe);
    CHECK(hit_pc >= (uint32_t)wp_store && hit_pc < (uint32_t)wp_store + 32,
          "the abort at 0x%08lx, wp_store at 0x%08lx", (unsigned long)hit_pc,
          (unsigned long)wp_store);
    CHECK(wp_var == 7, "the store re-run after the hit wrote %lu", (unsigned long)wp_var);
    test_end();
}

/* comparators that ask for Hyp mode: a mismatch breakpoint (every Hyp
 * instruction) and watchpoints over all of memory in Hyp mode only */
static void hyp_never(void)
{
    test_begin("hyp_never_matches");
    hits = 0;
    uint32_t bcr = E | HMC | SSC_HYP | BAS4 | BT_MISMATCH;
    uint32_t wcr = E | HMC | SSC_HYP | LSC_ANY | (0xffu << 5) | MASK_2G;
    BVR0(0);
    BCR0(bcr);
    WVR0(0);
    WCR0(wcr);
    WVR1(0x80000000u);
    WCR1(wcr);
    isb();
    uint32_t fr = 0;
    for (int i = 0; i < 100; i++) {
        hvc_call(PARTITA_VERSION, 0, 0, 0);
        fr |= mmio_read32(VUART_BASE + 0x18);   /* UARTFR: trapped, emulated */
    }
    CHECK(hits == 0, "%lu debug events in the guest", (unsigned long)hits);
    CHECK(BCR0_RD() == bcr && WCR0_RD() == wcr, "read back 0x%08lx 0x%08lx, wrote 0x%08lx 0x%08lx",
          (unsigned long)BCR0_RD(), (unsigned long)WCR0_RD(), (unsigned long)bcr,
          (unsigned long)wcr);
    BCR0(0);
    WCR0(0);
    WCR1(0);
    test_end();
}

#define ROUNDS 20

static void shared(uint32_t seed)
{
    if (seed != 3)
        monitor_on();
    skip_on_hit = true;
    hits = 0;
    if (seed == 1) {
        BVR0((uint32_t)bp_target);
        BCR0(E | PL_ALL | BAS4);
        WVR0((uint32_t)&wp_var);
        WCR0(E | PL_ALL | BAS4 | LSC_STORE);
        isb();
    }
    test_begin(seed == 1 ? "own_comparators_survive_switches" : "other_guests_comparators_absent");
    for (int round = 0; round < ROUNDS; round++) {
        delay_ms(5);                    /* beside the other: switched meanwhile */
        bp_target(round);
        wp_store(round);
    }
    uint32_t want = seed == 1 ? 2 * ROUNDS : 0;
    CHECK(hits == want, "%lu debug events in %d rounds, expected %lu", (unsigned long)hits,
          ROUNDS, (unsigned long)want);
    gprintf("debug: %lu debug events in %d rounds\n", (unsigned long)hits, ROUNDS);
    test_end();
    if (seed != 3) {
        BCR0(0);
        WCR0(0);
    }
}

void guest_main(uint32_t dtb)
{
    uint32_t mode = 1, seed = 1, gdb = 0;
    bootarg_u32("dbg", &mode);
    bootarg_u32("seed", &seed);
    bootarg_u32("gdb", &gdb);
    if (gdb) {
        gprintf("debug: waiting for gdb\n");
        while (gdb_wait)
            delay_ms(10);
    }
    if (mode == 2) {
        shared(seed);
    } else {
        ids_and_locks();
        breakpoint();
        watchpoint();
        hyp_never();
    }
    tests_finish();
}
