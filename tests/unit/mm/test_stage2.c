/*
 * Host unit tests for the Stage-2 table builder (mm/stage2.c).
 *
 * The page source hands out real, aligned host pages behind fake physical
 * addresses: host pointers are 48-bit while a descriptor holds a 40-bit PA,
 * so a pool indexes its pages by fake PA.  Indices are never reused, so a
 * descriptor left pointing at a freed table is caught on the next walk.
 *
 * The tests walk the tables themselves with their own reading of the
 * long-descriptor format (ARM ARM B3.6.1, B3.6.2) instead of trusting
 * s2_lookup: bits[1:0] (01 block, 11 table / page, x0 fault, 01 at level 3
 * reserved), MemAttr[5:2], HAP[7:6], SH[9:8], AF[10], XN[54], output
 * address [39:12].
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "mm/stage2.h"

#define KiB 0x400ull
#define MiB 0x100000ull
#define GiB 0x40000000ull
#define PAGE (4 * KiB)
#define BLOCK (2 * MiB)
#define IPA_LIMIT (4 * GiB)
#define PA_LIMIT (1ull << 40)

/* ---- the page source ---- */

#define POOL_PAGES 512
#define FAKE_PA_BASE 0xf000000000ull    /* above 4 GiB: upper PA bits must survive */

static struct pool {
    void *va[POOL_PAGES];   /* live pages; NULL once freed */
    unsigned int used;      /* pages handed out so far (indices never reused) */
    unsigned int allocs, frees;
    int budget;             /* allocations left before "out of memory"; < 0: no limit */
} pool;

static uint64_t pool_pa(unsigned int i) { return FAKE_PA_BASE + (uint64_t)i * PAGE; }

static void *pool_alloc(void *ctx, uint64_t *pa)
{
    struct pool *p = ctx;
    if (p->budget == 0)
        return NULL;
    if (p->budget > 0)
        p->budget--;
    if (p->used == POOL_PAGES)
        fail_msg("page pool exhausted");
    void *va = aligned_alloc(PAGE, PAGE);
    assert_non_null(va);
    memset(va, 0, PAGE);
    p->va[p->used] = va;
    *pa = pool_pa(p->used++);
    p->allocs++;
    return va;
}

static unsigned int pool_index(const struct pool *p, uint64_t pa)
{
    if (pa < FAKE_PA_BASE || (pa & (PAGE - 1)) || (pa - FAKE_PA_BASE) / PAGE >= p->used)
        fail_msg("table PA 0x%llx was never handed out", (unsigned long long)pa);
    unsigned int i = (unsigned int)((pa - FAKE_PA_BASE) / PAGE);
    if (!p->va[i])
        fail_msg("table PA 0x%llx is used after it was freed", (unsigned long long)pa);
    return i;
}

static void *pool_va(void *ctx, uint64_t pa)
{
    struct pool *p = ctx;
    return p->va[pool_index(p, pa)];
}

static void pool_free(void *ctx, void *va)
{
    struct pool *p = ctx;
    for (unsigned int i = 0; i < p->used; i++)
        if (p->va[i] == va) {
            free(va);
            p->va[i] = NULL;
            p->frees++;
            return;
        }
    fail_msg("free_table(%p): not a live table page", va);
}

static unsigned int pool_live(void) { return pool.allocs - pool.frees; }

static const struct s2_mm_ops ops = {
    .alloc_table = pool_alloc, .free_table = pool_free, .table_va = pool_va, .ctx = &pool,
};

static struct stage2 s2;

static int setup(void **state)
{
    memset(&pool, 0, sizeof(pool));
    pool.budget = -1;
    memset(&s2, 0, sizeof(s2));
    return 0;
}

/* every test leaves nothing behind once the tables are destroyed */
static int teardown(void **state)
{
    s2_destroy(&s2);
    unsigned int leaked = pool_live();
    for (unsigned int i = 0; i < pool.used; i++)
        free(pool.va[i]);
    if (leaked) {
        print_error("%u table page(s) leaked by s2_destroy\n", leaked);
        return -1;
    }
    return 0;
}

