/*
 * Host unit tests for the PSCI 1.0 / SMCCC state machine (hyp/trap/psci.c).
 *
 * A fake guest stands behind the psci_env: N vCPUs with their power
 * states, RAM where entry points are valid, and a record of every
 * callback with its arguments.  Its MPIDR rule mirrors guest.c (vCPU i is
 * Aff0 = i, Aff1 = Aff2 = 0).  Function IDs and return codes are those of
 * ARM DEN 0022D (PSCI) and DEN 0028 (SMCCC).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>
#include "hyp/trap/psci.h"

#define NOT_SUPPORTED 0xffffffffu           /* -1 in r0 */
#define SENTINEL1 0x5e5e0001u
#define SENTINEL2 0x5e5e0002u
#define SENTINEL3 0x5e5e0003u
#define RAM_BASE 0x40000000u
#define RAM_SIZE 0x08000000u

/* ---- the fake guest ---- */

#define MAX_VCPUS 8

static struct fake {
    enum vcpu_power_state state[MAX_VCPUS];
    unsigned int mpidr_calls, state_calls, entry_calls;
    uint32_t last_mpidr, last_entry;
    unsigned int on_calls, off_calls, suspend_calls, system_off_calls, reset_calls;
    unsigned int on_vcpu;
    uint32_t on_entry, on_context;
    unsigned int doorbell_calls;
    uint32_t doorbell_channel;
} fake;

static struct psci_env env;

static int fake_vcpu_of_mpidr(void *ctx, uint32_t mpidr)
{
    assert_ptr_equal(ctx, &fake);
    fake.mpidr_calls++;
    fake.last_mpidr = mpidr;
    if ((mpidr & 0x00ffff00u) || (mpidr & 0xff) >= env.ncpus)
        return -1;
    return (int)(mpidr & 0xff);
}

static enum vcpu_power_state fake_state(void *ctx, unsigned int vcpu)
{
    assert_ptr_equal(ctx, &fake);
    assert_true(vcpu < env.ncpus);
    fake.state_calls++;
    return fake.state[vcpu];
}

static bool fake_entry_valid(void *ctx, uint32_t entry)
{
    fake.entry_calls++;
    fake.last_entry = entry;
    entry &= ~1u;               /* bit 0: Thumb */
    return entry >= RAM_BASE && entry - RAM_BASE < RAM_SIZE;
}

static void fake_power_on(void *ctx, unsigned int vcpu, uint32_t entry, uint32_t context)
{
    assert_ptr_equal(ctx, &fake);
    assert_true(vcpu < env.ncpus);
    fake.on_calls++;
    fake.on_vcpu = vcpu;
    fake.on_entry = entry;
    fake.on_context = context;
    fake.state[vcpu] = PSCI_STATE_ON_PENDING;   /* as the hypervisor does */
}

static void fake_power_off_self(void *ctx) { fake.off_calls++; fake.state[env.self] = PSCI_STATE_OFF; }
static void fake_suspend_self(void *ctx) { fake.suspend_calls++; }
static void fake_system_off(void *ctx) { fake.system_off_calls++; }
static void fake_system_reset(void *ctx) { fake.reset_calls++; }
/* the fake guest is a member of channels 0 and 2 */
static int fake_doorbell(void *ctx, uint32_t channel)
{
    assert_ptr_equal(ctx, &fake);
    fake.doorbell_calls++;
    fake.doorbell_channel = channel;
    return channel == 0 || channel == 2 ? 0 : PSCI_INVALID_PARAMETERS;
}

static int setup(void **state)
{
    memset(&fake, 0, sizeof(fake));
    fake.state[0] = PSCI_STATE_ON;
    for (unsigned int i = 1; i < MAX_VCPUS; i++)
        fake.state[i] = PSCI_STATE_OFF;
    env = (struct psci_env){
        .ncpus = 4, .self = 0,
        .vcpu_of_mpidr = fake_vcpu_of_mpidr, .state = fake_state,
        .entry_valid = fake_entry_valid, .power_on = fake_power_on,
        .power_off_self = fake_power_off_self, .suspend_self = fake_suspend_self,
        .system_off = fake_system_off, .system_reset = fake_system_reset,
        .doorbell = fake_doorbell, .guest_id = 3, .ctx = &fake,
    };
    return 0;
}

static uint32_t r[4];

