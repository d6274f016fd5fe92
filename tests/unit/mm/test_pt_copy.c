/*
 * Host unit tests for the table copy that moves the hypervisor's pages into
 * its cache colours (mm/pt_copy.c).  Tables live in host arrays behind fake
 * physical addresses; the tests read the copies with their own reading of
 * the long-descriptor format (ARM ARM B3.6.1, B3.6.2): bits[1:0] 11 table
 * (levels 1, 2) or page (level 3), 01 block, output address [39:12].
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>
#include "mm/pt_copy.h"

#define NT          16
#define PA_BASE     0x7f000000ull       /* where the fake tables "are" */
#define ADDR        0x000000fffffff000ull
#define ATTRS       0x0040000000000700ull   /* XN, AF, SH: must survive the move */
#define IMAGE_VA    0xf0000000u
#define IMAGE_PA    0x40010000ull
#define MOVED_PA    0x90000000ull

static uint64_t mem[NT][512];
static unsigned int used, limit;
static unsigned int moves;

static uint64_t *table(void *ctx, uint64_t pa)
{
    (void)ctx;
    unsigned int i = (unsigned int)((pa - PA_BASE) >> 12);
    return pa >= PA_BASE && i < used ? mem[i] : NULL;
}

static uint64_t *alloc(void *ctx, uint64_t *pa)
{
    (void)ctx;
    if (used == limit)
        return NULL;
    memset(mem[used], 0, sizeof(mem[used]));
    *pa = PA_BASE + ((uint64_t)used << 12);
    return mem[used++];
}

/* page i of the image goes to MOVED_PA + 2 * i: no two moved pages adjacent */
static uint64_t move(void *ctx, uint32_t va, uint64_t pa)
{
    (void)ctx;
    assert_int_equal(pa, IMAGE_PA + (va - IMAGE_VA));   /* told the page's own address */
    moves++;
    return MOVED_PA + 2ull * (va - IMAGE_VA);
}

static const struct pt_copy_ops ops = { table, alloc, move, NULL };

/* The hypervisor's layout in small: RAM in 2 MiB blocks at 1 GiB, the image
 * in 16 pages at 0xf0000000, devices in pages at 0xe0000000 */
static uint64_t build(void)
{
    uint64_t l1, ram, hi, img;
    used = 0;
    limit = NT;
    uint64_t *t1 = alloc(NULL, &l1), *t2 = alloc(NULL, &ram), *t3 = alloc(NULL, &hi);
    uint64_t *t4 = alloc(NULL, &img);
    t1[1] = ram | 3;
    t1[3] = hi | 3;
    for (unsigned int i = 0; i < 512; i++)
        t2[i] = (0x40000000ull + ((uint64_t)i << 21)) | ATTRS | 1;    /* blocks */
    t3[(IMAGE_VA >> 21) & 511] = img | 3;
    t3[(0xe0000000u >> 21) & 511] = 0x08000000ull | ATTRS | 1;          /* a device block */
    for (unsigned int i = 0; i < 16; i++)
        t4[i] = (IMAGE_PA + ((uint64_t)i << 12)) | ATTRS | 3;
    t4[5] = 0;                                                          /* a guard page */
    return l1;
}

static const uint64_t *next(const uint64_t *t, unsigned int i)
{
    assert_int_equal(t[i] & 3, 3);
    const uint64_t *n = table(NULL, t[i] & ADDR);
    assert_non_null(n);
    return n;
}

static void test_pages_in_range_move_the_rest_stays(void **state)
{
    (void)state;
    uint64_t root = build(), copy;
    unsigned int before = used;
    uint64_t old[4][512];
    memcpy(old, mem, sizeof(old));
    moves = 0;
    assert_int_equal(pt_copy(&ops, root, IMAGE_VA, IMAGE_VA + 8 * 0x1000, &copy), 0);
    assert_int_equal(used, before + 4);             /* one new table for each old one */
    assert_memory_equal(old, mem, sizeof(old));     /* the live tables are not touched */
    const uint64_t *l1 = table(NULL, copy);
    assert_true(copy >= PA_BASE + ((uint64_t)before << 12));
    const uint64_t *l3 = next(next(l1, 3), (IMAGE_VA >> 21) & 511);
    assert_true((const void *)l3 >= (const void *)mem[before]);
    for (unsigned int i = 0; i < 16; i++) {
        uint64_t want = i == 5 ? 0 : i < 8 ? (MOVED_PA + 2ull * (i << 12)) | ATTRS | 3
                                           : (IMAGE_PA + ((uint64_t)i << 12)) | ATTRS | 3;
        assert_int_equal(l3[i], want);
    }
    assert_int_equal(moves, 7);                     /* pages 0-7 but the guard */
    const uint64_t *ram = next(l1, 1);
    assert_int_equal(ram[7], (0x40000000ull + (7ull << 21)) | ATTRS | 1);
    assert_int_equal(next(l1, 3)[(0xe0000000u >> 21) & 511], 0x08000000ull | ATTRS | 1);
    assert_int_equal(l1[0], 0);
    assert_int_equal(l1[2], 0);
}

static void test_a_block_in_the_range_cannot_move(void **state)
{
    (void)state;
    uint64_t copy, root = build();
    assert_int_equal(pt_copy(&ops, root, 0x40200000u, 0x40201000u, &copy), -1);
    root = build();     /* one byte of a block in the range is enough */
    assert_int_equal(pt_copy(&ops, root, 0xe01ff000u, 0xe0201000u, &copy), -1);
}

static void test_out_of_tables(void **state)
{
    (void)state;
    uint64_t copy, root = build();
    limit = used + 3;               /* the tree needs 4 */
    assert_int_equal(pt_copy(&ops, root, IMAGE_VA, IMAGE_VA + 0x1000, &copy), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pages_in_range_move_the_rest_stays),
        cmocka_unit_test(test_a_block_in_the_range_cannot_move),
        cmocka_unit_test(test_out_of_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
