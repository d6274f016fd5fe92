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

/* the boot CPU's wake-up (hyp/sched/sched.c): a claim overtaken by a stop
 * asks for the boot CPU's next look */
static volatile uint32_t cpu0_wakes;
void sched_cpu0_work(void)
{
    (void)__atomic_add_fetch(&cpu0_wakes, 1u, __ATOMIC_SEQ_CST);
}

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

/* a start of a guest its vCPU's CPU does not see running: dropped, the
 * guest's next start asks again (sched_internal.h vcpu_requests_take) */
static void test_a_start_of_a_stopped_guest_is_dropped(void **state)
{
    t_vm.state = GUEST_STOPPED;
    t_v.power = VCPU_OFF;
    vcpu_request_power_on(&t_v, 0x40000000u, 0u, 0u, 0u);
    assert_int_equal(vcpu_requests_take(&t_v) & VCPU_REQ_POWER_ON, 0u);
    assert_int_equal(t_v.requests, 0u);
    t_vm.state = GUEST_RUNNING;
    vcpu_request_power_on(&t_v, 0x40000000u, 1u, 2u, 3u);
    assert_int_equal(vcpu_requests_take(&t_v), VCPU_REQ_POWER_ON);
    assert_int_equal(t_v.on_r[2], 3u);
}

/*
 * A restart while the vCPU's CPU is still taking the last life's stop
 * (hyp/guest/guest.c guest_start waits only for the CPU to let go of the
 * vCPU): the boot thread stops the guest and starts it again at once, in
 * guest_start's order - running, then vCPU 0's start - while the CPU
 * thread takes requests as vcpu_take_requests does, at any moment.  Every
 * start must reach the vCPU.  With the start asked first, a CPU that took
 * it before it saw the guest running dropped it and left the vCPU pending
 * for ever, and every gdb halt of it would time out
 * (test_gdb_reads_only_a_restarted_life restarts a guest under gdb).
 */
#define STARTS          20000u
#define START_SPINS     100000000u
static volatile uint32_t resets;

static void *taking_cpu_thread(void *arg)
{
    while (!done) {
        if (__atomic_load_n(&t_v.requests, __ATOMIC_SEQ_CST) == 0u) {
            continue;
        }
        if ((vcpu_requests_take(&t_v) & VCPU_REQ_POWER_ON) != 0u) {
            resets++;
            __atomic_store_n(&t_v.power, VCPU_ON, __ATOMIC_RELEASE);
        }
        if (vcpu_claim(&t_v)) {
            vcpu_release(&t_v);
        }
    }
    return NULL;
}

static void test_a_restart_reaches_a_cpu_still_taking_the_stop(void **state)
{
    pthread_t cpu;
    done = false;
    resets = 0u;
    assert_int_equal(pthread_create(&cpu, NULL, taking_cpu_thread, NULL), 0);
    uint32_t lost = 0u;
    for (uint32_t c = 0; (c < STARTS) && (lost == 0u); c++) {
        boot_stops();
        while (!boot_sees_idle()) {
            ;
        }
        for (uint32_t spin = c % 64u; spin > 0u; spin--) {
            __asm__ volatile("" ::: "memory");
        }
        /* guest_start: its vCPUs off, then running, then vCPU 0's start */
        t_v.power = VCPU_OFF;
        __atomic_store_n(&t_v.requests, 0u, __ATOMIC_SEQ_CST);
        __atomic_store_n(&t_vm.state, GUEST_RUNNING, __ATOMIC_SEQ_CST);
        vcpu_request_power_on(&t_v, 0x40000000u, 0u, ~0u, 0u);
        uint32_t spins = 0u;
        while ((__atomic_load_n(&t_v.power, __ATOMIC_ACQUIRE) != VCPU_ON) &&
               (spins < START_SPINS)) {
            spins++;
        }
        lost += (spins == START_SPINS) ? 1u : 0u;
    }
    done = true;
    assert_int_equal(pthread_join(cpu, NULL), 0);
    assert_int_equal(lost, 0u);
    print_message("%u restarts, %u resets\n", STARTS, resets);
}