static void init(void)
{
    assert_int_equal(s2_init(&s2, &ops), 0);
}

/* ---- the test's own table walk (B3.6.1, B3.6.2) ---- */

struct leaf {
    unsigned int level;     /* 2: 2 MiB block, 3: 4 KiB page */
    uint64_t out;           /* output address of the block or page */
    unsigned int memattr, hap, sh;
    bool af, xn;
};

#define DESC_OA      0x000000fffffff000ull
#define DESC_KNOWN   (3ull | (0xffull << 2) | (1ull << 10) | DESC_OA | (1ull << 54))

static uint64_t table_entry(uint64_t table_pa, unsigned int idx)
{
    const uint64_t *t = pool_va(&pool, table_pa);
    return t[idx];
}

/* false: the walk faults (no mapping) */
static bool walk(uint64_t ipa, struct leaf *l)
{
    assert_true(ipa < IPA_LIMIT);
    uint64_t table = s2.root_pa;
    for (unsigned int level = 1; level <= 3; level++) {
        unsigned int shift = 39 - 9 * level;            /* 30, 21, 12 */
        /* VTCR.T0SZ = 0, SL0 = 1: a 32-bit IPA, level-1 table of 4 entries */
        unsigned int idx = (unsigned int)(ipa >> shift) & (level == 1 ? 3 : 511);
        uint64_t e = table_entry(table, idx);
        if (!(e & 1))
            return false;                               /* fault */
        if ((e & 3) == 1 && level == 3)
            return false;                               /* reserved: fault */
        if ((e & 3) == 3 && level < 3) {
            /* table: only the next-level address; the stage-1 only
             * NSTable/APTable/XNTable/PXNTable bits have no place here */
            if (e & ~(DESC_OA | 3))
                fail_msg("table descriptor 0x%016llx has stray bits", (unsigned long long)e);
            table = e & DESC_OA;
            continue;
        }
        if (e & ~DESC_KNOWN)
            fail_msg("leaf descriptor 0x%016llx has bits beyond the known fields",
                     (unsigned long long)e);
        uint64_t size = 1ull << shift;
        if (e & DESC_OA & (size - 1))
            fail_msg("block descriptor 0x%016llx: output address not block aligned",
                     (unsigned long long)e);
        if (level == 1)
            fail_msg("IPA 0x%llx: a 1 GiB block, which Partita never maps",
                     (unsigned long long)ipa);
        l->level = level;
        l->out = e & DESC_OA;
        l->memattr = (e >> 2) & 0xf;
        l->hap = (e >> 6) & 3;
        l->sh = (e >> 8) & 3;
        l->af = (e >> 10) & 1;
        l->xn = (e >> 54) & 1;
        return true;
    }
    return false;
}

static void expect_unmapped(uint64_t ipa)
{
    struct leaf l;
    uint64_t pa = 0;
    unsigned int attrs = 0, level = 0;
    if (walk(ipa, &l))
        fail_msg("IPA 0x%llx is mapped (level %u) and should not be",
                 (unsigned long long)ipa, l.level);
    assert_int_equal(s2_lookup(&s2, ipa, &pa, &attrs, &level), -1);
}

