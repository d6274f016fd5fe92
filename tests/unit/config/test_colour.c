/*
 * Host unit tests for the cache-colour arithmetic (hyp/config/colour.c):
 * parsing "colors", and where each page of a coloured RAM lies.  The
 * expected placement is checked by its definition - page PA has colour
 * (PA / 4 KiB) mod n - over whole RAMs, not by reusing colour_pa's formula.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/config/guest_config.h"

static struct colour_list parse_ok(const char *s, unsigned int n)
{
    struct colour_list l;
    char err[96] = "";
    if (colour_parse(s, (int)strlen(s) + 1, n, &l, err, sizeof(err)) != 0)
        fail_msg("\"%s\": %s", s, err);
    return l;
}

static void parse_bad(const void *p, int len, unsigned int n, const char *why)
{
    struct colour_list l;
    char err[96] = "";
    assert_int_equal(colour_parse(p, len, n, &l, err, sizeof(err)), -1);
    if (!strstr(err, why))
        fail_msg("error \"%s\", expected to say \"%s\"", err, why);
}

static void test_count(void **state)
{
    (void)state;
    assert_int_equal(colour_count(0x20000), 32);    /* 128 KiB way */
    assert_int_equal(colour_count(0x8000), 8);      /* Cortex-A15 512 KiB L2, 16 ways */
    assert_int_equal(colour_count(0x1000), 0);      /* one page: nothing to colour */
    assert_int_equal(colour_count(0x800), 0);
}

static void test_parse(void **state)
{
    (void)state;
    struct colour_list l = parse_ok("0-3,8, 10-11", 32);
    const uint8_t want[] = { 0, 1, 2, 3, 8, 10, 11 };
    assert_int_equal(l.n, 32);
    assert_int_equal(l.k, sizeof(want));
    assert_memory_equal(l.colour, want, sizeof(want));
    l = parse_ok("31", 32);
    assert_int_equal(l.k, 1);
    assert_int_equal(l.colour[0], 31);
    /* cells, in any order: the list comes out sorted */
    const uint8_t cells[] = { 0, 0, 0, 5, 0, 0, 0, 2, 0, 0, 0, 7 };
    char err[96];
    assert_int_equal(colour_parse(cells, sizeof(cells), 8, &l, err, sizeof(err)), 0);
    assert_int_equal(l.k, 3);
    assert_int_equal(l.colour[0], 2);
    assert_int_equal(l.colour[1], 5);
    assert_int_equal(l.colour[2], 7);

    parse_bad("0-32", 5, 32, "colour 32 does not exist");
    parse_bad("3-1", 4, 32, "runs backwards");
    parse_bad("1,1", 4, 32, "colour 1 given twice");
    parse_bad("0-3,2", 6, 32, "colour 2 given twice");
    parse_bad("0-", 3, 32, "not a list");
    parse_bad("-3", 3, 32, "not a list");
    parse_bad("a", 2, 32, "neither");
    parse_bad("", 1, 32, "neither");
    parse_bad(",", 2, 32, "no colour given");
    parse_bad("0", 2, 0, "no colours to give");
    parse_bad(cells, 5, 8, "neither");
    const uint8_t big[] = { 0, 0, 1, 0 };
    parse_bad(big, 4, 32, "colour 256 does not exist");
}

/* every page of a RAM of `pages` pages at base: its colour is one of the
 * list's, no two pages share a PA, all lie in [base, base + span), and
 * the span is as short as the colours allow */
static void check_layout(const char *colours, unsigned int n, uint64_t base, uint64_t pages)
{
    struct colour_list l = parse_ok(colours, n);
    uint64_t span = colour_span(&l, pages * COLOUR_PAGE);
    uint64_t slots = span / COLOUR_PAGE;
    uint8_t *used = calloc(slots, 1);
    assert_non_null(used);
    uint64_t last = 0;
    for (uint64_t i = 0; i < pages; i++) {
        uint64_t pa = colour_pa(&l, base, i * COLOUR_PAGE + 123);
        assert_int_equal(pa % COLOUR_PAGE, 123);
        pa -= 123;
        assert_true(pa >= base && pa < base + span);
        assert_true(colour_has(&l, (unsigned int)((pa / COLOUR_PAGE) % n)));
        assert_false(used[(pa - base) / COLOUR_PAGE]);
        used[(pa - base) / COLOUR_PAGE] = 1;
        assert_true(i == 0 || pa > last);           /* in address order */
        last = pa;
    }
    /* the span ends with the last page: no page of its colours is skipped */
    assert_int_equal(last + COLOUR_PAGE, base + span);
    for (uint64_t s = 0; s < slots; s++)
        if (colour_has(&l, (unsigned int)(((base / COLOUR_PAGE) + s) % n)))
            assert_true(used[s]);
    free(used);
}