/* one call; r[1..3] are the arguments */
static bool call(uint32_t fn, uint32_t a1, uint32_t a2, uint32_t a3)
{
    r[0] = fn; r[1] = a1; r[2] = a2; r[3] = a3;
    return psci_handle(&env, r);
}

/* a call with a single result: r0 set, r1..r3 as they were, returns to the caller */
static int32_t call1(uint32_t fn, uint32_t a1, uint32_t a2, uint32_t a3)
{
    if (!call(fn, a1, a2, a3))
        fail_msg("function 0x%08x did not return to the caller", fn);
    if (r[1] != a1 || r[2] != a2 || r[3] != a3)
        fail_msg("function 0x%08x changed r1..r3: 0x%08x 0x%08x 0x%08x", fn, r[1], r[2], r[3]);
    return (int32_t)r[0];
}

static void expect_no_side_effects(void)
{
    assert_int_equal(fake.on_calls, 0);
    assert_int_equal(fake.off_calls, 0);
    assert_int_equal(fake.suspend_calls, 0);
    assert_int_equal(fake.system_off_calls, 0);
    assert_int_equal(fake.reset_calls, 0);
    assert_int_equal(fake.doorbell_calls, 0);
}

/* ---- discovery ---- */

static void test_version(void **state)
{
    assert_int_equal(call1(PSCI_VERSION, SENTINEL1, SENTINEL2, SENTINEL3), 0x00010000);
    expect_no_side_effects();
}

static void test_features_supported(void **state)
{
    static const uint32_t ids[] = {
        PSCI_VERSION, PSCI_CPU_SUSPEND, PSCI_CPU_OFF, PSCI_CPU_ON, PSCI_AFFINITY_INFO,
        PSCI_MIGRATE_INFO_TYPE, PSCI_SYSTEM_OFF, PSCI_SYSTEM_RESET, PSCI_FEATURES,
        SMCCC_VERSION,          /* how SMCCC v1.1 is discovered (DEN 0028) */
    };
    for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        if (call1(PSCI_FEATURES, ids[i], SENTINEL2, SENTINEL3) != PSCI_SUCCESS)
            fail_msg("PSCI_FEATURES(0x%08x) = %d", ids[i], (int32_t)r[0]);
    /* CPU_SUSPEND: bit 1 = 0 platform-coordinated, bit 0 = 0 original
     * power_state format (DEN 0022D 5.15.2) */
    assert_int_equal(call1(PSCI_FEATURES, PSCI_CPU_SUSPEND, 0, 0), 0);
    expect_no_side_effects();
}

static void test_features_unsupported(void **state)
{
    static const uint32_t ids[] = {
        PSCI_MIGRATE, PSCI_MIGRATE_INFO_UP_CPU,
        /* SMC64 variants */
        0xc4000001, 0xc4000003, 0xc4000004, 0xc4000005, 0xc4000007, 0xc400000e,
        0xc4000012, 0xc4000013,
        /* PSCI 1.0 optional and 1.1 functions Partita does not have */
        0x8400000b, 0x8400000c, 0x8400000d, 0x8400000e, 0x8400000f, 0x84000010,
        0x84000011, 0x84000012, 0x84000013, 0x84000014, 0x84000015,
        /* not PSCI functions */
        SMCCC_ARCH_FEATURES, 0x80008000, PARTITA_HC_VERSION, PARTITA_HC_GUEST_INFO,
        0x00000000, 0xffffffff, 0x04000000, 0x8400001f,
    };
    for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        if (call1(PSCI_FEATURES, ids[i], SENTINEL2, SENTINEL3) != PSCI_NOT_SUPPORTED)
            fail_msg("PSCI_FEATURES(0x%08x) = %d", ids[i], (int32_t)r[0]);
    expect_no_side_effects();
}

static void test_smccc_version(void **state)
{
    assert_int_equal(call1(SMCCC_VERSION, SENTINEL1, SENTINEL2, SENTINEL3), 0x00010001);
    expect_no_side_effects();
}

static void test_smccc_arch_features(void **state)
{
    /* no firmware workarounds on ARMv7 guests: Linux's Spectre-v2 probe
     * (SMCCC_ARCH_WORKAROUND_1) must hear "not supported" */
    static const uint32_t ids[] = { 0x80008000, 0x80007fff, 0x80003fff, 0x80000002 };
    for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        assert_int_equal(call1(SMCCC_ARCH_FEATURES, ids[i], SENTINEL2, SENTINEL3),
                         PSCI_NOT_SUPPORTED);
    expect_no_side_effects();
}

