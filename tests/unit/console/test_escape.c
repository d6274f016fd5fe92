/* The console escape (Ctrl-A three times) as a state machine. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "hyp/console/console_escape.h"

/* Feed a string; returns what came out, '|' marking each focus switch. */
static void run(const char *in, size_t n, char *out)
{
    struct console_escape e = { 0 };
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char buf[ESC_COUNT];
        int r = console_escape_feed(&e, in[i], buf);
        if (r < 0) {
            out[k++] = '|';
        } else {
            assert_true(r <= ESC_COUNT);
            memcpy(out + k, buf, (size_t)r);
            k += (size_t)r;
        }
    }
    out[k] = '\0';
}

static void test_plain_text_passes(void **s)
{
    char out[64];
    run("hello\r", 6, out);
    assert_string_equal(out, "hello\r");
}

static void test_three_ctrl_a_switch(void **s)
{
    char out[64];
    run("\x01\x01\x01", 3, out);
    assert_string_equal(out, "|");
    run("a\x01\x01\x01" "b", 5, out);
    assert_string_equal(out, "a|b");
}

static void test_six_switch_twice(void **s)
{
    char out[64];
    run("\x01\x01\x01\x01\x01\x01", 6, out);
    assert_string_equal(out, "||");
}

static void test_one_or_two_are_passed_on_in_order(void **s)
{
    char out[64];
    run("\x01x", 2, out);
    assert_string_equal(out, "\x01x");
    run("\x01\x01y", 3, out);
    assert_string_equal(out, "\x01\x01y");
    run("\x01\x01" "z\x01\x01\x01", 6, out);
    assert_string_equal(out, "\x01\x01z|");
}

static void test_held_until_decided(void **s)
{
    struct console_escape e = { 0 };
    char buf[ESC_COUNT];
    assert_int_equal(console_escape_feed(&e, 0x01, buf), 0);
    assert_int_equal(console_escape_feed(&e, 0x01, buf), 0);
    assert_int_equal(e.held, 2);
    assert_int_equal(console_escape_feed(&e, 'q', buf), 3);
    assert_memory_equal(buf, "\x01\x01q", 3);
    assert_int_equal(e.held, 0);
}

static void test_four_is_switch_then_held(void **s)
{
    char out[64];
    run("\x01\x01\x01\x01k", 5, out);
    assert_string_equal(out, "|\x01k");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_text_passes),
        cmocka_unit_test(test_three_ctrl_a_switch),
        cmocka_unit_test(test_six_switch_twice),
        cmocka_unit_test(test_one_or_two_are_passed_on_in_order),
        cmocka_unit_test(test_held_until_decided),
        cmocka_unit_test(test_four_is_switch_then_held),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