/* One IPA: the walk and s2_lookup agree with what was asked for. */
static void expect_mapped(uint64_t ipa, uint64_t pa, unsigned int level, unsigned int attrs)
{
    struct leaf l;
    bool device = attrs & S2_DEVICE;
    if (!walk(ipa, &l))
        fail_msg("IPA 0x%llx is not mapped", (unsigned long long)ipa);
    if (l.level != level)
        fail_msg("IPA 0x%llx mapped at level %u, expected %u", (unsigned long long)ipa,
                 l.level, level);
    uint64_t size = level == 2 ? BLOCK : PAGE;
    if (l.out + (ipa & (size - 1)) != pa)
        fail_msg("IPA 0x%llx -> PA 0x%llx, expected 0x%llx", (unsigned long long)ipa,
                 (unsigned long long)(l.out + (ipa & (size - 1))), (unsigned long long)pa);
    /* Device / Normal outer+inner WB / Normal outer+inner non-cacheable */
    assert_int_equal(l.memattr, device ? 0x1 : (attrs & S2_NOCACHE) ? 0x5 : 0xf);
    if (!device)
        assert_int_equal(l.sh, 3);                      /* inner shareable, as the walks */
    assert_int_equal(l.hap, ((attrs & S2_READ) ? 1 : 0) | ((attrs & S2_WRITE) ? 2 : 0));
    assert_true(l.af);                                  /* no access flag faults */
    assert_int_equal(l.xn, device || !(attrs & S2_EXEC));

    uint64_t got = 0;
    unsigned int got_attrs = 0, got_level = 0;
    assert_int_equal(s2_lookup(&s2, ipa, &got, &got_attrs, &got_level), 0);
    assert_int_equal(got, pa);
    assert_int_equal(got_level, level);
    /* device memory is never executable */
    assert_int_equal(got_attrs, device ? (attrs & ~S2_EXEC) : attrs);
}

/*
 * A whole fresh mapping, page by page: a 2 MiB block exactly where the
 * 2 MiB region lies inside the range and IPA and PA share their offset
 * in it (so both are block aligned there), 4 KiB pages elsewhere; and
 * nothing on either side.
 */
static void expect_range(uint64_t ipa, uint64_t pa, uint64_t size, unsigned int attrs)
{
    bool congruent = ((ipa ^ pa) & (BLOCK - 1)) == 0;
    for (uint64_t off = 0; off < size; off += PAGE) {
        uint64_t x = ipa + off, b = x & ~(BLOCK - 1);
        bool block = congruent && b >= ipa && b + BLOCK <= ipa + size;
        /* an offset inside the page shows the low bits come from the IPA */
        uint64_t inpage = (off / PAGE * 8) & (PAGE - 1);
        expect_mapped(x + inpage, pa + off + inpage, block ? 2 : 3, attrs);
    }
    if (ipa >= PAGE)
        expect_unmapped(ipa - PAGE);
    if (ipa + size < IPA_LIMIT)
        expect_unmapped(ipa + size);
}

static unsigned int level_of(uint64_t ipa)
{
    struct leaf l;
    return walk(ipa, &l) ? l.level : 0;
}

/* ---- tests ---- */

static void test_init_empty(void **state)
{
    init();
    assert_non_null(s2.root);
    assert_int_equal(s2.tables, 1);
    assert_int_equal(pool.allocs, 1);
    assert_ptr_equal(pool_va(&pool, s2.root_pa), s2.root);
    for (unsigned int i = 0; i < 4; i++)
        assert_int_equal(table_entry(s2.root_pa, i), 0);
    expect_unmapped(0);
    expect_unmapped(0x40000000);
    expect_unmapped(0xfffff000);
    s2_destroy(&s2);
    assert_null(s2.root);
    assert_int_equal(s2.tables, 0);
    assert_int_equal(pool.frees, 1);
}

static void test_destroy_twice_and_uninitialised(void **state)
{
    s2_destroy(&s2);                /* a zeroed stage2: nothing to free */
    assert_int_equal(pool.frees, 0);
    init();
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, PAGE, S2_RW), 0);
    s2_destroy(&s2);
    assert_int_equal(pool.frees, 3);
    s2_destroy(&s2);
    assert_int_equal(pool.frees, 3);
    /* and the stage2 can be built again */
    init();
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, PAGE, S2_RW), 0);
    expect_mapped(0x40000000, 0x80000000, 3, S2_RW);
}

static void test_vttbr(void **state)
{
    static const uint8_t vmids[] = { 0, 1, 0x5a, 0xa5, 0x80, 0xff };
    init();
    for (unsigned int i = 0; i < sizeof(vmids); i++) {
        uint64_t v = s2_vttbr(&s2, vmids[i]);
        assert_int_equal((v >> 48) & 0xff, vmids[i]);       /* VTTBR.VMID [55:48] */
        assert_int_equal(v & 0x000000ffffffffffull, s2.root_pa);   /* BADDR */
        assert_int_equal(v & 0xff00ff0000000000ull, 0);     /* nothing else */
    }
}