static void test_migrate_info_type(void **state)
{
    /* 2: no Trusted OS, or one that needs no migration */
    assert_int_equal(call1(PSCI_MIGRATE_INFO_TYPE, SENTINEL1, SENTINEL2, SENTINEL3), 2);
    expect_no_side_effects();
}

/* ---- CPU_ON ---- */

static void test_cpu_on_success(void **state)
{
    assert_int_equal(call1(PSCI_CPU_ON, 1, 0x40008000, 0xc0ffee00), PSCI_SUCCESS);
    assert_int_equal(fake.on_calls, 1);
    assert_int_equal(fake.on_vcpu, 1);
    assert_int_equal(fake.on_entry, 0x40008000);
    assert_int_equal(fake.on_context, 0xc0ffee00);
    assert_int_equal(fake.last_mpidr, 1);
    assert_int_equal(fake.last_entry, 0x40008000);

    /* a Thumb entry point keeps its bit 0; the last vCPU */
    assert_int_equal(call1(PSCI_CPU_ON, 3, 0x47fffff1, 0), PSCI_SUCCESS);
    assert_int_equal(fake.on_calls, 2);
    assert_int_equal(fake.on_vcpu, 3);
    assert_int_equal(fake.on_entry, 0x47fffff1);
    assert_int_equal(fake.on_context, 0);

    /* and from another vCPU */
    env.self = 3;
    fake.state[3] = PSCI_STATE_ON;
    assert_int_equal(call1(PSCI_CPU_ON, 2, RAM_BASE, 0xffffffff), PSCI_SUCCESS);
    assert_int_equal(fake.on_calls, 3);
    assert_int_equal(fake.on_vcpu, 2);
    assert_int_equal(fake.on_entry, RAM_BASE);
    assert_int_equal(fake.on_context, 0xffffffff);
    assert_int_equal(fake.off_calls + fake.suspend_calls + fake.system_off_calls +
                     fake.reset_calls, 0);
}

static void test_cpu_on_already_on_and_pending(void **state)
{
    /* the caller itself */
    assert_int_equal(call1(PSCI_CPU_ON, 0, 0x40008000, 0), PSCI_ALREADY_ON);
    fake.state[2] = PSCI_STATE_ON;
    assert_int_equal(call1(PSCI_CPU_ON, 2, 0x40008000, 0), PSCI_ALREADY_ON);
    fake.state[2] = PSCI_STATE_ON_PENDING;
    assert_int_equal(call1(PSCI_CPU_ON, 2, 0x40008000, 0), PSCI_ON_PENDING);
    /* also with an entry point that would be refused */
    assert_int_equal(call1(PSCI_CPU_ON, 2, 0, 0), PSCI_ON_PENDING);
    expect_no_side_effects();
    /* a second CPU_ON before the first took effect */
    assert_int_equal(call1(PSCI_CPU_ON, 1, 0x40008000, 1), PSCI_SUCCESS);
    assert_int_equal(call1(PSCI_CPU_ON, 1, 0x40009000, 2), PSCI_ON_PENDING);
    assert_int_equal(fake.on_calls, 1);
    assert_int_equal(fake.on_entry, 0x40008000);
    assert_int_equal(fake.on_context, 1);
}

static void test_cpu_on_invalid_parameters(void **state)
{
    static const uint32_t bad[] = {
        4, 5, 0xff,                     /* no such vCPU */
        0x00000100, 0x00000101,         /* Aff1 */
        0x00010000, 0x00010001,         /* Aff2 */
        0x00ffff00, 0x00ffffff,
    };
    for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(call1(PSCI_CPU_ON, bad[i], 0x40008000, 0), PSCI_INVALID_PARAMETERS);
        assert_int_equal(fake.last_mpidr, bad[i]);      /* passed on untouched */
    }
    expect_no_side_effects();
    for (unsigned int i = 1; i < 4; i++)
        assert_int_equal(fake.state[i], PSCI_STATE_OFF);
}

