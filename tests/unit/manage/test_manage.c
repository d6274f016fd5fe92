/*
 * The management calls and run-time images (hyp/manage/manage.c, image.c,
 * lifecycle.c) over the model of manage_harness.h: a load into a guest
 * whose life ended on its own vCPU (halt, crash) detaches its devices
 * before a byte of the store is written, and is refused while its vCPUs
 * are leaving; every byte of the caller's buffer is read once, so what is
 * checked is what is stored; the CRC a loaded
 * image starts with is taken from its store.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#define H_FAIL(...) do { print_error(__VA_ARGS__); fail(); } while (0)
#include "manage/manage_harness.h"

#define memcpy h_memcpy
#include "hyp/manage/image.c"
#include "hyp/manage/manage.c"
#include "hyp/guest/lifecycle.c"
#include "hyp/guest/health_log.c"
#include "hyp/manage/manage_ops.c"
#undef memcpy
#include "manage/manage_program.h"
#include "hyp/sched/budget_internal.h"

/* a stream in the boss's RAM at offset 0x1000: header, then kernel bytes */
#define STREAM 0x1000u
static struct partita_load *stream_header(uint32_t format, uint32_t kernel_size)
{
    struct partita_load *hd = (struct partita_load *)h_boss(STREAM);
    memset(hd, 0, sizeof(*hd));
    hd->magic = PARTITA_LOAD_MAGIC;
    hd->format = format;
    hd->kernel_size = kernel_size;
    return hd;
}

static int32_t load(uint32_t off, uint32_t len, uint32_t at)
{
    uint32_t r[5] = { PARTITA_MG_LOAD, H_WORKER, h_ipa(STREAM + off), len, at };
    h_call(r);
    return (int32_t)r[0];
}

static int32_t call(uint32_t fn, uint32_t id)
{
    uint32_t r[5] = { fn, id, 0, 0, 0 };
    h_call(r);
    return (int32_t)r[0];
}

static int setup(void **state)
{
    h_setup();
    return 0;
}

/* a zImage whose magic another vCPU changes the moment it is read: what is
 * stored is what was checked (the magic was read twice, and the second,
 * changed copy stored) */
static void test_load_copies_once(void **state)
{
    enum { K = 0x100 };
    struct partita_load *hd = stream_header(1, K);
    uint8_t *k = (uint8_t *)(hd + 1);
    for (unsigned int i = 0; i < K; i++)
        k[i] = (uint8_t)i;
    memcpy(k + ZIMAGE_MAGIC_OFFSET, &(uint32_t){ ZIMAGE_MAGIC }, 4);
    assert_int_equal(call(PARTITA_MG_STOP, H_WORKER), 0);
    h.flip = true;
    int32_t rc = load(0, sizeof(*hd) + K, 0);
    h.flip = false;
    assert_true(rc > 0 && (rc & PARTITA_LOAD_DONE));
    const struct guest_config *c = guests[H_WORKER].cfg;
    uint32_t magic;
    memcpy(&magic, c->kernel + ZIMAGE_MAGIC_OFFSET, 4);
    assert_int_equal(magic, ZIMAGE_MAGIC);
    assert_int_equal(c->kernel[0], 0);          /* the head: the bytes first read */
}

/* a halted guest's devices still aimed at its RAM: the load detaches them
 * before its first byte lands (the harness asserts it on every write) */
static void test_load_into_halted_detaches(void **state)
{
    enum { K = 0x40 };
    h_end_life(GUEST_HALTED);
    stream_header(0, K);
    /* its vCPU has not left yet: refused, nothing written */
    assert_int_equal(load(0, sizeof(struct partita_load) + K, 0), PARTITA_E_STATE);
    assert_int_equal(h.store_writes, 0);
    assert_true(guests[H_WORKER].devices_live);
    h.idle = true;      /* it has left; the boot CPU has not served it yet */
    int32_t rc = load(0, sizeof(struct partita_load) + K, 0);
    assert_true(rc > 0 && (rc & PARTITA_LOAD_DONE));
    assert_false(guests[H_WORKER].devices_live);
    assert_int_equal(h.store_writes, K);
    assert_int_equal(call(PARTITA_MG_START, H_WORKER), 0);
    assert_int_equal(h.starts, 1);
}

/* a crashed guest's: the same, and the boot CPU's pass detaches first */
static void test_load_into_crashed(void **state)
{
    h_end_life(GUEST_CRASHED);
    h_service();
    assert_false(guests[H_WORKER].devices_live);
    stream_header(0, 8);
    int32_t rc = load(0, sizeof(struct partita_load) + 8, 0);
    assert_true(rc > 0 && (rc & PARTITA_LOAD_DONE));
}

/* the bytes change in the store after the load (no device could do it
 * now; a bug could): the start takes the CRC again, info shows what boots */