static void test_layout(void **state)
{
    (void)state;
    check_layout("0-15", 32, 0x4c000000, 2048);
    check_layout("16-31", 32, 0x4c000000, 2048);
    check_layout("0,5,9-11,31", 32, 0x48000000, 1000);
    check_layout("7", 8, 0x80000000, 77);
    check_layout("0-127", 128, 0x100000000ull, 300);   /* every colour: contiguous */
    struct colour_list all = parse_ok("0-31", 32);
    assert_int_equal(colour_span(&all, 5 * COLOUR_PAGE), 5 * COLOUR_PAGE);
    assert_int_equal(colour_span(&all, 0), 0);
}

static void test_runs(void **state)
{
    (void)state;
    struct colour_list l = parse_ok("0-3,8,10-11", 32);
    /* page i of the RAM: its run of physically adjacent pages */
    const uint64_t want[] = { 4, 3, 2, 1, 1, 2, 1, 4 };
    for (unsigned int i = 0; i < 8; i++) {
        uint64_t run = colour_run(&l, i * COLOUR_PAGE, ~0ull);
        assert_int_equal(run, want[i]);
        for (uint64_t j = 1; j < run; j++)
            assert_int_equal(colour_pa(&l, 0, (i + j) * COLOUR_PAGE),
                             colour_pa(&l, 0, i * COLOUR_PAGE) + j * COLOUR_PAGE);
    }
    assert_int_equal(colour_run(&l, 0, 2), 2);
}

/* a buffer handed to the hypervisor (guest_config_buffer): followed only
 * where it is one physical run of the guest's own pages */
static void test_buffers(void **state)
{
    (void)state;
    struct guest_config c;
    memset(&c, 0, sizeof(c));
    c.mem_base = 0x48000000;
    c.mem_size = 0x100000;
    c.colours = parse_ok("0-3,8", 32);
    uint64_t pa;
    uint32_t ram = 0x40000000;
    assert_true(guest_config_buffer(&c, ram + 0x10, 0x4000 - 0x10, &pa));  /* colours 0-3 */
    assert_int_equal(pa, 0x48000010);
    assert_false(guest_config_buffer(&c, ram + 0x3ff0, 0x20, &pa));  /* colour 3 into 8 */
    assert_true(guest_config_buffer(&c, ram + 0x4000, 0x1000, &pa)); /* colour 8 alone */
    assert_int_equal(pa, 0x48008000);
    assert_true(guest_config_buffer(&c, ram + 0x5000, 0x10, &pa));   /* next period, 0 */
    assert_int_equal(pa, 0x48020000);
    assert_false(guest_config_buffer(&c, ram + 0xfffff, 2, &pa));    /* past its end */
    /* a physical page is the guest's if it is in its span and of its colours */
    c.mem_span = colour_span(&c.colours, c.mem_size);
    assert_true(guest_ram_has_pa(&c, 0x48003000, 0x1000));           /* colour 3 */
    assert_false(guest_ram_has_pa(&c, 0x48004000, 4));               /* colour 4 */
    assert_true(guest_ram_has_pa(&c, 0x48008ff0, 0x10));             /* colour 8 */
    assert_false(guest_ram_has_pa(&c, 0x48008ff0, 0x20));            /* into colour 9 */
    assert_false(guest_ram_has_pa(&c, 0x48000000 + c.mem_span, 4));  /* past its span */
    memset(&c.colours, 0, sizeof(c.colours));                        /* uncoloured */
    c.mem_span = c.mem_size;
    assert_true(guest_ram_has_pa(&c, 0x48004000, 4));
    assert_false(guest_ram_has_pa(&c, 0x48100000, 4));
    assert_true(guest_config_buffer(&c, ram + 0x3ff0, 0x20, &pa));
    assert_int_equal(pa, 0x48003ff0);
}

/* the pages the hypervisor's pool may hand out once it is coloured
 * (mm/page_alloc.c), and how info writes a list */
static void test_pages_in_and_format(void **state)
{
    (void)state;
    struct colour_list l = parse_ok("2-3,5", 8);
    char buf[64];
    for (unsigned int p = 0; p < 64; p++) {    /* by the definition: PA / 4 KiB mod n */
        unsigned int c = p % 8;
        assert_int_equal(colour_pages_in(&l, 0x40000000ull + p * 0x1000ull, 1),
                         c == 2 || c == 3 || c == 5);
    }
    assert_true(colour_pages_in(&l, 0x40002000, 2));        /* colours 2, 3 */
    assert_false(colour_pages_in(&l, 0x40002000, 3));       /* and 4 */
    assert_true(colour_pages_in(&l, 0x4000a000, 2));        /* 2, 3 of the next period */
    assert_true(colour_pages_in(&l, 0x40005ff8, 1));        /* any byte of the page */
    colour_format(&l, buf, sizeof(buf));
    assert_string_equal(buf, "2-3,5");
    l = parse_ok("0,2,4-7,9", 16);
    colour_format(&l, buf, sizeof(buf));
    assert_string_equal(buf, "0,2,4-7,9");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_runs),
        cmocka_unit_test(test_buffers),
        cmocka_unit_test(test_pages_in_and_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
