/*
 * Host unit tests for the hypervisor's page pool (mm/page_alloc.c) once it
 * hands out only pages of the hypervisor's cache colours (mm/hyp_colour.h).
 * The pool is identity mapped in the hypervisor (VA = PA, 32 bits), so the
 * test maps host memory at the same low address; each page's colour is
 * checked by its definition, (PA / 4 KiB) mod n.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include "mm/page_alloc.h"
#include "hyp/config/colour.h"

#define POOL_PA   0x40000000u
#define POOL_SIZE 0x100000u         /* 256 pages */

static int setup(void **state)
{
    (void)state;
    void *p = mmap((void *)(uintptr_t)POOL_PA, POOL_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    return p == (void *)(uintptr_t)POOL_PA ? 0 : -1;
}

static void test_only_pages_of_the_colours(void **state)
{
    (void)state;
    struct colour_list l;
    char err[96];
    assert_int_equal(colour_parse("2-3,6", 6, 8, &l, err, sizeof(err)), 0);
    page_alloc_init(POOL_PA, POOL_SIZE);
    void *before = page_alloc(1, 1);            /* uncoloured, handed out before */
    assert_int_equal((uintptr_t)before, POOL_PA);
    page_alloc_colours(&l);
    assert_int_equal(page_total_count(), 256 / 8 * 3);
    assert_int_equal(page_free_count(), 256 / 8 * 3);
    /* two adjacent pages: colours 2 and 3 of one period */
    uint8_t *two = page_alloc(2, 1);
    assert_non_null(two);
    assert_int_equal(((uintptr_t)two / 0x1000) % 8, 2);
    assert_int_equal(two[0x1fff], 0);                   /* zeroed */
    assert_null(page_alloc(3, 1));                      /* no three adjacent colours */
    unsigned int got = 2;
    for (void *p; (p = page_alloc(1, 1)) != NULL; got++) {
        unsigned int c = (unsigned int)(((uintptr_t)p / 0x1000) % 8);
        if (c != 2 && c != 3 && c != 6)
            fail_msg("page 0x%lx is of colour %u", (unsigned long)(uintptr_t)p, c);
    }
    assert_int_equal(got, 96);
    assert_int_equal(page_free_count(), 0);
    page_free(two, 2);
    assert_int_equal(page_free_count(), 2);
    page_free(before, 1);                                /* not of the colours: not counted */
    assert_int_equal(page_free_count(), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_only_pages_of_the_colours),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