static void test_cpu_on_invalid_address(void **state)
{
    static const uint32_t bad[] = {
        0, RAM_BASE - 4, RAM_BASE - 1, RAM_BASE + RAM_SIZE, RAM_BASE + RAM_SIZE + 1,
        0xfffffffc,
    };
    for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(call1(PSCI_CPU_ON, 1, bad[i], 0), PSCI_INVALID_ADDRESS);
        assert_int_equal(fake.last_entry, bad[i]);
    }
    expect_no_side_effects();
    assert_int_equal(fake.state[1], PSCI_STATE_OFF);
    /* the bounds themselves are fine */
    assert_int_equal(call1(PSCI_CPU_ON, 1, RAM_BASE + RAM_SIZE - 4, 0), PSCI_SUCCESS);
}

/* ---- calls that do not return ---- */

static void test_cpu_off(void **state)
{
    env.self = 2;
    fake.state[2] = PSCI_STATE_ON;
    assert_false(call(PSCI_CPU_OFF, SENTINEL1, SENTINEL2, SENTINEL3));
    assert_int_equal(fake.off_calls, 1);
    assert_int_equal(fake.state[2], PSCI_STATE_OFF);
    assert_int_equal(fake.on_calls + fake.suspend_calls + fake.system_off_calls +
                     fake.reset_calls, 0);
}

static void test_system_off(void **state)
{
    assert_false(call(PSCI_SYSTEM_OFF, SENTINEL1, SENTINEL2, SENTINEL3));
    assert_int_equal(fake.system_off_calls, 1);
    assert_int_equal(fake.on_calls + fake.off_calls + fake.suspend_calls + fake.reset_calls, 0);
}

static void test_system_reset(void **state)
{
    assert_false(call(PSCI_SYSTEM_RESET, SENTINEL1, SENTINEL2, SENTINEL3));
    assert_int_equal(fake.reset_calls, 1);
    assert_int_equal(fake.on_calls + fake.off_calls + fake.suspend_calls +
                     fake.system_off_calls, 0);
}

/* ---- CPU_SUSPEND ---- */

static void test_cpu_suspend(void **state)
{
    /* standby (StateType 0) and power-down (StateType 1, bit 16) both come
     * back here with SUCCESS */
    assert_int_equal(call1(PSCI_CPU_SUSPEND, 0x00000000, 0x40008000, 0x1234), PSCI_SUCCESS);
    assert_int_equal(fake.suspend_calls, 1);
    assert_int_equal(call1(PSCI_CPU_SUSPEND, 0x00010000, 0x40008000, 0x1234), PSCI_SUCCESS);
    assert_int_equal(fake.suspend_calls, 2);
    assert_int_equal(fake.on_calls + fake.off_calls + fake.system_off_calls +
                     fake.reset_calls, 0);
}

/* ---- AFFINITY_INFO ---- */

static void test_affinity_info(void **state)
{
    fake.state[0] = PSCI_STATE_ON;
    fake.state[1] = PSCI_STATE_OFF;
    fake.state[2] = PSCI_STATE_ON_PENDING;
    fake.state[3] = PSCI_STATE_ON;
    assert_int_equal(call1(PSCI_AFFINITY_INFO, 0, 0, SENTINEL3), 0);    /* ON */
    assert_int_equal(call1(PSCI_AFFINITY_INFO, 1, 0, SENTINEL3), 1);    /* OFF */
    assert_int_equal(call1(PSCI_AFFINITY_INFO, 2, 0, SENTINEL3), 2);    /* ON_PENDING */
    assert_int_equal(call1(PSCI_AFFINITY_INFO, 3, 0, SENTINEL3), 0);
    /* follows the state machine */
    fake.state[2] = PSCI_STATE_ON;
    assert_int_equal(call1(PSCI_AFFINITY_INFO, 2, 0, SENTINEL3), 0);
    fake.state[1] = PSCI_STATE_ON_PENDING;
    assert_int_equal(call1(PSCI_AFFINITY_INFO, 1, 0, SENTINEL3), 2);
    expect_no_side_effects();
}

static void test_affinity_info_invalid(void **state)
{
    /* only affinity level 0 exists */
    for (uint32_t level = 1; level < 4; level++)
        assert_int_equal(call1(PSCI_AFFINITY_INFO, 0, level, 0), PSCI_INVALID_PARAMETERS);
    assert_int_equal(call1(PSCI_AFFINITY_INFO, 0, 0xffffffff, 0), PSCI_INVALID_PARAMETERS);
    /* no such vCPU */
    static const uint32_t bad[] = { 4, 0xff, 0x100, 0x10000, 0x00010001 };
    for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(call1(PSCI_AFFINITY_INFO, bad[i], 0, 0), PSCI_INVALID_PARAMETERS);
        assert_int_equal(fake.last_mpidr, bad[i]);
    }
    expect_no_side_effects();
}