static void test_map_blocks(void **state)
{
    init();
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, 64 * MiB, S2_RWX), 0);
    assert_int_equal(s2.tables, 2);                     /* root and one level-2 table */
    assert_int_equal(pool_live(), 2);
    expect_range(0x40000000, 0x80000000, 64 * MiB, S2_RWX);
}

static void test_map_unaligned_ends(void **state)
{
    /* 0x40001000..0x40401000: pages up to 0x40200000, one block, one page */
    init();
    assert_int_equal(s2_map(&s2, 0x40001000, 0x800001000ull, 4 * MiB, S2_RWX), 0);
    assert_int_equal(level_of(0x401ff000), 3);
    assert_int_equal(level_of(0x40200000), 2);
    assert_int_equal(level_of(0x40400000), 3);
    assert_int_equal(level_of(0x40401000), 0);
    assert_int_equal(level_of(0x40000000), 0);
    assert_int_equal(s2.tables, 4);                     /* root, L2, two L3 */
    assert_int_equal(pool_live(), 4);
    expect_range(0x40001000, 0x800001000ull, 4 * MiB, S2_RWX);
}

static void test_map_pa_not_block_aligned(void **state)
{
    /* the IPA is block aligned, the PA is not: pages only */
    init();
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80001000, 4 * MiB, S2_RW), 0);
    assert_int_equal(s2.tables, 4);
    expect_range(0x40000000, 0x80001000, 4 * MiB, S2_RW);
}

static void test_map_ipa_not_block_aligned(void **state)
{
    init();
    assert_int_equal(s2_map(&s2, 0x40001000, 0x80000000, 4 * MiB, S2_RW), 0);
    for (uint64_t off = 0; off < 4 * MiB; off += PAGE)
        assert_int_equal(level_of(0x40001000 + off), 3);
    expect_range(0x40001000, 0x80000000, 4 * MiB, S2_RW);
}

static void test_map_size_below_block(void **state)
{
    init();
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, BLOCK - PAGE, S2_RW), 0);
    assert_int_equal(level_of(0x40000000), 3);
    assert_int_equal(level_of(0x401ff000 - PAGE), 3);
    expect_range(0x40000000, 0x80000000, BLOCK - PAGE, S2_RW);
}

static void test_map_straddle_1g(void **state)
{
    init();
    /* pages on both sides of 1 GiB: two level-1 entries, two L2, two L3 */
    assert_int_equal(s2_map(&s2, 0x3ff00000, 0x13ff00000ull, 2 * MiB, S2_RW), 0);
    assert_int_equal(s2.tables, 5);
    assert_int_equal(table_entry(s2.root_pa, 0) & 3, 3);
    assert_int_equal(table_entry(s2.root_pa, 1) & 3, 3);
    expect_range(0x3ff00000, 0x13ff00000ull, 2 * MiB, S2_RW);

    /* blocks on both sides of 2 GiB: last entry of one L2, first of the next */
    assert_int_equal(s2_map(&s2, 0x7fe00000, 0x7fe00000, 4 * MiB, S2_RWX), 0);
    assert_int_equal(s2.tables, 6);
    assert_int_equal(level_of(0x7fe00000), 2);
    assert_int_equal(level_of(0x80000000), 2);
    expect_range(0x7fe00000, 0x7fe00000, 4 * MiB, S2_RWX);

    /* the very last page below 4 GiB */
    assert_int_equal(s2_map(&s2, 0xfffff000, 0x12345000, PAGE, S2_READ), 0);
    expect_mapped(0xfffffffc, 0x12345ffc, 3, S2_READ);
    expect_unmapped(0xffffe000);
    assert_int_equal(s2.tables, pool_live());
}

