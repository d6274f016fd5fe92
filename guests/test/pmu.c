/*
 * The PMU for a guest, from the guest's side.
 *
 * bootargs pmu=1: the CPU's PMUv2 is this guest's - ID_DFR0 says so, PMCR
 * gives event counters, the cycle counter counts, an event counter counts
 * instructions retired (QEMU models that event under -icount only), Hyp
 * mode is never counted even when the guest asks for it (NSH), and an
 * overflow raises the PMU's interrupt (PPI 7, INTID 23).
 * bootargs pmu=0 (configuration pmu = "off"): ID_DFR0 says there is no
 * PMU, every PMU register is UNDEFINED, and the other ID registers and
 * MVFR0/MVFR1 (which then trap, HCR.TID3) still read as the CPU's.
 */
#include "guest.h"

#define PMU_RD(crm, op2) ({ uint32_t _v; \
    __asm__ volatile("mrc p15, 0, %0, c9, " #crm ", " #op2 : "=r"(_v)); _v; })
#define PMU_WR(crm, op2, v) __asm__ volatile("mcr p15, 0, %0, c9, " #crm ", " #op2 \
                                             : : "r"((uint32_t)(v)) : "memory")
#define PMCR()          PMU_RD(c12, 0)
#define PMCR_SET(v)     PMU_WR(c12, 0, v)
#define PMCNTENSET(v)   PMU_WR(c12, 1, v)
#define PMCNTENCLR(v)   PMU_WR(c12, 2, v)
#define PMOVSR()        PMU_RD(c12, 3)
#define PMOVSR_CLR(v)   PMU_WR(c12, 3, v)
#define PMSELR(v)       PMU_WR(c12, 5, v)
#define PMCEID0()       PMU_RD(c12, 6)
#define PMCCNTR()       PMU_RD(c13, 0)
#define PMXEVTYPER()    PMU_RD(c13, 1)
#define PMXEVTYPER_SET(v) PMU_WR(c13, 1, v)
#define PMXEVCNTR()     PMU_RD(c13, 2)
#define PMXEVCNTR_SET(v) PMU_WR(c13, 2, v)
#define PMINTENSET(v)   PMU_WR(c14, 1, v)
#define PMINTENCLR(v)   PMU_WR(c14, 2, v)

#define PMCR_E      (1u << 0)
#define PMCR_P      (1u << 1)
#define PMCR_C      (1u << 2)
#define CCNT        (1u << 31)
#define EV_INST_RETIRED 0x08u
#define NSH         (1u << 27)
#define PMU_PPI     23u

#define GICD_CTLR       (GICD_BASE + 0x000)
#define GICD_ISENABLER0 (GICD_BASE + 0x100)
#define GICC_CTLR       (GICC_BASE + 0x000)
#define GICC_PMR        (GICC_BASE + 0x004)
#define GICC_IAR        (GICC_BASE + 0x00c)
#define GICC_EOIR       (GICC_BASE + 0x010)

static uint32_t id_dfr0(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c0, c1, 2" : "=r"(v));
    return v;
}

/* n iterations of two instructions each */
static void spin(uint32_t n)
{
    __asm__ volatile("1: subs %0, %0, #1\n bne 1b" : "+r"(n) : : "cc");
}

static volatile uint32_t pmu_irqs, pmu_ovs;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) == PMU_PPI) {
        pmu_irqs++;
        pmu_ovs |= PMOVSR();
        PMOVSR_CLR(PMOVSR());       /* the level drops */
        PMINTENCLR(~0u);
    }
    mmio_write32(GICC_EOIR, iar);
}

/* instructions retired by fn(arg) on counter 0, read back through the PMU */
static uint32_t count_insns(void (*fn)(uint32_t), uint32_t arg, uint32_t type)
{
    PMSELR(0);
    PMXEVTYPER_SET(type);
    PMXEVCNTR_SET(0);
    PMCNTENSET(1);
    fn(arg);
    PMCNTENCLR(1);
    return PMXEVCNTR();
}

static void hvcs(uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        hvc_call(PARTITA_VERSION, 0, 0, 0);
}