/* ---- what Partita does not do ---- */

static void test_migrate_and_smc64(void **state)
{
    static const uint32_t ids[] = {
        PSCI_MIGRATE, PSCI_MIGRATE_INFO_UP_CPU,
        0xc4000001,     /* CPU_SUSPEND (SMC64) */
        0xc4000003,     /* CPU_ON (SMC64) */
        0xc4000004,     /* AFFINITY_INFO (SMC64) */
        0xc4000005,     /* MIGRATE (SMC64) */
        0xc4000007,     /* MIGRATE_INFO_UP_CPU (SMC64) */
        0xc400000e,     /* SYSTEM_SUSPEND (SMC64) */
        0xc4000012,     /* SYSTEM_RESET2 (SMC64) */
        0xc4000002, 0xc4000008, 0xc4000009,     /* no 64-bit CPU_OFF/SYSTEM_OFF/RESET */
        0xc4000000, 0xc400000a,
    };
    for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        if (call1(ids[i], 1, 0x40008000, 0) != PSCI_NOT_SUPPORTED)
            fail_msg("function 0x%08x = %d", ids[i], (int32_t)r[0]);
    expect_no_side_effects();
    for (unsigned int i = 1; i < 4; i++)
        assert_int_equal(fake.state[i], PSCI_STATE_OFF);
}

/* ---- Partita's own calls ---- */

static void test_partita_version(void **state)
{
    assert_int_equal(call1(PARTITA_HC_VERSION, SENTINEL1, SENTINEL2, SENTINEL3),
                     (PARTITA_VERSION_MAJOR << 16) | PARTITA_VERSION_MINOR);
    assert_int_equal(r[0], 0x00000001);     /* 0.1 */
    expect_no_side_effects();
}

static void test_partita_guest_info(void **state)
{
    assert_true(call(PARTITA_HC_GUEST_INFO, SENTINEL1, SENTINEL2, SENTINEL3));
    assert_int_equal(r[0], 3);      /* guest id */
    assert_int_equal(r[1], 4);      /* vCPUs */
    assert_int_equal(r[2], 0);      /* this vCPU */
    assert_int_equal(r[3], SENTINEL3);
    env.self = 2;
    env.ncpus = 3;
    env.guest_id = 0;
    assert_true(call(PARTITA_HC_GUEST_INFO, SENTINEL1, SENTINEL2, SENTINEL3));
    assert_int_equal(r[0], 0);
    assert_int_equal(r[1], 3);
    assert_int_equal(r[2], 2);
    assert_int_equal(r[3], SENTINEL3);
    expect_no_side_effects();
}

static void test_partita_general_queries(void **state)
{
    /* SMCCC general service queries of the vendor hypervisor range; the
     * count grows with Partita's calls: at least VERSION and GUEST_INFO */
    int32_t count = call1(PARTITA_HC_CALL_COUNT, SENTINEL1, SENTINEL2, SENTINEL3);
    assert_in_range(count, 2, 0xff);

    assert_true(call(PARTITA_HC_CALL_UID, SENTINEL1, SENTINEL2, SENTINEL3));
    assert_int_not_equal(r[0], NOT_SUPPORTED);      /* r0 = -1 would mean "no UID" */
    assert_int_equal(r[0], 0x5061726b);
    assert_int_equal(r[1], 0x69746100);
    assert_int_equal(r[2], 0x80000000);
    assert_int_equal(r[3], 0x00000001);

    assert_true(call(PARTITA_HC_REVISION, SENTINEL1, SENTINEL2, SENTINEL3));
    assert_int_equal(r[0], PARTITA_VERSION_MAJOR);
    assert_int_equal(r[1], PARTITA_VERSION_MINOR);
    assert_int_equal(r[2], SENTINEL2);
    assert_int_equal(r[3], SENTINEL3);
    expect_no_side_effects();
}