static void test_attributes(void **state)
{
    static const unsigned int attrs[] = {
        S2_READ, S2_WRITE, S2_RW, S2_RWX, S2_READ | S2_EXEC, S2_EXEC, 0,
        S2_RW | S2_DEVICE, S2_READ | S2_DEVICE, S2_RWX | S2_DEVICE,
        S2_RW | S2_NOCACHE, S2_READ | S2_NOCACHE,      /* channels: shared, uncached */
    };
    init();
    for (unsigned int i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        /* each as a block and as a page, in an 8 MiB slot of its own */
        uint64_t ipa = 0x10000000 + i * 8 * MiB, pa = 0x900000000ull + i * 8 * MiB;
        assert_int_equal(s2_map(&s2, ipa, pa, BLOCK, attrs[i]), 0);
        assert_int_equal(s2_map(&s2, ipa + 4 * MiB, pa + 4 * MiB, PAGE, attrs[i]), 0);
        expect_mapped(ipa + 0x1234, pa + 0x1234, 2, attrs[i]);
        expect_mapped(ipa + 4 * MiB + 0x234, pa + 4 * MiB + 0x234, 3, attrs[i]);
    }
}

static void test_lookup_holes(void **state)
{
    uint64_t pa = 0;
    unsigned int attrs = 0, level = 0;
    init();
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, BLOCK, S2_RWX), 0);
    assert_int_equal(s2_map(&s2, 0x40400000, 0x90000000, PAGE, S2_RW | S2_DEVICE), 0);

    assert_int_equal(s2_lookup(&s2, 0x401fffff, &pa, &attrs, &level), 0);
    assert_int_equal(pa, 0x801fffff);
    assert_int_equal(level, 2);
    assert_int_equal(attrs, S2_RWX);
    assert_int_equal(s2_lookup(&s2, 0x40400abc, &pa, &attrs, &level), 0);
    assert_int_equal(pa, 0x90000abc);
    assert_int_equal(level, 3);
    assert_int_equal(attrs, S2_RW | S2_DEVICE);

    expect_unmapped(0x00000000);        /* level-1 entry empty */
    expect_unmapped(0xc0000000);
    expect_unmapped(0x40200000);        /* level-2 entry empty */
    expect_unmapped(0x7fe00000);
    expect_unmapped(0x40401000);        /* level-3 entry empty */
    expect_unmapped(0x403ff000);
    expect_unmapped(0x405ff000);
    /* beyond the 32-bit IPA space */
    assert_int_equal(s2_lookup(&s2, 0x140000000ull, &pa, &attrs, &level), -1);
    assert_int_equal(s2_lookup(&s2, ~0ull, &pa, &attrs, &level), -1);
}

static void test_lookup_reserved_descriptor(void **state)
{
    /* bits[1:0] = 01 is a block at levels 1-2 but reserved at level 3,
     * where it faults (B3.6.1): plant one by hand */
    uint64_t pa = 0;
    unsigned int attrs = 0, level = 0;
    init();
    assert_int_equal(s2_map(&s2, 0x40001000, 0x80001000, 2 * PAGE, S2_RW), 0);
    uint64_t l2 = table_entry(s2.root_pa, 1) & DESC_OA;
    uint64_t *l3 = pool_va(&pool, table_entry(l2, 0) & DESC_OA);
    assert_int_equal(l3[1] & 3, 3);
    l3[1] &= ~2ull;
    expect_unmapped(0x40001000);
    assert_int_equal(s2_lookup(&s2, 0x40001000, &pa, &attrs, &level), -1);
    expect_mapped(0x40002000, 0x80002000, 3, S2_RW);
}

static void test_reject_unaligned(void **state)
{
    init();
    assert_int_equal(s2_map(&s2, 0x40000800, 0x80000000, PAGE, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000004, PAGE, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, PAGE + 0x800, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, 1, S2_RW), -1);
    /* nothing was touched */
    assert_int_equal(pool.allocs, 1);
    for (unsigned int i = 0; i < 4; i++)
        assert_int_equal(table_entry(s2.root_pa, i), 0);
    expect_unmapped(0x40000000);
}

