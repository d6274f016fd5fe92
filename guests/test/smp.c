/*
 * SMP and PSCI power management: CPU_ON of every vCPU (ARM and Thumb
 * entry points, the context id), each vCPU's MPIDR, a spinlock and two
 * shared counters that must come out exact, CPU_OFF seen through
 * AFFINITY_INFO, CPU_ON again (the vCPU starts afresh: MMU off), the PSCI
 * error codes (INVALID_PARAMETERS, INVALID_ADDRESS, ALREADY_ON/ON_PENDING),
 * and finally SYSTEM_OFF while the other vCPUs spin: the hypervisor must
 * take them all off their physical CPUs.
 *
 * bootargs: iterations=<lock rounds per vCPU>
 */
#include "guest.h"

#define MAX_CPUS 8

enum job { JOB_COUNT, JOB_PARK, JOB_SPIN, JOB_RETURN };

static gspinlock_t lock;
static volatile uint32_t counter;           /* plain increments under the lock */
static volatile uint32_t atomic_counter;    /* LDREX/STREX increments */
static volatile uint32_t job, use_mmu, go, release, arrived, done;
static volatile uint32_t seen_mpidr[MAX_CPUS], seen_vcpu[MAX_CPUS], seen_ncpus[MAX_CPUS];
static volatile uint32_t runs[MAX_CPUS], spins[MAX_CPUS], mmu_was_on[MAX_CPUS];
static volatile uint32_t first_seen[MAX_CPUS], last_seen[MAX_CPUS];
static uint32_t iterations = 5000;
static unsigned int ncpus;
static uint32_t ram_end;

static void count_rounds(unsigned int cpu)
{
    for (uint32_t i = 0; i < iterations; i++) {
        gspin_lock(&lock);
        uint32_t c = counter + 1;
        counter = c;
        gspin_unlock(&lock);
        if (i == 0)
            first_seen[cpu] = c;
        last_seen[cpu] = c;
        atomic_add(&atomic_counter, 1);
    }
}

/* did the vCPUs' rounds overlap in time (so the lock was contended)? */
static unsigned int overlaps(void)
{
    unsigned int n = 0;
    for (unsigned int i = 0; i < ncpus; i++)
        for (unsigned int j = i + 1; j < ncpus; j++)
            if (first_seen[i] < last_seen[j] && first_seen[j] < last_seen[i])
                n++;
    return n;
}

void guest_secondary(unsigned int cpu)
{
    if (cpu >= MAX_CPUS)
        return;
    struct smc_ret info = hvc_call(PARTITA_GUEST_INFO, 0, 0, 0);
    seen_mpidr[cpu] = read_mpidr();
    seen_vcpu[cpu] = info.r2;
    seen_ncpus[cpu] = info.r1;
    runs[cpu]++;
    switch (job) {
    case JOB_COUNT:
        if (use_mmu) {
            mmu_enable();
            mmu_was_on[cpu] = mmu_enabled();
        }
        atomic_add(&arrived, 1);
        while (!go)
            ;
        count_rounds(cpu);
        if (use_mmu)
            mmu_disable();
        atomic_add(&done, 1);
        break;
    case JOB_PARK:
        atomic_add(&arrived, 1);
        while (!release)
            ;
        break;
    case JOB_SPIN:
        atomic_add(&arrived, 1);
        for (;;)
            spins[cpu]++;
    case JOB_RETURN:
        atomic_add(&arrived, 1);
        break;
    }
}

static int32_t cpu_on(uint32_t mpidr, uint32_t entry, uint32_t ctx)
{
    return (int32_t)hvc_call(PSCI_CPU_ON, mpidr, entry, ctx).r0;
}

static int32_t affinity(uint32_t mpidr)
{
    return (int32_t)hvc_call(PSCI_AFFINITY_INFO, mpidr, 0, 0).r0;
}

static bool wait_for(volatile uint32_t *v, uint32_t want, uint32_t ms)
{
    uint64_t end = cntvct() + ms_to_ticks(ms);
    while (*v < want)
        if (cntvct() > end)
            return false;
    return true;
}

/* all secondaries report OFF within ms */
static bool wait_all_off(uint32_t ms)
{
    uint64_t end = cntvct() + ms_to_ticks(ms);
    for (unsigned int i = 1; i < ncpus; i++)
        while (affinity(i) != 1)
            if (cntvct() > end)
                return false;
    return true;
}