static void test_crc_is_what_boots(void **state)
{
    enum { K = 0x20 };
    assert_int_equal(call(PARTITA_MG_STOP, H_WORKER), 0);
    struct partita_load *hd = stream_header(0, K);
    memset(hd + 1, 0x11, K);
    int32_t rc = load(0, sizeof(*hd) + K, 0);
    assert_true(rc > 0);
    uint32_t at_load = guests[H_WORKER].image_crc;
    ((uint8_t *)guests[H_WORKER].cfg->kernel)[3] ^= 1;
    assert_int_equal(call(PARTITA_MG_START, H_WORKER), 0);     /* the harness checks */
    assert_int_not_equal(guests[H_WORKER].image_crc, at_load);
}

/* a running guest, or one restarting: no load; a piece out of order or
 * past the end: refused, nothing written past the store */
static void test_load_refusals(void **state)
{
    stream_header(0, 16);
    assert_int_equal(load(0, sizeof(struct partita_load) + 16, 0), PARTITA_E_STATE);
    guests[H_WORKER].restart_pending = true;
    guests[H_WORKER].state = GUEST_STOPPED;
    assert_int_equal(load(0, sizeof(struct partita_load) + 16, 0), PARTITA_E_STATE);
    guests[H_WORKER].restart_pending = false;
    assert_int_equal(load(0, sizeof(struct partita_load) + 4, 0), (int32_t)(sizeof(struct partita_load) + 4));
    assert_int_equal(load(0x100, 4, sizeof(struct partita_load) + 8), PARTITA_E_INVALID);
    assert_int_equal(load(0x100, 13, sizeof(struct partita_load) + 4), PARTITA_E_INVALID);
    assert_int_equal(call(PARTITA_MG_START, H_WORKER), PARTITA_E_STATE);  /* half an image */
    assert_int_equal(call(PARTITA_MG_RESTART, H_WORKER), PARTITA_E_STATE);
    int32_t rc = load(0x100, 12, sizeof(struct partita_load) + 4);
    assert_true(rc > 0 && (rc & PARTITA_LOAD_DONE));
}

/* boundary arguments: buffers at and past the caller's RAM, guests that do
 * not exist or are not its, calls that do not exist */
/* a budget read and changed by the control partition: from the next
 * period; a guest without one, or no budget, refused */
/* the disks' counters (ABI 1.2) after 1.1's fields; a buffer of 1.1's
 * size gets 1.1's fields only */
static void test_stats_disks(void **state)
{
    uint32_t r[5] = { PARTITA_MG_STATS, H_WORKER, h_ipa(STREAM),
                      sizeof(struct partita_guest_stats), 0 };
    h_call(r);
    assert_int_equal(r[0], sizeof(struct partita_guest_stats));
    const struct partita_guest_stats *o = (const struct partita_guest_stats *)h_boss(STREAM);
    assert_int_equal(o->ndisks, 2);
    const struct partita_disk_stats *fe = &o->disk[0], *be = &o->disk[1];
    assert_string_equal(fe->name, "vd");
    assert_int_equal(fe->role, PARTITA_DISK_FRONTEND);
    assert_int_equal(fe->requests, 7);
    assert_int_equal(fe->answers, 5);
    assert_int_equal(fe->ioerrors, 2);
    assert_int_equal(fe->bad_answers, 1);
    assert_int_equal(fe->dropped, 3);
    assert_int_equal(fe->errors, 1);
    assert_int_equal(fe->read_lo, 0x200);
    assert_int_equal(fe->read_hi, 1);
    assert_int_equal(fe->written_lo, 4096);
    assert_string_equal(be->name, "store");
    assert_int_equal(be->role, PARTITA_DISK_DRIVER);
    assert_int_equal(be->requests, 9);
    assert_int_equal(be->answers, 8);
    assert_int_equal(be->bad_answers, 2);
    assert_int_equal(be->requeued, 4);
    assert_int_equal(be->waiting, 1);
    uint32_t old = offsetof(struct partita_guest_stats, ndisks);
    memset(h_boss(STREAM), 0xee, sizeof(struct partita_guest_stats));
    uint32_t r11[5] = { PARTITA_MG_STATS, H_WORKER, h_ipa(STREAM), old, 0 };
    h_call(r11);
    assert_int_equal(r11[0], old);
    assert_int_equal(o->ndisks, 0xeeeeeeeeu);       /* untouched past 1.1's fields */
}