static void test_reject_past_4g(void **state)
{
    init();
    assert_int_equal(s2_map(&s2, 0xfffff000, 0x80000000, 2 * PAGE, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x100000000ull, 0x80000000, PAGE, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0xc0000000, 0x80000000, 2 * GiB, S2_RW), -1);
    /* a size that wraps the 64-bit sum around */
    assert_int_equal(s2_map(&s2, 0xfffffffffffff000ull, 0x80000000, 2 * PAGE, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, 0xfffffffffffff000ull, S2_RW), -1);
    assert_int_equal(pool.allocs, 1);
    /* ending exactly at 4 GiB is fine */
    assert_int_equal(s2_map(&s2, 0xffe00000, 0x80000000, BLOCK, S2_RW), 0);
    expect_range(0xffe00000, 0x80000000, BLOCK, S2_RW);
}

static void test_reject_pa_past_40_bits(void **state)
{
    /* the output address field is [39:12] (B3.6.1): a larger PA would
     * spill into the RES0 bits [51:40] or, at bit 54, into XN */
    init();
    assert_int_equal(s2_map(&s2, 0x40000000, PA_LIMIT, PAGE, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x40000000, PA_LIMIT - PAGE, 2 * PAGE, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x40000000, (1ull << 54) | 0x80000000, BLOCK, S2_RWX), -1);
    assert_int_equal(s2_map(&s2, 0x40000000, 0xfffffffffffff000ull, 2 * PAGE, S2_RW), -1);
    expect_unmapped(0x40000000);
    expect_unmapped(0x40001000);
    /* the top of the 40-bit space is fine */
    assert_int_equal(s2_map(&s2, 0x40000000, PA_LIMIT - BLOCK, BLOCK, S2_RW), 0);
    expect_range(0x40000000, PA_LIMIT - BLOCK, BLOCK, S2_RW);
}

static void test_reject_overlap(void **state)
{
    init();
    assert_int_equal(s2_map(&s2, 0x40001000, 0x80001000, PAGE, S2_RW), 0);
    /* the same page again, even with the same output */
    assert_int_equal(s2_map(&s2, 0x40001000, 0x80001000, PAGE, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x40001000, 0x90000000, PAGE, S2_RWX), -1);
    /* a range ending on it */
    assert_int_equal(s2_map(&s2, 0x40000000, 0x90000000, 2 * PAGE, S2_RW), -1);
    /* a block-aligned range over the level-3 table that holds it */
    assert_int_equal(s2_map(&s2, 0x40000000, 0xa0000000, BLOCK, S2_RWX), -1);
    expect_mapped(0x40001000, 0x80001000, 3, S2_RW);

    /* a block, then a page inside it, then the block again */
    assert_int_equal(s2_map(&s2, 0x40200000, 0x80200000, BLOCK, S2_READ), 0);
    unsigned int tables = s2.tables;
    assert_int_equal(s2_map(&s2, 0x40201000, 0x90000000, PAGE, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x40200000, 0x90000000, BLOCK, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x403ff000, 0x90000000, 2 * PAGE, S2_RW), -1);
    assert_int_equal(s2.tables, tables);                /* the block was not split */
    expect_range(0x40200000, 0x80200000, BLOCK, S2_READ);
}

