/*
 * Host unit tests for a CPU's claim on a vCPU (hyp/sched/sched_internal.h
 * vcpu_claim): a CPU that picked a vCPU and is overtaken by a stop, a
 * gdb hold or a new start before it loads it lets it go untouched, and
 * the boot CPU, waiting for a guest's vCPUs to leave, never takes one as
 * idle while a CPU goes on to load it.  Before the claim the boot CPU
 * read `loaded`, which vcpu_load sets only at its end: a watchdog restart
 * found the vCPUs of a guest it had just stopped "still leaving their
 * CPUs" and left the guest stopped (tests/system/test_virtio_hostile.py,
 * once in a CI run on a busy host).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>

/* this_cpu() reads HTPIDR, which only ARM code can: not used here */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wint-to-pointer-cast"
#include "hyp/sched/sched_internal.h"
#pragma GCC diagnostic pop

static struct vm t_vm;
static struct vcpu t_v;

/* a running guest's vCPU, on no CPU */
static int setup(void **state)
{
    memset(&t_vm, 0, sizeof(t_vm));
    memset(&t_v, 0, sizeof(t_v));
    t_vm.state = GUEST_RUNNING;
    t_v.vm = &t_vm;
    t_v.power = VCPU_ON;
    return 0;
}

/* the boot CPU's side of a stop (hyp/guest/guest.c guest_stop): the
 * state, then the request by a sequentially consistent exchange */
static void boot_stops(void)
{
    t_vm.state = GUEST_STOPPED;
    (void)__atomic_or_fetch(&t_v.requests, VCPU_REQ_STOP, __ATOMIC_SEQ_CST);
}

static bool boot_sees_idle(void)
{
    return !__atomic_load_n(&t_v.on_cpu, __ATOMIC_ACQUIRE);
}

static void test_a_runnable_vcpu_is_claimed_until_released(void **state)
{
    assert_true(vcpu_claim(&t_v));
    assert_false(boot_sees_idle());
    vcpu_release(&t_v);
    assert_true(boot_sees_idle());
}

/* picked as runnable, then stopped before the claim: the boot CPU saw it
 * idle, and the CPU lets it go */
static void test_picked_then_stopped_is_let_go(void **state)
{
    assert_true(vcpu_runnable(&t_v));       /* the pick */
    boot_stops();
    assert_true(boot_sees_idle());
    assert_false(vcpu_claim(&t_v));
    assert_true(boot_sees_idle());
}

/* picked, then held by gdb or by its memory budget */
static void test_picked_then_held_is_let_go(void **state)
{
    static const uint32_t held[] = { VCPU_REQ_HALT, VCPU_REQ_THROTTLE };
    for (unsigned int i = 0; i < sizeof(held) / sizeof(held[0]); i++) {
        setup(state);
        assert_true(vcpu_runnable(&t_v));
        (void)__atomic_or_fetch(&t_v.requests, held[i], __ATOMIC_SEQ_CST);
        assert_false(vcpu_claim(&t_v));
        assert_true(boot_sees_idle());
    }
}

/* picked in one life, the guest stopped and started again before the
 * claim (hyp/guest/guest.c guest_start): its own CPU resets it first
 * (VCPU_REQ_POWER_ON), so the old pick is not run */
static void test_picked_then_started_again_is_let_go(void **state)
{
    assert_true(vcpu_runnable(&t_v));
    boot_stops();
    t_v.power = VCPU_ON_PENDING;
    t_v.requests = VCPU_REQ_POWER_ON;
    t_vm.state = GUEST_RUNNING;
    assert_false(vcpu_claim(&t_v));
    assert_true(boot_sees_idle());
}

/*
 * Two threads, as the boot CPU and the vCPU's CPU: the boot CPU starts
 * the guest, stops it, waits until it sees the vCPU idle and then owns
 * its saved state for a while; the CPU picks, goes on a little (a pick
 * walks the other vCPUs of its CPU), claims, and "loads". A load while
 * the boot CPU owns the state is a violation. The outcome does not
 * depend on how the two threads interleave: none, ever.
 */
#define CYCLES      20000u
#define OWN_SPINS   64u
static volatile bool boot_owns, done;
static volatile uint32_t loads, violations;

static void *cpu_thread(void *arg)
{
    uint32_t i = 0;
    while (!done) {
        __asm__ volatile("" ::: "memory");      /* the boot thread's writes, anew */
        if (!vcpu_runnable(&t_v)) {
            continue;
        }
        for (uint32_t spin = i++ % 32u; spin > 0u; spin--) {
            __asm__ volatile("" ::: "memory");
        }
        if (!vcpu_claim(&t_v)) {
            continue;
        }
        if (__atomic_load_n(&boot_owns, __ATOMIC_SEQ_CST)) {
            (void)__atomic_add_fetch(&violations, 1u, __ATOMIC_SEQ_CST);
        }
        loads++;
        vcpu_release(&t_v);
    }
    return NULL;
}

static void test_a_stopped_vcpu_is_never_loaded(void **state)
{
    pthread_t cpu;
    done = false;
    assert_int_equal(pthread_create(&cpu, NULL, cpu_thread, NULL), 0);
    for (uint32_t c = 0; c < CYCLES; c++) {
        /* a start: its CPU has reset it (the power-on taken) */
        t_v.requests = 0u;
        t_v.power = VCPU_ON;
        __atomic_store_n(&t_vm.state, GUEST_RUNNING, __ATOMIC_SEQ_CST);
        for (uint32_t spin = c % 128u; spin > 0u; spin--) {
            __asm__ volatile("" ::: "memory");
        }
        boot_stops();
        while (!boot_sees_idle()) {
            ;
        }
        __atomic_store_n(&boot_owns, true, __ATOMIC_SEQ_CST);
        for (uint32_t spin = 0; spin < OWN_SPINS; spin++) {
            __asm__ volatile("" ::: "memory");
        }
        __atomic_store_n(&boot_owns, false, __ATOMIC_SEQ_CST);
    }
    done = true;
    assert_int_equal(pthread_join(cpu, NULL), 0);
    assert_int_equal(violations, 0);
    print_message("%u cycles, %u loads between them\n", CYCLES, loads);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_a_runnable_vcpu_is_claimed_until_released, setup),
        cmocka_unit_test_setup(test_picked_then_stopped_is_let_go, setup),
        cmocka_unit_test_setup(test_picked_then_held_is_let_go, setup),
        cmocka_unit_test_setup(test_picked_then_started_again_is_let_go, setup),
        cmocka_unit_test_setup(test_a_stopped_vcpu_is_never_loaded, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