static void start_secondaries(enum job j, bool mmu)
{
    job = j;
    use_mmu = mmu;
    go = release = arrived = done = 0;
    dsb();
    for (unsigned int i = 1; i < ncpus; i++) {
        int32_t r = cpu_on(i, (uint32_t)secondary_start, i);
        CHECK(r == PSCI_SUCCESS, "CPU_ON(%u) = %ld", i, (long)r);
    }
}

static void counting_round(const char *name, bool mmu, uint32_t round)
{
    test_begin(name);
    counter = atomic_counter = 0;
    start_secondaries(JOB_COUNT, mmu);
    CHECK(wait_for(&arrived, ncpus - 1, 5000), "%lu of %u secondaries came up in 5 s",
          (unsigned long)arrived, ncpus - 1);
    for (unsigned int i = 1; i < ncpus; i++) {
        CHECK(runs[i] == round, "vCPU %u ran %lu times, expected %lu", i,
              (unsigned long)runs[i], (unsigned long)round);
        CHECK(seen_mpidr[i] == (0x80000000u | i), "vCPU %u: MPIDR 0x%08lx, expected 0x%08lx",
              i, (unsigned long)seen_mpidr[i], (unsigned long)(0x80000000u | i));
        CHECK(seen_vcpu[i] == i && seen_ncpus[i] == ncpus,
              "vCPU %u: GUEST_INFO says vCPU %lu of %lu", i, (unsigned long)seen_vcpu[i],
              (unsigned long)seen_ncpus[i]);
        uint32_t cpsr = secondary_state[i].cpsr, sctlr = secondary_state[i].sctlr;
        CHECK((cpsr & 0x1f) == 0x13 && (cpsr & 0x1c0) == 0x1c0,
              "vCPU %u started with CPSR 0x%08lx: not SVC with A, I, F masked", i,
              (unsigned long)cpsr);
        CHECK(!(sctlr & 5), "vCPU %u started with SCTLR 0x%08lx: MMU or D-cache on "
              "(round %lu)", i, (unsigned long)sctlr, (unsigned long)round);
        if (mmu)
            CHECK(mmu_was_on[i], "vCPU %u could not turn its MMU on", i);
    }
    uint64_t t0 = cntvct();
    go = 1;
    dsb();
    __asm__ volatile("sev");
    count_rounds(0);
    CHECK(wait_for(&done, ncpus - 1, 20000), "%lu of %u secondaries finished counting in 20 s",
          (unsigned long)done, ncpus - 1);
    uint32_t want = ncpus * iterations;
    CHECK(counter == want, "locked counter %lu, expected %lu: the spinlock let two in",
          (unsigned long)counter, (unsigned long)want);
    CHECK(atomic_counter == want, "atomic counter %lu, expected %lu",
          (unsigned long)atomic_counter, (unsigned long)want);
    unsigned int ov = overlaps();
    CHECK(ov > 0, "no two vCPUs counted at the same time: the lock was never contended");
    gprintf("smp: %s: %u vCPUs x %lu rounds in %lu ms, %u of %u pairs overlapped\n",
            mmu ? "caches on" : "caches off", ncpus, (unsigned long)iterations,
            (unsigned long)((cntvct() - t0) * 1000 / cntfrq()), ov, ncpus * (ncpus - 1) / 2);
    test_end();

    test_begin(round == 1 ? "cpu_off_affinity" : "cpu_off_affinity_again");
    CHECK(wait_all_off(3000), "secondaries not all OFF 3 s after CPU_OFF: %ld %ld %ld",
          (long)affinity(1), (long)affinity(2), (long)affinity(3));
    CHECK(affinity(0) == 0, "AFFINITY_INFO(self) = %ld, expected 0 (ON)", (long)affinity(0));
    test_end();
}