static void test_partita_doorbell(void **state)
{
    /* r1 = channel; r0 = 0 when the caller is a member, -2 otherwise */
    assert_int_equal(call1(PARTITA_HC_DOORBELL, 2, SENTINEL2, SENTINEL3), PSCI_SUCCESS);
    assert_int_equal(fake.doorbell_calls, 1);
    assert_int_equal(fake.doorbell_channel, 2);
    assert_int_equal(call1(PARTITA_HC_DOORBELL, 1, SENTINEL2, SENTINEL3),
                     PSCI_INVALID_PARAMETERS);
    assert_int_equal(fake.doorbell_calls, 2);
    assert_int_equal(fake.doorbell_channel, 1);
    /* a guest without channels (no callback): invalid, never a crash */
    env.doorbell = NULL;
    assert_int_equal(call1(PARTITA_HC_DOORBELL, 0, SENTINEL2, SENTINEL3),
                     PSCI_INVALID_PARAMETERS);
    /* the call count covers it */
    assert_true(call1(PARTITA_HC_CALL_COUNT, 0, 0, 0) >= 5);
    fake.doorbell_calls = 0;
    expect_no_side_effects();
}

static uint32_t blk_disk;
static int fake_blk_done(void *ctx, uint32_t disk)
{
    blk_disk = disk;
    return disk == 1 ? 3 : PSCI_INVALID_PARAMETERS;
}

static void test_partita_blk_done(void **state)
{
    /* a guest that drives no disk (no callback): invalid, never a crash */
    assert_int_equal(call1(PARTITA_HC_BLK_DONE, 0, SENTINEL2, SENTINEL3),
                     PSCI_INVALID_PARAMETERS);
    /* r1 = the disk; r0 = the answers left unread, or invalid */
    env.blk_done = fake_blk_done;
    assert_int_equal(call1(PARTITA_HC_BLK_DONE, 1, SENTINEL2, SENTINEL3), 3);
    assert_int_equal(call1(PARTITA_HC_BLK_DONE, 7, SENTINEL2, SENTINEL3),
                     PSCI_INVALID_PARAMETERS);
    assert_int_equal(blk_disk, 7);
    env.blk_done = NULL;
    expect_no_side_effects();
}

static uint32_t manage_fn, manage_calls;
static void fake_manage(void *ctx, uint32_t *rr)
{
    manage_fn = rr[0];
    manage_calls++;
    rr[0] = 0x1234;
}

static void test_partita_manage_calls(void **state)
{
    /* without the callback (not a control partition's vCPU): NOT_SUPPORTED */
    for (uint32_t fn = PARTITA_HC_MANAGE_FIRST; fn <= PARTITA_HC_MANAGE_LAST; fn++)
        assert_int_equal(call1(fn, 1, 2, 3), PSCI_NOT_SUPPORTED);
    for (uint32_t fn = PARTITA_HC_MANAGE2_FIRST; fn <= PARTITA_HC_MANAGE2_LAST; fn++)
        assert_int_equal(call1(fn, 1, 2, 3), PSCI_NOT_SUPPORTED);
    /* with it: every management ID reaches it, and nothing else does */
    env.manage = fake_manage;
    for (uint32_t fn = PARTITA_HC_MANAGE_FIRST; fn <= PARTITA_HC_MANAGE_LAST; fn++) {
        assert_true(call(fn, 1, 2, 3));
        assert_int_equal(manage_fn, fn);
        assert_int_equal(r[0], 0x1234);
    }
    /* and the health log's and the schedules', past the range */
    assert_true(call(PARTITA_HC_MANAGE_HEALTH, 1, 2, 3));
    assert_int_equal(manage_fn, PARTITA_HC_MANAGE_HEALTH);
    for (uint32_t fn = PARTITA_HC_MANAGE2_FIRST; fn <= PARTITA_HC_MANAGE2_LAST; fn++) {
        assert_true(call(fn, 1, 2, 3));
        assert_int_equal(manage_fn, fn);
        assert_int_equal(r[0], 0x1234);
    }
    unsigned int n = PARTITA_HC_MANAGE_LAST - PARTITA_HC_MANAGE_FIRST + 2 +
                     PARTITA_HC_MANAGE2_LAST - PARTITA_HC_MANAGE2_FIRST + 1;
    assert_int_equal(manage_calls, n);
    assert_int_equal(call1(PARTITA_HC_LAST + 1, 1, 2, 3), PSCI_NOT_SUPPORTED);
    assert_int_equal(call1(PARTITA_HC_DOORBELL, 2, 2, 3), PSCI_SUCCESS);
    assert_int_equal(call1(PARTITA_HC_DEADLINE_MISS, 7, 2, 3), -1);    /* nobody listens */
    assert_int_equal(manage_calls, n);
    env.manage = NULL;
    assert_int_equal(call1(PARTITA_HC_MANAGE_HEALTH, 1, 2, 3), PSCI_NOT_SUPPORTED);
    fake.doorbell_calls = 0;
    expect_no_side_effects();
}