static void test_budget_calls(void **state)
{
    struct budget *b = &budgets[H_WORKER];
    budget_pool_init(&b->pool, 5000, 1000, 2);
    b->event = 0x17;
    b->pool.last_used = 4321;
    uint32_t r[5] = { PARTITA_MG_BUDGET, H_WORKER, h_ipa(STREAM), sizeof(struct partita_budget),
                      0 };
    h_call(r);
    assert_int_equal(r[0], sizeof(struct partita_budget));
    const struct partita_budget *o = (const struct partita_budget *)h_boss(STREAM);
    assert_int_equal(o->events, 5000);
    assert_int_equal(o->period_us, 1000);
    assert_int_equal(o->event, 0x17);
    assert_int_equal(o->last_used_lo, 4321);
    uint32_t set[5] = { PARTITA_MG_BUDGET_SET, H_WORKER, 8000, 2000, 0 };
    h_call(set);
    assert_int_equal(set[0], 0);
    assert_int_equal(b->pool.events, 5000);         /* still, until the next period */
    assert_int_equal(b->pool.next_events, 8000);
    assert_int_equal(b->pool.next_period_us, 2000);
    uint32_t bad[5] = { PARTITA_MG_BUDGET_SET, H_WORKER, 0, 2000, 0 };
    h_call(bad);
    assert_int_equal((int32_t)bad[0], PARTITA_E_INVALID);
    uint32_t slow[5] = { PARTITA_MG_BUDGET_SET, H_WORKER, 10, 99, 0 };
    h_call(slow);
    assert_int_equal((int32_t)slow[0], PARTITA_E_INVALID);
    assert_int_equal(b->pool.next_events, 8000);
    memset(b, 0, sizeof(*b));
    assert_int_equal(call(PARTITA_MG_BUDGET_SET, H_WORKER), PARTITA_E_INVALID);   /* none */
}

/* the health log through the control partition: its guest's records
 * alone, as many as the buffer holds whole, from the number asked for;
 * a guest it may not list refused */
static void test_health_log(void **state)
{
    for (unsigned int i = 0; i < 4; i++) {
        assert_true(health_log_add(H_WORKER, PARTITA_HEALTH_DEADLINE_MISS, PARTITA_HEALTH_LOG,
                                   1, i));
        assert_true(health_log_add(H_GUARDED, PARTITA_HEALTH_CRASH, PARTITA_HEALTH_STOP, 1, i));
    }
    const uint32_t one = sizeof(struct partita_health_record);
    uint32_t r[5] = { PARTITA_MG_HEALTH, H_WORKER, h_ipa(STREAM),
                      sizeof(struct partita_health) + 3 * one - 1, 0 };
    h_call(r);
    assert_int_equal(r[0], sizeof(struct partita_health) + 2 * one);   /* whole ones */
    const struct partita_health *o = (const struct partita_health *)h_boss(STREAM);
    const struct partita_health_record *rec = (const struct partita_health_record *)(o + 1);
    assert_int_equal(o->nrecords, 2);
    assert_int_equal(rec[0].guest, H_WORKER);
    assert_int_equal(rec[0].arg, 0);
    assert_int_equal(rec[1].seq, 2);        /* the other guest's #1 passed over */
    assert_int_equal(rec[1].arg, 1);
    assert_int_equal(o->next_seq, 3);       /* read on from there */
    assert_int_equal(o->freq, 1000);
    assert_int_equal(o->system_stopped, 0);
    uint32_t on[5] = { PARTITA_MG_HEALTH, H_WORKER, h_ipa(STREAM), 4096, o->next_seq };
    h_call(on);
    assert_int_equal(o->nrecords, 2);
    assert_int_equal(rec[0].arg, 2);
    assert_int_equal(rec[1].arg, 3);
    uint32_t shorty[5] = { PARTITA_MG_HEALTH, H_WORKER, h_ipa(STREAM), 8, 0 };
    h_call(shorty);
    assert_int_equal((int32_t)shorty[0], PARTITA_E_INVALID);
    uint32_t other[5] = { PARTITA_MG_HEALTH, H_GUARDED, h_ipa(STREAM), 4096, 0 };
    h_call(other);
    assert_int_equal((int32_t)other[0], PARTITA_E_DENIED);
    /* past the burst, a guest's records are dropped and counted */
    for (unsigned int i = 4; i < HEALTH_LOG_BURST; i++)
        assert_true(health_log_add(H_WORKER, PARTITA_HEALTH_DEADLINE_MISS, PARTITA_HEALTH_LOG,
                                   1, i));
    assert_false(health_log_add(H_WORKER, PARTITA_HEALTH_DEADLINE_MISS, PARTITA_HEALTH_LOG, 1, 0));
    uint32_t again[5] = { PARTITA_MG_HEALTH, H_WORKER, h_ipa(STREAM), 4096, 0 };
    h_call(again);
    assert_int_equal(o->dropped, 1);
    health_log_system_stop(H_WORKER, PARTITA_HEALTH_DEADLINE_MISS);
    health_log_system_stop(H_GUARDED, PARTITA_HEALTH_CRASH);        /* the first says why */
    uint32_t stopped[5] = { PARTITA_MG_HEALTH, H_WORKER, h_ipa(STREAM), 4096, 0 };
    h_call(stopped);
    assert_int_equal(o->system_stopped, 1);
    assert_int_equal(o->stop_guest, H_WORKER);
    assert_int_equal(o->stop_event, PARTITA_HEALTH_DEADLINE_MISS);
}

