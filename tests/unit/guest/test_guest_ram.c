/*
 * Host unit tests for a guest's RAM in its Stage-2 (hyp/guest/guest_ram.c):
 * every page of a coloured guest maps a physical page of its colours, no
 * two pages the same one, inside its span, read-write-execute normal
 * memory; two guests of disjoint colours in one span never meet; an
 * uncoloured guest keeps its 2 MiB blocks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/guest/guest_ram.h"

#define PAGE 0x1000ull
#define MAX_TABLES 64
#define FAKE_PA 0xf000000000ull

/* table pages from the host heap behind fake physical addresses */
static void *tables[MAX_TABLES];
static unsigned int ntables;

static void *t_alloc(void *ctx, uint64_t *pa)
{
    (void)ctx;
    assert_true(ntables < MAX_TABLES);
    void *p = aligned_alloc(PAGE, PAGE);
    assert_non_null(p);
    memset(p, 0, PAGE);
    tables[ntables] = p;
    *pa = FAKE_PA + ntables++ * PAGE;
    return p;
}
static void t_free(void *ctx, void *va) { (void)ctx; (void)va; }
static void *t_va(void *ctx, uint64_t pa) { (void)ctx; return tables[(pa - FAKE_PA) / PAGE]; }
static const struct s2_mm_ops ops = { t_alloc, t_free, t_va, NULL };

static void tables_free(void)
{
    for (unsigned int i = 0; i < ntables; i++)
        free(tables[i]);
    ntables = 0;
}

static struct guest_config coloured(uint64_t base, uint64_t size, unsigned int n,
                                    unsigned int first, unsigned int count)
{
    struct guest_config c;
    memset(&c, 0, sizeof(c));
    c.mem_base = base;
    c.mem_size = size;
    c.colours.n = n;
    c.colours.k = count;
    for (unsigned int i = 0; i < count; i++)
        c.colours.colour[i] = (uint8_t)(first + i);
    c.mem_span = colour_span(&c.colours, size);
    return c;
}

/* map c, then look every page up: its PA, checked; marks owner in map */
static void check_guest(const struct guest_config *c, uint8_t *owner, uint8_t who,
                        uint64_t span_base, uint64_t span)
{
    struct stage2 s2;
    assert_int_equal(s2_init(&s2, &ops), 0);
    assert_int_equal(guest_ram_map(&s2, c), 0);
    for (uint64_t off = 0; off < c->mem_size; off += PAGE) {
        uint64_t pa;
        unsigned int attrs, level;
        assert_int_equal(s2_lookup(&s2, guest_ram_ipa(c) + off, &pa, &attrs, &level), 0);
        assert_int_equal(attrs, S2_RWX);
        assert_int_equal(level, 3);                 /* 4 KiB pages */
        assert_true(pa >= span_base && pa < span_base + span);
        unsigned int colour = (unsigned int)((pa / PAGE) % c->colours.n);
        assert_true(colour_has(&c->colours, colour));
        uint64_t slot = (pa - span_base) / PAGE;
        if (owner[slot])
            fail_msg("PA 0x%llx mapped twice (guests %u and %u)", (unsigned long long)pa,
                     owner[slot], who);
        owner[slot] = who;
    }
    /* nothing mapped past the RAM */
    uint64_t pa;
    unsigned int attrs, level;
    assert_int_equal(s2_lookup(&s2, guest_ram_ipa(c) + c->mem_size, &pa, &attrs, &level), -1);
    s2_destroy(&s2);
    tables_free();
}

static void test_coloured_pages(void **state)
{
    (void)state;
    const uint64_t base = 0x4c000000, size = 8 << 20;
    struct guest_config low = coloured(base, size, 32, 0, 16);
    struct guest_config high = coloured(base, size, 32, 16, 16);
    struct guest_config odd = coloured(base + (32 << 20), 3 << 20, 32, 5, 3);
    uint64_t span = 64ull << 20;
    uint8_t *owner = calloc(span / PAGE, 1);
    assert_non_null(owner);
    check_guest(&low, owner, 1, base, span);
    check_guest(&high, owner, 2, base, span);
    check_guest(&odd, owner, 3, base, span);
    /* low and high share the span and fill all of its first 16 MiB */
    for (uint64_t s = 0; s < (16ull << 20) / PAGE; s++)
        assert_true(owner[s] == 1 || owner[s] == 2);
    free(owner);
}

static void test_uncoloured_blocks(void **state)
{
    (void)state;
    struct guest_config c;
    memset(&c, 0, sizeof(c));
    c.mem_base = 0x50000000;
    c.mem_size = 0x10000000;
    c.mem_span = c.mem_size;
    struct stage2 s2;
    assert_int_equal(s2_init(&s2, &ops), 0);
    assert_int_equal(guest_ram_map(&s2, &c), 0);
    for (uint64_t off = 0; off < c.mem_size; off += 2 << 20) {
        uint64_t pa;
        unsigned int attrs, level;
        assert_int_equal(s2_lookup(&s2, 0x40000000 + off + 0x1234, &pa, &attrs, &level), 0);
        assert_int_equal(pa, c.mem_base + off + 0x1234);
        assert_int_equal(level, 2);                 /* 2 MiB blocks */
    }
    s2_destroy(&s2);
    tables_free();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_coloured_pages),
        cmocka_unit_test(test_uncoloured_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