static void test_boot(void)
{
    test_begin("vcpu0_identity");
    struct smc_ret info = hvc_call(PARTITA_GUEST_INFO, 0, 0, 0);
    CHECK(read_mpidr() == 0x80000000u, "vCPU 0 MPIDR 0x%08lx", (unsigned long)read_mpidr());
    CHECK(info.r2 == 0, "GUEST_INFO: this is vCPU %lu", (unsigned long)info.r2);
    CHECK(info.r1 == ncpus, "GUEST_INFO: %lu vCPUs, the DT has %u cpu nodes",
          (unsigned long)info.r1, ncpus);
    CHECK(ncpus >= 2, "only %u vCPUs: the SMP tests need 2 or more", ncpus);
    for (unsigned int i = 1; i < ncpus; i++)
        CHECK(affinity(i) == 1, "AFFINITY_INFO(%u) = %ld before any CPU_ON, expected 1 (OFF)",
              i, (long)affinity(i));
    test_end();
}

static void test_errors(void)
{
    test_begin("cpu_on_errors");
    uint32_t entry = (uint32_t)secondary_start;
    static const uint32_t bad_entries[] = { 0x00000000, 0x10000000, 0x3ffffffc, 0, 0xfffffffc,
                                            0x09000000 };
    for (unsigned int i = 0; i < sizeof(bad_entries) / 4; i++) {
        uint32_t e = i == 3 ? ram_end : bad_entries[i];
        int32_t r = cpu_on(1, e, 1);
        CHECK(r == PSCI_INVALID_ADDRESS, "CPU_ON(1, entry 0x%08lx) = %ld, expected "
              "INVALID_ADDRESS (-9)", (unsigned long)e, (long)r);
    }
    static const uint32_t bad_cpus[] = { 0x100 | 1, 0x10000, 0xff, 8 };
    for (unsigned int i = 0; i < sizeof(bad_cpus) / 4; i++) {
        int32_t r = cpu_on(bad_cpus[i], entry, 1);
        CHECK(r == PSCI_INVALID_PARAMETERS, "CPU_ON(MPIDR 0x%lx) = %ld, expected "
              "INVALID_PARAMETERS (-2)", (unsigned long)bad_cpus[i], (long)r);
    }
    int32_t r = cpu_on(ncpus, entry, 1);
    CHECK(r == PSCI_INVALID_PARAMETERS, "CPU_ON(%u), one past the last vCPU, = %ld", ncpus,
          (long)r);
    r = cpu_on(0, entry, 0);
    CHECK(r == PSCI_ALREADY_ON, "CPU_ON(self) = %ld, expected ALREADY_ON (-4)", (long)r);
    CHECK(affinity(1) == 1, "a failed CPU_ON left vCPU 1 in state %ld", (long)affinity(1));

    /* a vCPU being started, then started */
    job = JOB_PARK;
    release = arrived = 0;
    dsb();
    r = cpu_on(1, entry, 1);
    int32_t again = cpu_on(1, entry, 1);
    CHECK(r == PSCI_SUCCESS, "CPU_ON(1) = %ld", (long)r);
    CHECK(again == PSCI_ALREADY_ON || again == PSCI_ON_PENDING,
          "a second CPU_ON(1) at once = %ld, expected ON_PENDING (-5) or ALREADY_ON (-4)",
          (long)again);
    CHECK(wait_for(&arrived, 1, 3000), "vCPU 1 did not come up");
    CHECK(affinity(1) == 0, "AFFINITY_INFO(1) = %ld while it runs, expected 0 (ON)",
          (long)affinity(1));
    r = cpu_on(1, entry, 1);
    CHECK(r == PSCI_ALREADY_ON, "CPU_ON(1) while it runs = %ld, expected ALREADY_ON (-4)",
          (long)r);
    if (ncpus > 2)
        CHECK(affinity(2) == 1, "AFFINITY_INFO(2) = %ld, expected 1 (OFF)", (long)affinity(2));
    release = 1;
    dsb();
    CHECK(wait_all_off(3000), "vCPU 1 not OFF after it returned");
    test_end();
}