static void test_boundaries(void **state)
{
    static const uint32_t fns[] = { PARTITA_MG_FIRST - 1, PARTITA_MG_LAST + 1, 0xffffffffu, 0 };
    for (unsigned int i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
        assert_true(call(fns[i], H_WORKER) < 0);
    assert_int_equal(call(PARTITA_MG_STOP, H_GUARDED), PARTITA_E_DENIED);
    assert_int_equal(call(PARTITA_MG_STOP, H_NGUESTS), PARTITA_E_INVALID);
    assert_int_equal(call(PARTITA_MG_STOP, 0xffffffffu), PARTITA_E_INVALID);
    uint32_t r[5] = { PARTITA_MG_INFO, H_WORKER, h_ipa(H_RAM_SIZE - 8), 16, 0 };
    h_call(r);
    assert_int_equal((int32_t)r[0], PARTITA_E_ADDRESS);     /* straddles its end */
    uint32_t r2[5] = { PARTITA_MG_INFO, H_WORKER, h_ipa(0) - 1, 2, 0 };
    h_call(r2);
    assert_int_equal((int32_t)r2[0], PARTITA_E_ADDRESS);
    uint32_t r3[5] = { PARTITA_MG_LOAD, H_WORKER, h_ipa(16), 0xfffffff0u, 0 };
    h_call(r3);
    assert_int_equal((int32_t)r3[0], PARTITA_E_ADDRESS);    /* wraps */
    uint32_t r4[5] = { PARTITA_MG_INFO, H_WORKER, h_ipa(H_RAM_SIZE - 8), 8, 0 };
    h_call(r4);
    assert_int_equal((int32_t)r4[0], 8);        /* its last 8 bytes: a short answer */
}

/* fuzz_manage's programs, a fixed number from a fixed seed: the harness's
 * promises on every step, in every make unit */
static void test_random_programs(void **state)
{
    static uint8_t prog[1024];
    uint32_t x = 0x2545f491u, starts = 0, stored = 0;
    for (unsigned int k = 0; k < 300; k++) {
        for (unsigned int i = 0; i < sizeof(prog); i++) {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            prog[i] = (uint8_t)x;
        }
        h_run(prog, sizeof(prog));
        starts += h.starts;
        stored += h.store_writes;
    }
    print_message("random programs: %u starts, %u bytes stored\n", starts, stored);
    /* they reach what they are for: starts, and loads that write a store */
    assert_true(starts > 0 && stored > 0);
}

/* A caller on another CPU that gdb asks to halt (hyp/manage/manage.c
 * caller_halts): gdb's server waits for it on the boot CPU, which cannot
 * take its call.  A call it posted is withdrawn unrun, and one it could
 * not post gives up: both answer busy at once, and the mailbox is left as
 * it was for others.  (Before the withdrawal this call waited for a boot
 * CPU that never came: the harness's clock stands still.) */
static void test_halted_caller_withdraws(void **state)
{
    struct vcpu *v = &guests[H_BOSS].vcpu[0];
    enum guest_state before = guests[H_WORKER].state;
    h_cpu.index = 1;
    v->requests = VCPU_REQ_HALT;
    assert_int_equal(call(PARTITA_MG_STOP, H_WORKER), PARTITA_E_BUSY);
    assert_int_equal(mailbox.state, MB_FREE);
    assert_int_equal(guests[H_WORKER].state, before);
    /* another caller holds the mailbox: this one does not wait for it */
    mailbox.state = MB_CLAIMED;
    assert_int_equal(call(PARTITA_MG_STOP, H_WORKER), PARTITA_E_BUSY);
    assert_int_equal(mailbox.state, MB_CLAIMED);
    assert_int_equal(guests[H_WORKER].state, before);
    mailbox.state = MB_FREE;
    v->requests = 0;
    h_cpu.index = 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_load_copies_once, setup),
        cmocka_unit_test_setup(test_load_into_halted_detaches, setup),
        cmocka_unit_test_setup(test_load_into_crashed, setup),
        cmocka_unit_test_setup(test_crc_is_what_boots, setup),
        cmocka_unit_test_setup(test_load_refusals, setup),
        cmocka_unit_test_setup(test_budget_calls, setup),
        cmocka_unit_test_setup(test_stats_disks, setup),
        cmocka_unit_test_setup(test_health_log, setup),
        cmocka_unit_test_setup(test_boundaries, setup),
        cmocka_unit_test_setup(test_halted_caller_withdraws, setup),
        cmocka_unit_test(test_random_programs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
