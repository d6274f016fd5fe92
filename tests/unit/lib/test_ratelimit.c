/*
 * Host unit tests for the console rate limit (hyp/lib/ratelimit.c): a burst
 * passes, then one line per period; the dropped ones are counted and
 * reported with the next line that passes; idle time refills the bucket
 * but never beyond the burst.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "hyp/lib/ratelimit.h"

static void test_burst_then_period(void **state)
{
    struct ratelimit r = { 0 };
    uint32_t dropped = 99;
    for (int i = 0; i < 5; i++) {
        assert_true(ratelimit_pass(&r, 1000, 100, 5, &dropped));
        assert_int_equal(dropped, 0);
    }
    /* the bucket is empty: the rest of this period is dropped */
    for (int i = 0; i < 7; i++)
        assert_false(ratelimit_pass(&r, 1050, 100, 5, &dropped));
    /* one period later one line passes and owns up to the 7 */
    assert_true(ratelimit_pass(&r, 1100, 100, 5, &dropped));
    assert_int_equal(dropped, 7);
    assert_false(ratelimit_pass(&r, 1199, 100, 5, &dropped));
    assert_true(ratelimit_pass(&r, 1200, 100, 5, &dropped));
    assert_int_equal(dropped, 1);
}

static void test_flood_is_bounded(void **state)
{
    /* a million attempts over 10 s of ticks at 1 ms each: burst + 10 s / period */
    struct ratelimit r = { 0 };
    uint32_t dropped, passed = 0, reported = 0;
    for (uint64_t t = 0; t < 1000000; t++) {
        if (ratelimit_pass(&r, t * 10, 1000, 64, &dropped)) {
            passed++;
            reported += dropped;
        }
    }
    assert_true(passed <= 64 + 10000000 / 1000 + 1);
    assert_true(passed >= 10000000 / 1000);
    /* every attempt is either passed or reported dropped (but the last few) */
    assert_true(passed + reported + 100 >= 1000000);
}

static void test_idle_refills_to_burst_only(void **state)
{
    struct ratelimit r = { 0 };
    uint32_t dropped;
    for (int i = 0; i < 3; i++)
        assert_true(ratelimit_pass(&r, 0, 10, 3, &dropped));
    assert_false(ratelimit_pass(&r, 0, 10, 3, &dropped));
    /* a long silence: three lines again, not a thousand */
    int n = 0;
    while (ratelimit_pass(&r, 10000, 10, 3, &dropped))
        n++;
    assert_int_equal(n, 3);
    /* time going backwards (another CPU's counter read earlier) is harmless */
    assert_false(ratelimit_pass(&r, 5, 10, 3, &dropped));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_period),
        cmocka_unit_test(test_flood_is_bounded),
        cmocka_unit_test(test_idle_refills_to_burst_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