/* ---- anything else ---- */

static bool known(uint32_t fn)
{
    if (fn >= PSCI_VERSION && fn <= PSCI_FEATURES)
        return true;
    if (fn >= PARTITA_HC_VERSION && fn < PARTITA_HC_VERSION + 0x10)
        return true;    /* Partita's own calls, present and future */
    switch (fn) {
    case SMCCC_VERSION: case PARTITA_HC_VERSION: case PARTITA_HC_GUEST_INFO:
    case PARTITA_HC_CALL_COUNT: case PARTITA_HC_CALL_UID: case PARTITA_HC_REVISION:
        return true;
    default:
        return false;
    }
}

static void expect_unknown(uint32_t fn)
{
    if (call1(fn, SENTINEL1, SENTINEL2, SENTINEL3) != PSCI_NOT_SUPPORTED)
        fail_msg("unknown function 0x%08x = %d", fn, (int32_t)r[0]);
}

static void test_unknown_ids(void **state)
{
    static const uint32_t ids[] = {
        0x00000000, 0xffffffff, 0x7fffffff, 0x80000000 | 0xffff,
        0x84000000 - 1, 0x8400000b, 0x84000100, 0x8400ff00, 0x8400ff01, 0x8400ff03,
        0x860000ff, 0x8600fe00, 0x8600ff02, 0x8600ff04, 0x86010000,
        0xc6000000, 0xc6000001, 0xc600ff01,        /* Partita's calls as SMC64 */
        0x06000000, 0x06000001, 0x04000000, 0x04000003,    /* yielding calls */
        0x82000000, 0x83000000, 0x85000000, 0x87000000, 0xb0000000, 0xbf00ff01,
        0x81000000, 0x8000ff01,
    };
    for (unsigned int i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
        expect_unknown(ids[i]);
    /* and a few thousand at random (a fixed sequence) */
    uint32_t x = 0x2545f491;
    for (unsigned int i = 0; i < 4000; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        uint32_t fn = i & 1 ? x : (x & 0xff00ffff);     /* also IDs near the real ones */
        if (!known(fn))
            expect_unknown(fn);
    }
    expect_no_side_effects();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_version, setup),
        cmocka_unit_test_setup(test_features_supported, setup),
        cmocka_unit_test_setup(test_features_unsupported, setup),
        cmocka_unit_test_setup(test_smccc_version, setup),
        cmocka_unit_test_setup(test_smccc_arch_features, setup),
        cmocka_unit_test_setup(test_migrate_info_type, setup),
        cmocka_unit_test_setup(test_cpu_on_success, setup),
        cmocka_unit_test_setup(test_cpu_on_already_on_and_pending, setup),
        cmocka_unit_test_setup(test_cpu_on_invalid_parameters, setup),
        cmocka_unit_test_setup(test_cpu_on_invalid_address, setup),
        cmocka_unit_test_setup(test_cpu_off, setup),
        cmocka_unit_test_setup(test_system_off, setup),
        cmocka_unit_test_setup(test_system_reset, setup),
        cmocka_unit_test_setup(test_cpu_suspend, setup),
        cmocka_unit_test_setup(test_affinity_info, setup),
        cmocka_unit_test_setup(test_affinity_info_invalid, setup),
        cmocka_unit_test_setup(test_migrate_and_smc64, setup),
        cmocka_unit_test_setup(test_partita_version, setup),
        cmocka_unit_test_setup(test_partita_guest_info, setup),
        cmocka_unit_test_setup(test_partita_doorbell, setup),
        cmocka_unit_test_setup(test_partita_blk_done, setup),
        cmocka_unit_test_setup(test_partita_manage_calls, setup),
        cmocka_unit_test_setup(test_partita_general_queries, setup),
        cmocka_unit_test_setup(test_unknown_ids, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