/* A shared CPU's pick tests a candidate by claiming it: a claim that lets
 * a stopped guest's vCPU go wakes the boot CPU when it waits for that
 * guest's vCPUs to leave (it may have looked during the hold), and only
 * then */
static void test_a_claim_let_go_wakes_a_watching_boot_cpu(void **state)
{
    cpu0_wakes = 0u;
    boot_stops();
    assert_false(vcpu_claim(&t_v));
    assert_int_equal(cpu0_wakes, 0u);
    t_vm.leave_watch = true;
    assert_false(vcpu_claim(&t_v));
    assert_int_equal(cpu0_wakes, 1u);
    assert_true(boot_sees_idle());
    /* an exclusive CPU's claim of a vCPU that may not run holds nothing,
     * so it has nothing to wake the boot CPU for */
    assert_false(vcpu_claim_own(&t_v));
    assert_int_equal(cpu0_wakes, 1u);
}

/*
 * An exclusive CPU tries its one vCPU on every pass of its loop, runnable
 * or not (hyp/sched/sched.c pcpu_loop, vcpu_claim_own).  The boot CPU looks once, when the
 * vCPU of a guest that reset itself has left its CPU, to restart the
 * guest (hyp/guest/guest.c guests_service).  A look that found the vCPU
 * held for the claim's own look waited for a wake-up nobody sent, and the
 * guest never restarted (test_monitor.py test_guest_reset_from_its_console,
 * once in a CI run on a busy host).  However the looks fall, a stopped
 * guest's vCPU is never seen held.
 */
#define LOOKS           2000000u
static bool trying;
static volatile uint32_t tries;

static void *trying_cpu_thread(void *arg)
{
    __atomic_store_n(&trying, true, __ATOMIC_SEQ_CST);
    while (!done) {
        if (vcpu_claim_own(&t_v)) {
            vcpu_release(&t_v);
        }
        tries++;
    }
    return NULL;
}

static void test_a_stopped_vcpu_is_never_seen_held(void **state)
{
    pthread_t cpu;
    boot_stops();
    t_v.requests = 0u;          /* the stop, taken by its CPU as the vCPU left */
    done = false;
    trying = false;
    tries = 0u;
    assert_int_equal(pthread_create(&cpu, NULL, trying_cpu_thread, NULL), 0);
    while (!__atomic_load_n(&trying, __ATOMIC_SEQ_CST)) {
        ;
    }
    uint32_t held = 0u;
    for (uint32_t i = 0; i < LOOKS; i++) {
        held += boot_sees_idle() ? 0u : 1u;
    }
    done = true;
    assert_int_equal(pthread_join(cpu, NULL), 0);
    assert_int_equal(held, 0u);
    assert_true(tries > 0u);
    print_message("%u looks, %u claims tried meanwhile\n", LOOKS, tries);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_a_runnable_vcpu_is_claimed_until_released, setup),
        cmocka_unit_test_setup(test_picked_then_stopped_is_let_go, setup),
        cmocka_unit_test_setup(test_picked_then_held_is_let_go, setup),
        cmocka_unit_test_setup(test_picked_then_started_again_is_let_go, setup),
        cmocka_unit_test_setup(test_a_stopped_vcpu_is_never_loaded, setup),
        cmocka_unit_test_setup(test_a_start_of_a_stopped_guest_is_dropped, setup),
        cmocka_unit_test_setup(test_a_restart_reaches_a_cpu_still_taking_the_stop, setup),
        cmocka_unit_test_setup(test_a_stopped_vcpu_is_never_seen_held, setup),
        cmocka_unit_test_setup(test_a_claim_let_go_wakes_a_watching_boot_cpu, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