static void test_thumb_entry(void)
{
    test_begin("cpu_on_thumb_entry");
    job = JOB_PARK;
    release = arrived = 0;
    dsb();
    unsigned int cpu = ncpus - 1;
    uint32_t before = thumb_entries[cpu], runs_before = runs[cpu];
    int32_t r = cpu_on(cpu, (uint32_t)secondary_start_thumb | 1, cpu);
    CHECK(r == PSCI_SUCCESS, "CPU_ON(%u, Thumb entry) = %ld", cpu, (long)r);
    CHECK(wait_for(&arrived, 1, 3000), "vCPU %u did not come up from a Thumb entry", cpu);
    CHECK(thumb_entries[cpu] == before + 1 && runs[cpu] == runs_before + 1,
          "vCPU %u: Thumb entry ran %lu times", cpu,
          (unsigned long)(thumb_entries[cpu] - before));
    release = 1;
    dsb();
    CHECK(wait_all_off(3000), "vCPU %u not OFF after it returned", cpu);
    test_end();
}

/* CPU_ON again as soon as AFFINITY_INFO says OFF, many times: races
 * between a vCPU leaving and being started again */
static void test_on_off_storm(void)
{
    test_begin("cpu_on_off_storm");
    const uint32_t rounds = 40;
    uint32_t runs_before[MAX_CPUS];
    for (unsigned int i = 1; i < ncpus; i++)
        runs_before[i] = runs[i];
    job = JOB_RETURN;
    arrived = 0;
    dsb();
    uint64_t t0 = cntvct();
    uint32_t started = 0;
    for (uint32_t r = 0; r < rounds; r++) {
        for (unsigned int i = 1; i < ncpus; i++) {
            uint64_t end = cntvct() + ms_to_ticks(3000);
            int32_t e;
            while ((e = cpu_on(i, (uint32_t)secondary_start, i)) != PSCI_SUCCESS) {
                if ((e != PSCI_ALREADY_ON && e != PSCI_ON_PENDING) || cntvct() > end)
                    break;
            }
            CHECK(e == PSCI_SUCCESS, "round %lu: CPU_ON(%u) = %ld", (unsigned long)r, i, (long)e);
            started += e == PSCI_SUCCESS;
        }
    }
    CHECK(wait_for(&arrived, started, 5000), "%lu of %lu starts ran", (unsigned long)arrived,
          (unsigned long)started);
    CHECK(wait_all_off(3000), "not all OFF after the storm");
    for (unsigned int i = 1; i < ncpus; i++)
        CHECK(runs[i] - runs_before[i] == rounds, "vCPU %u ran %lu times in %lu rounds", i,
              (unsigned long)(runs[i] - runs_before[i]), (unsigned long)rounds);
    gprintf("smp: %lu CPU_ON/CPU_OFF cycles in %lu ms\n", (unsigned long)started,
            (unsigned long)((cntvct() - t0) * 1000 / cntfrq()));
    test_end();
}

static void test_spinning(void)
{
    test_begin("secondaries_spinning");
    start_secondaries(JOB_SPIN, false);
    CHECK(wait_for(&arrived, ncpus - 1, 5000), "%lu of %u secondaries came up",
          (unsigned long)arrived, ncpus - 1);
    /* each one's count moves: waited for, not looked at after a fixed
     * 50 ms - the host may not run a vCPU's thread for that long when it is
     * busy (the virtual counter follows the host's clock) */
    uint32_t before[MAX_CPUS];
    for (unsigned int i = 1; i < ncpus; i++)
        before[i] = spins[i];
    uint64_t end = cntvct() + ms_to_ticks(10000);
    for (unsigned int i = 1; i < ncpus; i++) {
        while (spins[i] == before[i] && cntvct() < end)
            ;
        CHECK(spins[i] != before[i], "vCPU %u is not spinning (10 s)", i);
    }
    test_end();
    gprintf("smp: powering off with %u vCPUs spinning\n", ncpus - 1);
}

void guest_main(uint32_t dtb)
{
    ncpus = guest_dt.ncpus;
    ram_end = RAM_BASE + guest_dt.mem_size;
    bootarg_u32("iterations", &iterations);
    if (ncpus > MAX_CPUS)
        ncpus = MAX_CPUS;
    gprintf("smp: %u vCPUs, %lu lock rounds each\n", ncpus, (unsigned long)iterations);
    test_boot();
    mmu_enable();
    counting_round("cpu_on_all_spinlock", true, 1);
    mmu_disable();
    counting_round("cpu_on_again_fresh", false, 2);
    test_errors();
    test_thumb_entry();
    test_on_off_storm();
    test_spinning();
    tests_finish();
    /* returning powers the guest off (SYSTEM_OFF) with the others spinning */
}