static void test_destroy_frees_every_table(void **state)
{
    init();
    /* a realistic guest: RAM in blocks, GICC and pass-through pages,
     * something over the 1 GiB boundary and the last page */
    assert_int_equal(s2_map(&s2, 0x40000000, 0x60000000, 256 * MiB, S2_RWX), 0);
    assert_int_equal(s2_map(&s2, 0x08010000, 0x2c002000, 8 * KiB, S2_RW | S2_DEVICE), 0);
    assert_int_equal(s2_map(&s2, 0x09000000, 0x1c090000, PAGE, S2_RW | S2_DEVICE), 0);
    assert_int_equal(s2_map(&s2, 0x0a000000, 0x0a000000, 0x4000, S2_RW | S2_DEVICE), 0);
    assert_int_equal(s2_map(&s2, 0x3fffc000, 0x3fffc000, 2 * PAGE, S2_RW), 0);
    assert_int_equal(s2_map(&s2, 0xbfe01000, 0x100001000ull, 5 * MiB, S2_RW), 0);
    assert_int_equal(s2_map(&s2, 0xfffff000, 0x7ffff000, PAGE, S2_READ), 0);
    /* root, a level-2 table per GiB, level-3 tables for the 2 MiB regions
     * 0x08000000, 0x09000000, 0x0a000000, 0x3fe00000, 0xbfe00000,
     * 0xc0200000 (0xc0000000 is a block) and 0xffe00000 */
    assert_int_equal(s2.tables, pool_live());
    assert_int_equal(s2.tables, 1 + 4 + 7);
    expect_range(0x40000000, 0x60000000, 256 * MiB, S2_RWX);
    expect_range(0xbfe01000, 0x100001000ull, 5 * MiB, S2_RW);
    s2_destroy(&s2);
    assert_int_equal(pool_live(), 0);
    assert_int_equal(pool.frees, pool.allocs);
    assert_null(s2.root);
    assert_int_equal(s2.tables, 0);
}

static void test_out_of_memory(void **state)
{
    uint64_t pa = 0;
    unsigned int attrs = 0, level = 0;

    /* no root */
    pool.budget = 0;
    assert_int_equal(s2_init(&s2, &ops), -1);
    assert_null(s2.root);
    assert_int_equal(s2.tables, 0);
    s2_destroy(&s2);

    /* the root only: no level-2 table */
    pool.budget = 1;
    init();
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, BLOCK, S2_RW), -1);
    assert_int_equal(s2_map(&s2, 0x40001000, 0x80001000, PAGE, S2_RW), -1);
    for (unsigned int i = 0; i < 4; i++)
        assert_int_equal(table_entry(s2.root_pa, i), 0);
    assert_int_equal(s2_lookup(&s2, 0x40000000, &pa, &attrs, &level), -1);
    assert_int_equal(s2.tables, 1);
    s2_destroy(&s2);
    assert_int_equal(pool_live(), 0);

    /* root and level 2, but no level-3 table: no entry points nowhere */
    pool.budget = 2;
    init();
    assert_int_equal(s2_map(&s2, 0x40001000, 0x80001000, PAGE, S2_RW), -1);
    expect_unmapped(0x40001000);
    expect_unmapped(0x40000000);
    assert_int_equal(s2.tables, pool_live());
    /* a block needs no more memory */
    assert_int_equal(s2_map(&s2, 0x40200000, 0x80200000, BLOCK, S2_RW), 0);
    expect_range(0x40200000, 0x80200000, BLOCK, S2_RW);
    /* a mapping that runs out half way: what it mapped is consistent and
     * torn down with the rest */
    assert_int_equal(s2_map(&s2, 0x40400000, 0x80400000, 2 * BLOCK + PAGE, S2_RW), -1);
    assert_int_equal(s2.tables, pool_live());
    s2_destroy(&s2);
    assert_int_equal(pool_live(), 0);
}

static void test_map_nothing(void **state)
{
    init();
    assert_int_equal(s2_map(&s2, 0x40000000, 0x80000000, 0, S2_RW), 0);
    assert_int_equal(pool.allocs, 1);
    expect_unmapped(0x40000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_init_empty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_twice_and_uninitialised, setup, teardown),
        cmocka_unit_test_setup_teardown(test_vttbr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map_unaligned_ends, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map_pa_not_block_aligned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map_ipa_not_block_aligned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map_size_below_block, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map_straddle_1g, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attributes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookup_holes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookup_reserved_descriptor, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reject_unaligned, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reject_past_4g, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reject_pa_past_40_bits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reject_overlap, setup, teardown),
        cmocka_unit_test_setup_teardown(test_destroy_frees_every_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_of_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_map_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
