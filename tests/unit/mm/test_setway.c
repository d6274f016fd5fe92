/*
 * Host unit tests for the check of a guest's set/way operand
 * (mm/setway.c) against the cache geometry CLIDR/CCSIDR describe
 * (ARM ARM B4.1.19, B4.1.20, B4.2.1).  Cortex-A15: L1 D 32 KiB, 2 ways,
 * 64-byte lines, 256 sets; L2 unified, 16 ways, 2048 sets; built field by field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "mm/setway.h"

/* CLIDR: L1 separate (3), L2 unified (4), nothing at L3 */
#define CLIDR_A15 (3u | (4u << 3))

static uint32_t ccsidr(unsigned int line_bytes, unsigned int ways, unsigned int sets)
{
    unsigned int ls = 0;
    while ((16u << ls) < line_bytes)
        ls++;
    return ls | ((ways - 1) << 3) | ((sets - 1) << 13);
}

/* operand Way << (32 - A) | Set << L | Level << 1, written out */
static uint32_t op(unsigned int level, unsigned int set, unsigned int way, unsigned int a,
                   unsigned int l)
{
    return (a ? (way << (32 - a)) : 0) | (set << l) | (level << 1);
}

static void test_every_valid_operand_passes(void **state)
{
    uint32_t l1 = ccsidr(64, 2, 256), l2 = ccsidr(64, 16, 2048);
    for (unsigned int w = 0; w < 2; w++)
        for (unsigned int s = 0; s < 256; s++)
            assert_true(setway_valid(op(0, s, w, 1, 6), CLIDR_A15, l1));
    for (unsigned int w = 0; w < 16; w++)
        for (unsigned int s = 0; s < 2048; s += 7)
            assert_true(setway_valid(op(1, s, w, 4, 6), CLIDR_A15, l2));
}

static void test_out_of_range_is_refused(void **state)
{
    uint32_t l1 = ccsidr(64, 2, 256);
    /* a level without a data cache, and levels beyond */
    assert_false(setway_valid(op(2, 0, 0, 1, 6), CLIDR_A15, l1));
    assert_false(setway_valid(op(7, 0, 0, 1, 6), CLIDR_A15, l1));
    /* an instruction-only cache (Ctype 1) */
    assert_false(setway_valid(op(0, 0, 0, 1, 6), 1u, l1));
    /* a set beyond NumSets, bits between the set field and the way */
    assert_false(setway_valid(op(0, 256, 0, 1, 6), CLIDR_A15, l1));
    assert_false(setway_valid(op(0, 0, 0, 1, 6) | (1u << 20), CLIDR_A15, l1));
    /* 3 ways need A = 2: way 3 does not exist */
    uint32_t three = ccsidr(64, 3, 128);
    assert_true(setway_valid(op(0, 5, 2, 2, 6), CLIDR_A15, three));
    assert_false(setway_valid(op(0, 5, 3, 2, 6), CLIDR_A15, three));
    /* SBZ bits below the set field and bit 0 */
    assert_false(setway_valid(op(0, 1, 0, 1, 6) | 0x10, CLIDR_A15, l1));
    assert_false(setway_valid(op(0, 1, 0, 1, 6) | 1, CLIDR_A15, l1));
}

static void test_direct_mapped_and_random(void **state)
{
    /* one way: A = 0, no way field at all */
    uint32_t dm = ccsidr(32, 1, 512);
    assert_true(setway_valid(op(0, 511, 0, 0, 5), CLIDR_A15, dm));
    assert_false(setway_valid(op(0, 512, 0, 0, 5), CLIDR_A15, dm));
    /* random operands: valid exactly when the fields decode in range */
    uint32_t l1 = ccsidr(64, 2, 256), x = 12345;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        unsigned int level = (x >> 1) & 7, way = x >> 31, set = (x >> 6) & 0x1ffffff;
        bool want = level <= 1 && set < 256 && !(x & 0x31);
        (void)way;
        assert_int_equal(setway_valid(x, CLIDR_A15, l1), want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_valid_operand_passes),
        cmocka_unit_test(test_out_of_range_is_refused),
        cmocka_unit_test(test_direct_mapped_and_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