static void with_pmu(void)
{
    test_begin("pmu_present");
    uint32_t perfmon = (id_dfr0() >> 24) & 0xf;
    uint32_t n = (PMCR() >> 11) & 0x1f;
    CHECK(perfmon == 2, "ID_DFR0.PerfMon %lu, not PMUv2", (unsigned long)perfmon);
    CHECK(n >= 1 && n <= 8, "PMCR.N is %lu", (unsigned long)n);
    gprintf("pmu: PMUv2, %lu event counters\n", (unsigned long)n);
    test_end();

    test_begin("cycle_counter_counts");
    PMCR_SET(PMCR_E | PMCR_C | PMCR_P);
    PMCNTENSET(CCNT);
    uint32_t c[4];
    for (int i = 0; i < 4; i++) {
        c[i] = PMCCNTR();
        spin(1000);
    }
    CHECK(c[0] < c[1] && c[1] < c[2] && c[2] < c[3], "PMCCNTR %lu %lu %lu %lu",
          (unsigned long)c[0], (unsigned long)c[1], (unsigned long)c[2], (unsigned long)c[3]);
    CHECK(c[3] - c[0] >= 3 * 2000, "%lu cycles for 6000 instructions",
          (unsigned long)(c[3] - c[0]));
    test_end();

    test_begin("instructions_retired");
    uint32_t small = count_insns(spin, 1000, EV_INST_RETIRED);
    uint32_t big = count_insns(spin, 11000, EV_INST_RETIRED);
    /* 2 instructions an iteration: the difference is exact */
    CHECK(big - small == 20000, "1000 iterations: %lu, 11000: %lu instructions (QEMU counts "
          "INST_RETIRED under -icount only)", (unsigned long)small, (unsigned long)big);
    CHECK(small >= 2000 && small < 2100, "1000 iterations: %lu instructions",
          (unsigned long)small);
    test_end();

    test_begin("hyp_not_counted");
    /* the guest asks for Hyp mode too (NSH): Partita does not let it */
    PMSELR(0);
    PMXEVTYPER_SET(EV_INST_RETIRED | NSH);
    CHECK(PMXEVTYPER() == EV_INST_RETIRED, "PMXEVTYPER reads 0x%08lx",
          (unsigned long)PMXEVTYPER());
    uint32_t one = count_insns(hvcs, 10, EV_INST_RETIRED | NSH);
    uint32_t many = count_insns(hvcs, 110, EV_INST_RETIRED | NSH);
    /* a hypercall is some 70 instructions in HYP (make bench): counted,
     * 100 of them would add 7000 */
    CHECK(many - one < 100 * 30, "100 hypercalls counted %lu instructions",
          (unsigned long)(many - one));
    PMSELR(31);
    PMXEVTYPER_SET(NSH);                    /* PMCCFILTR */
    CHECK(PMXEVTYPER() == 0, "PMCCFILTR reads 0x%08lx", (unsigned long)PMXEVTYPER());
    uint32_t c0 = PMCCNTR();
    hvcs(100);
    uint32_t c1 = PMCCNTR();
    CHECK(c1 - c0 < 100 * 30, "100 hypercalls took %lu counted cycles",
          (unsigned long)(c1 - c0));
    test_end();

    test_begin("overflow_interrupt");
    mmio_write32(GICD_CTLR, 1);
    mmio_write32(GICC_PMR, 0xff);
    mmio_write32(GICC_CTLR, 1);
    mmio_write32(GICD_ISENABLER0, 1u << PMU_PPI);
    /* the cycle counter 4096 cycles before it wraps */
    PMCNTENCLR(CCNT);
    PMU_WR(c13, 0, 0xfffff000u);
    PMINTENSET(CCNT);
    __asm__ volatile("cpsie i" ::: "memory");
    PMCNTENSET(CCNT);
    for (int i = 0; i < 1000 && !pmu_irqs; i++)
        spin(100);
    __asm__ volatile("cpsid i" ::: "memory");
    PMCNTENCLR(CCNT);
    CHECK(pmu_irqs == 1, "%lu PMU interrupts", (unsigned long)pmu_irqs);
    CHECK(pmu_ovs & CCNT, "PMOVSR 0x%08lx in the handler", (unsigned long)pmu_ovs);
    test_end();
}

