/*
 * Host unit tests for the accounting of memory-bandwidth budgets
 * (hyp/sched/budget_pool.c): grants never add up to more than the pool, a
 * vCPU that finds it empty gets nothing, the skid is paid from what is
 * left, a new budget takes effect at the next period only, and the
 * statistics see a period once every CPU has charged it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "hyp/sched/budget_pool.h"

static void test_one_vcpu_takes_everything(void **state)
{
    struct budget_pool p;
    budget_pool_init(&p, 100000, 1000, 1);
    assert_int_equal(budget_pool_draw(&p), 100000);
    assert_int_equal(budget_pool_draw(&p), 0);
}

/* Whatever order vCPUs draw in, the grants sum to the budget exactly and
 * each is a bounded share; the overflows to spend it are few. */
static void test_grants_sum_to_budget(void **state)
{
    for (uint32_t n = 1; n <= 8; n++) {
        struct budget_pool p;
        budget_pool_init(&p, 1000003, 1000, n);
        uint64_t sum = 0;
        unsigned int draws = 0;
        for (;;) {
            int64_t left = p.left;
            uint32_t g = budget_pool_draw(&p);
            if (!g)
                break;
            assert_true(g <= (uint64_t)left);
            if (n > 1 && left >= 2 * n * BUDGET_GRANT_MIN)
                assert_true(g <= left / (2 * n));
            sum += g;
            draws++;
        }
        assert_int_equal(sum, 1000003);
        /* about 2n x log2(budget / BUDGET_GRANT_MIN) + n, far fewer than
         * budget / BUDGET_GRANT_MIN */
        assert_true(draws < 2 * n * 13 + BUDGET_GRANT_MIN);
        assert_true(draws < 1000003 / BUDGET_GRANT_MIN / 4 || n == 8);
    }
}

static void test_small_budget_one_grant(void **state)
{
    struct budget_pool p;
    budget_pool_init(&p, 100, 1000, 4);
    assert_int_equal(budget_pool_draw(&p), 100);    /* less than the minimum: all */
    assert_int_equal(budget_pool_draw(&p), 0);
}

/* an overflow's skid (events past the grant) comes out of the pool */
static void test_skid_is_debt(void **state)
{
    struct budget_pool p;
    budget_pool_init(&p, 10000, 1000, 2);
    uint32_t g = budget_pool_draw(&p);
    assert_int_equal(g, 2500);
    budget_pool_charge(&p, 0, g, g + 40);
    assert_int_equal(p.left, 10000 - 2500 - 40);
    assert_int_equal(p.used[0], 2540);
    /* a CPU still in the last period pays its debt into this one */
    budget_pool_open(&p, 1);
    budget_pool_charge(&p, 0, 100, 150);
    assert_int_equal(p.left, 10000 - 50);
    assert_int_equal(p.used[0], 2690);
}

/* the pool spent: every draw is 0 until the next period refills it */
static void test_spent_until_next_period(void **state)
{
    struct budget_pool p;
    budget_pool_init(&p, 5000, 1000, 1);
    budget_pool_charge(&p, 0, budget_pool_draw(&p), 5003);
    assert_int_equal(budget_pool_draw(&p), 0);
    budget_pool_open(&p, 1);
    assert_int_equal(budget_pool_draw(&p), 5000 - 3);     /* the skid owed */
    /* opening a period twice (every CPU tries) refills once */
    budget_pool_open(&p, 1);
    assert_int_equal(budget_pool_draw(&p), 0);
}

/* an overflow seen only at the period's end (a guest that took no
 * exception): the overdraft is paid over the next periods, in full */
static void test_overdraft_paid_back(void **state)
{
    struct budget_pool p;
    budget_pool_init(&p, 1000, 1000, 1);
    uint32_t g = budget_pool_draw(&p);
    budget_pool_charge(&p, 0, g, 3500);
    uint64_t got = 0;
    for (uint32_t k = 1; k <= 4; k++) {
        budget_pool_open(&p, k);
        got += budget_pool_draw(&p);
    }
    assert_int_equal(got, 4000 - 2500);
}

static void test_set_at_next_period(void **state)
{
    struct budget_pool p;
    budget_pool_init(&p, 5000, 1000, 1);
    assert_false(budget_pool_set(&p, 0, 1000));
    assert_false(budget_pool_set(&p, 10, 0));
    assert_true(budget_pool_set(&p, 7000, 2000));
    assert_int_equal(p.events, 5000);
    assert_int_equal(p.period_us, 1000);
    assert_int_equal(budget_pool_draw(&p), 5000);
    budget_pool_open(&p, 1);
    assert_int_equal(p.events, 7000);
    assert_int_equal(p.period_us, 2000);
    assert_int_equal(budget_pool_draw(&p), 7000);
}

/* period k - 2 is judged when k opens, against the budget it had */
static void test_statistics(void **state)
{
    struct budget_pool p;
    budget_pool_init(&p, 1000, 1000, 2);
    budget_pool_charge(&p, 0, 500, 500);
    budget_pool_charge(&p, 0, 400, 400);
    budget_pool_open(&p, 1);
    budget_pool_charge(&p, 0, 130, 130);       /* a late tail of period 0 */
    budget_pool_set(&p, 2000, 1000);
    budget_pool_charge(&p, 1, 500, 1010);
    budget_pool_open(&p, 2);
    assert_int_equal(p.periods, 1);
    assert_int_equal(p.last_used, 1030);
    assert_int_equal(p.overruns, 1);
    assert_int_equal(p.max_over, 30);
    budget_pool_charge(&p, 2, 2000, 1999);
    budget_pool_open(&p, 3);
    assert_int_equal(p.periods, 2);
    assert_int_equal(p.last_used, 1010);
    assert_int_equal(p.overruns, 2);
    assert_int_equal(p.max_over, 30);
    budget_pool_open(&p, 4);
    assert_int_equal(p.last_used, 1999);       /* under its 2000 */
    assert_int_equal(p.overruns, 2);
    assert_int_equal(p.total_used, 1030 + 1010 + 1999);
    assert_int_equal(p.total_allowed, 1000 + 1000 + 2000);
    /* a late timer skipping periods opens the newest one only */
    budget_pool_open(&p, 9);
    assert_int_equal(p.period, 9);
    assert_int_equal(p.left, 2000);
    budget_pool_open(&p, 8);
    assert_int_equal(p.period, 9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_vcpu_takes_everything),
        cmocka_unit_test(test_grants_sum_to_budget),
        cmocka_unit_test(test_small_budget_one_grant),
        cmocka_unit_test(test_skid_is_debt),
        cmocka_unit_test(test_spent_until_next_period),
        cmocka_unit_test(test_overdraft_paid_back),
        cmocka_unit_test(test_set_at_next_period),
        cmocka_unit_test(test_statistics),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