static void without_pmu(void)
{
    test_begin("no_pmu_in_id_dfr0");
    uint64_t t0 = partita_stat(PARTITA_STAT_TRAP(TRAP_CAUSE_CP15));
    uint32_t dfr0 = id_dfr0();
    bool trapped = partita_stat(PARTITA_STAT_TRAP(TRAP_CAUSE_CP15)) > t0 + 0;
    /* HCR.TID3 must send the read to Partita; QEMU 7.2 implements that
     * trap for ARMv8 CPUs only (access_aa32_tid3), so there it cannot
     * (QEMU 10.0 does trap it: tests/system/test_pmu.py holds it to that) */
    CHECK(trapped, "ID_DFR0 0x%08lx: the read did not trap (HCR.TID3)", (unsigned long)dfr0);
    CHECK(!trapped || ((dfr0 >> 24) & 0xf) == 0, "ID_DFR0 0x%08lx shows a PMU",
          (unsigned long)dfr0);
    test_end();

    test_begin("pmu_undefined");
    struct fault_record *f = my_fault();
    unsigned int n0 = f->count;
    uint32_t v = 0x5a5a5a5a;
    __asm__ volatile("mrc p15, 0, %0, c9, c12, 0" : "+r"(v));      /* PMCR */
    CHECK(f->count == n0 + 1 && f->kind == FAULT_UNDEF, "PMCR read: %u exceptions, kind %lu",
          f->count - n0, (unsigned long)f->kind);
    CHECK(v == 0x5a5a5a5a, "the undefined MRC wrote 0x%08lx", (unsigned long)v);
    __asm__ volatile("mrc p15, 0, %0, c9, c13, 0" : "+r"(v));      /* PMCCNTR */
    CHECK(f->count == n0 + 2 && f->kind == FAULT_UNDEF, "PMCCNTR read: %u exceptions",
          f->count - n0);
    test_end();

    test_begin("other_ids_still_read");
    uint32_t pfr0, isar0, mmfr0, mvfr0, mvfr1;
    __asm__ volatile("mcr p15, 0, %0, c1, c0, 2\n isb" : : "r"(0xfu << 20));  /* CPACR: CP10/11 */
    __asm__ volatile("mrc p15, 0, %0, c0, c1, 0" : "=r"(pfr0));
    __asm__ volatile("mrc p15, 0, %0, c0, c2, 0" : "=r"(isar0));
    __asm__ volatile("mrc p15, 0, %0, c0, c1, 4" : "=r"(mmfr0));
    __asm__ volatile(".fpu neon\n vmrs %0, mvfr0" : "=r"(mvfr0));
    __asm__ volatile(".fpu neon\n vmrs %0, mvfr1" : "=r"(mvfr1));
    /* a Cortex-A15/A7: ARM and Thumb-2 (ID_PFR0), divide (ID_ISAR0),
     * VMSAv7 with LPAE (ID_MMFR0), 32 double registers (MVFR0) */
    CHECK((pfr0 & 0xff) == 0x31, "ID_PFR0 0x%08lx", (unsigned long)pfr0);
    CHECK(((isar0 >> 24) & 0xf) >= 1, "ID_ISAR0 0x%08lx: no divide", (unsigned long)isar0);
    CHECK((mmfr0 & 0xf) == 5, "ID_MMFR0 0x%08lx", (unsigned long)mmfr0);
    CHECK((mvfr0 & 0xf) == 2 && mvfr1 != 0, "MVFR0 0x%08lx MVFR1 0x%08lx",
          (unsigned long)mvfr0, (unsigned long)mvfr1);
    test_end();
}

/*
 * bootargs pmu=2 seed=N: two of these share one CPU (time slices).  Each
 * keeps values of its own in its PMU registers and finds them again after
 * many switches, and its cycle counter counts its own turns only.
 */
static void shared(uint32_t seed)
{
    test_begin("pmu_state_survives_switches");
    PMCR_SET(0);                            /* nothing counts: values stay */
    PMCNTENCLR(~0u);
    for (uint32_t i = 0; i < 4; i++) {
        PMSELR(i);
        PMXEVTYPER_SET(0x10 + i + seed);
        PMXEVCNTR_SET(seed * 0x1000000u + i);
    }
    PMSELR(2);
    PMU_WR(c13, 0, seed * 0x111u);          /* PMCCNTR */
    PMINTENSET(1u << seed);
    bool ok = true;
    for (int round = 0; round < 20 && ok; round++) {
        delay_ms(5);                        /* beside the other: switched meanwhile */
        uint32_t sel = PMU_RD(c12, 5);
        ok = sel == 2 && PMCCNTR() == seed * 0x111u;
        for (uint32_t i = 0; i < 4 && ok; i++) {
            PMSELR(i);
            ok = PMXEVTYPER() == 0x10 + i + seed && PMXEVCNTR() == seed * 0x1000000u + i;
        }
        PMSELR(2);
        CHECK(ok, "round %d: PMSELR %lu, PMCCNTR 0x%08lx, counter values changed", round,
              (unsigned long)sel, (unsigned long)PMCCNTR());
    }
    PMINTENCLR(~0u);
    test_end();

    test_begin("pmu_counts_own_turns");
    /* busy for 200 ms of the virtual counter beside a guest as busy: the
     * cycle counter sees about half (1 cycle = 1 ns under -icount) */
    PMCR_SET(PMCR_E | PMCR_C);
    PMCNTENSET(CCNT);
    uint64_t end = cntvct() + ms_to_ticks(200);
    uint32_t c0 = PMCCNTR();
    while (cntvct() < end)
        spin(100);
    uint32_t run = PMCCNTR() - c0;
    PMCNTENCLR(CCNT);
    CHECK(run > 200000000u / 5 && run < 200000000u * 4 / 5,
          "%lu cycles counted in 200 ms beside a busy guest", (unsigned long)run);
    gprintf("pmu: %lu of 200000000 cycles in its turns\n", (unsigned long)run);
    test_end();
}

void guest_main(uint32_t dtb)
{
    uint32_t want = 1, seed = 1;
    bootarg_u32("pmu", &want);
    bootarg_u32("seed", &seed);
    if (want == 2)
        shared(seed);
    else if (want)
        with_pmu();
    else
        without_pmu();
    tests_finish();
}
