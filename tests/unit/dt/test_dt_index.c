/*
 * Host unit tests for the device tree index (hyp/dt/dt_index.c): every lookup
 * answers exactly what libfdt's own walk answers, on every fixture tree and
 * on damaged copies of them; the index refuses broken structure blocks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libfdt.h>
#include "fixture.h"
#include "hyp/dt/dt_index.h"

static const char *const trees[] = {
    "qemu-virt", "qemu-virt-secure", "qemu-virt-a7-up", "qemu-virt-novirt",
    "vexpress-a15", "virt-spin-table", "virt-psci-0.1", "config-good",
};

/* A node name holding '/' (a damaged tree): libfdt's fdt_get_path then
 * builds wrong paths for the nodes after it, so paths are not compared */
static bool slash_in_a_name(const void *fdt)
{
    int node = -1, depth = 0;
    while ((node = fdt_next_node(fdt, node, &depth)) >= 0)
        if (strchr(fdt_get_name(fdt, node, NULL), '/'))
            return true;
    return false;
}

/* Every node: parent, path (and back), cells, type, children in order */
static void check_nodes(const void *fdt, const char *name)
{
    int node = -1, depth = 0, count = 0;
    bool paths = !slash_in_a_name(fdt);
    while ((node = fdt_next_node(fdt, node, &depth)) >= 0) {
        count++;
        if (dt_parent(fdt, node) != fdt_parent_offset(fdt, node))
            fail_msg("%s: parent of %d: %d, libfdt %d", name, node,
                     dt_parent(fdt, node), fdt_parent_offset(fdt, node));
        char a[256], b[256];
        int ra = dt_get_path(fdt, node, a, sizeof(a));
        int rb = fdt_get_path(fdt, node, b, sizeof(b));
        if (paths) {
            assert_int_equal(ra, rb);
            assert_int_equal(ra, 0);
            assert_string_equal(a, b);
            /* the node itself, unless damage gave two nodes one name */
            assert_int_equal(dt_path_offset(fdt, a), fdt_path_offset(fdt, a));
        }
        assert_int_equal(dt_address_cells(fdt, node), fdt_address_cells(fdt, node));
        uint32_t ph = fdt_get_phandle(fdt, node);
        if (ph)
            assert_int_equal(dt_node_offset_by_phandle(fdt, ph),
                             fdt_node_offset_by_phandle(fdt, ph));
        assert_int_equal(dt_size_cells(fdt, node), fdt_size_cells(fdt, node));
        int len;
        const char *t = fdt_getprop(fdt, node, "device_type", &len);
        bool mem = t && len > 0 && t[len - 1] == '\0' && strcmp(t, "memory") == 0;
        bool cpu = t && len > 0 && t[len - 1] == '\0' && strcmp(t, "cpu") == 0;
        assert_int_equal(dt_is_type(fdt, node, "memory"), mem);
        assert_int_equal(dt_is_type(fdt, node, "cpu"), cpu);
        int c1 = dt_next_child(fdt, node, -1), c2 = fdt_first_subnode(fdt, node);
        while (c1 >= 0 || c2 >= 0) {
            if (c1 != c2)
                fail_msg("%s: children of %d: %d, libfdt %d", name, node, c1, c2);
            c1 = dt_next_child(fdt, node, c1);
            c2 = fdt_next_subnode(fdt, c2);
        }
    }
    assert_true(count > 0);
}

/* Every property of every node, a name no node has, and the names of the
 * node's properties asked again: dt_getprop answers as fdt_getprop does */
static void check_props(const void *fdt, const char *name)
{
    int node = -1, depth = 0;
    while ((node = fdt_next_node(fdt, node, &depth)) >= 0) {
        int prop, l1, l2;
        fdt_for_each_property_offset(prop, fdt, node) {
            const char *pn;
            if (!fdt_getprop_by_offset(fdt, prop, &pn, &l1) || !pn)
                continue;
            const void *a = dt_getprop(fdt, node, pn, &l1);
            const void *b = fdt_getprop(fdt, node, pn, &l2);
            if (a != b || l1 != l2)
                fail_msg("%s: node %d property '%s': %p/%d, libfdt %p/%d",
                         name, node, pn, a, l1, b, l2);
        }
        const char *probes[] = { "no-such-property", "reg", "compatible", "status", "" };
        for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
            const void *a = dt_getprop(fdt, node, probes[i], &l1);
            const void *b = fdt_getprop(fdt, node, probes[i], &l2);
            if (a != b || (b ? l1 != l2 : l1 != -FDT_ERR_NOTFOUND))
                fail_msg("%s: node %d property '%s': %p/%d, libfdt %p/%d",
                         name, node, probes[i], a, l1, b, l2);
        }
        assert_null(dt_getprop(fdt, node, "no-such-property", NULL));
    }
}

/* First and every later match of each compatible string in the tree */
static void check_compatibles(const void *fdt, const char *name)
{
    int node = -1, depth = 0;
    while ((node = fdt_next_node(fdt, node, &depth)) >= 0) {
        int len;
        const char *c = fdt_getprop(fdt, node, "compatible", &len);
        for (int pos = 0; c && pos < len; pos += (int)strlen(c + pos) + 1) {
            const char *s = c + pos;
            assert_true(dt_is_compatible(fdt, node, s));
            assert_int_equal(fdt_node_check_compatible(fdt, node, s), 0);
            for (int start = -1;;) {
                int x = dt_find_compatible(fdt, start, s);
                int y = fdt_node_offset_by_compatible(fdt, start, s);
                if (x != y)
                    fail_msg("%s: '%s' after %d: %d, libfdt %d", name, s, start, x, y);
                if (x < 0)
                    break;
                start = x;
            }
        }
    }
    assert_int_equal(dt_find_compatible(fdt, -1, "no,such-device"), -FDT_ERR_NOTFOUND);
}

static void test_lookups_match_libfdt(void **state)
{
    for (size_t i = 0; i < sizeof(trees) / sizeof(trees[0]); i++) {
        void *fdt = fixture_load(trees[i], 0, NULL);
        assert_int_equal(dt_index_build(fdt), 0);
        check_nodes(fdt, trees[i]);
        check_props(fdt, trees[i]);
        /* intact trees: every path leads back to its node */
        int node = -1, depth = 0;
        while ((node = fdt_next_node(fdt, node, &depth)) >= 0) {
            char path[256];
            assert_int_equal(dt_get_path(fdt, node, path, sizeof(path)), 0);
            assert_int_equal(dt_path_offset(fdt, path), node);
        }
        check_compatibles(fdt, trees[i]);
        free(fdt);
    }
}

/* Not the tree indexed: every lookup is libfdt's own */
static void test_other_tree_falls_back(void **state)
{
    void *a = fixture_load("qemu-virt", 0, NULL);
    void *b = fixture_load("vexpress-a15", 0, NULL);
    assert_int_equal(dt_index_build(a), 0);
    check_nodes(b, "vexpress-a15 (not indexed)");
    check_props(b, "vexpress-a15 (not indexed)");
    check_compatibles(b, "vexpress-a15 (not indexed)");
    free(a);
    free(b);
}

static void test_paths(void **state)
{
    void *fdt = fixture_load("qemu-virt", 0, NULL);
    assert_int_equal(dt_index_build(fdt), 0);
    const char *paths[] = { "/", "/cpus", "/cpus/cpu@0", "/pl011@9000000", "/pl011",
                            "//cpus//", "/nonexistent", "/cpus/cpu@7", "/pl011@9", "/psci" };
    for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
        if (dt_path_offset(fdt, paths[i]) != fdt_path_offset(fdt, paths[i]))
            fail_msg("path %s: %d, libfdt %d", paths[i], dt_path_offset(fdt, paths[i]),
                     fdt_path_offset(fdt, paths[i]));
    /* a prefix of a longer string: only namelen counts */
    assert_int_equal(dt_path_offset_namelen(fdt, "/cpus:115200", 5),
                     fdt_path_offset(fdt, "/cpus"));
    free(fdt);
}

/* A tree with aliases good and bad: each answered as DT spec 3.3 says */
static void *alias_tree(void)
{
    size_t size = 4096;
    void *fdt = malloc(size);
    assert_int_equal(fdt_create(fdt, (int)size), 0);
    assert_int_equal(fdt_finish_reservemap(fdt), 0);
    assert_int_equal(fdt_begin_node(fdt, ""), 0);
    assert_int_equal(fdt_begin_node(fdt, "aliases"), 0);
    assert_int_equal(fdt_property_string(fdt, "self", "self"), 0);
    assert_int_equal(fdt_property_string(fdt, "ping", "pong"), 0);
    assert_int_equal(fdt_property_string(fdt, "pong", "ping"), 0);
    assert_int_equal(fdt_property_string(fdt, "rel", "soc"), 0);
    assert_int_equal(fdt_property_string(fdt, "soc", "/soc@1"), 0);
    assert_int_equal(fdt_property(fdt, "open", "/soc@1", 6), 0);    /* no NUL */
    assert_int_equal(fdt_property_string(fdt, "gone", "/nowhere"), 0);
    assert_int_equal(fdt_end_node(fdt), 0);
    assert_int_equal(fdt_begin_node(fdt, "soc@1"), 0);
    assert_int_equal(fdt_begin_node(fdt, "uart@0"), 0);
    assert_int_equal(fdt_end_node(fdt), 0);
    assert_int_equal(fdt_end_node(fdt), 0);
    assert_int_equal(fdt_end_node(fdt), 0);
    assert_int_equal(fdt_finish(fdt), 0);
    return fdt;
}

static void check_aliases(const void *fdt)
{
    int soc = fdt_path_offset(fdt, "/soc@1"), uart = fdt_path_offset(fdt, "/soc@1/uart@0");
    assert_true(soc > 0 && uart > soc);
    assert_int_equal(dt_path_offset(fdt, "soc"), soc);
    assert_int_equal(dt_path_offset(fdt, "soc/uart@0"), uart);
    assert_int_equal(dt_path_offset(fdt, "soc//uart/"), uart);
    assert_int_equal(dt_path_offset_namelen(fdt, "soc:115200n8", 3), soc);
    assert_int_equal(dt_path_offset(fdt, "soc/none"), -FDT_ERR_NOTFOUND);
    assert_int_equal(dt_path_offset(fdt, "gone"), -FDT_ERR_NOTFOUND);
    /* libfdt 1.6 recursed on these until the stack ran out (self, ping) */
    const char *bad[] = { "self", "ping", "rel", "rel/uart@0", "open", "nosuch", "" };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (dt_path_offset(fdt, bad[i]) != -FDT_ERR_BADPATH)
            fail_msg("alias %s: %d", bad[i], dt_path_offset(fdt, bad[i]));
}

/* Aliases, through the index and through libfdt (a tree not indexed) */
static void test_aliases(void **state)
{
    void *fdt = alias_tree();
    void *other = fixture_load("qemu-virt", 0, NULL);
    assert_int_equal(dt_index_build(other), 0);
    check_aliases(fdt);
    assert_int_equal(dt_index_build(fdt), 0);
    check_aliases(fdt);
    /* a tree with no /aliases at all */
    assert_int_equal(dt_path_offset(other, "serial0"), -FDT_ERR_BADPATH);
    free(fdt);
    free(other);
}

/*
 * Damaged trees: flip each byte of the structure block in turn.  The index
 * never reads out of bounds (ASan), and whenever it accepts a tree its
 * answers are libfdt's.
 */
static void test_flipped_bytes(void **state)
{
    size_t size;
    void *orig = fixture_load("virt-spin-table", 0, &size);
    uint32_t off = fdt_off_dt_struct(orig), end = off + fdt_size_dt_struct(orig);
    int accepted = 0, refused = 0;
    for (uint32_t i = off; i < end; i += 3) {
        uint8_t *buf = malloc(size);
        memcpy(buf, orig, size);
        buf[i] ^= (uint8_t)(0x55 + i);
        if (dt_index_build(buf) == 0) {
            accepted++;
            check_nodes(buf, "flipped");
            check_props(buf, "flipped");
        } else {
            refused++;
        }
        free(buf);
    }
    assert_true(accepted > 0 && refused > 0);
    free(orig);
}

/*
 * A structure block one byte off 4-byte alignment (its header says so; the
 * blob itself is aligned, or libfdt refuses it): found by the config
 * fuzzer, where the index read property headers as a struct - undefined
 * behaviour UBSan stops on.  Built and asked like an aligned one.
 */
static void test_unaligned_structure_block(void **state)
{
    size_t size;
    uint8_t *orig = fixture_load("qemu-virt", 0, &size);
    uint32_t st = fdt_off_dt_struct(orig), strs = fdt_off_dt_strings(orig);
    assert_true(st < strs);     /* dtc's layout: rsvmap, struct, strings */
    uint8_t *buf = calloc(1, size + 1);
    memcpy(buf, orig, st);
    memcpy(buf + st + 1, orig + st, size - st);     /* one byte inserted */
    fdt_set_off_dt_struct(buf, st + 1);
    fdt_set_off_dt_strings(buf, strs + 1);
    fdt_set_totalsize(buf, (uint32_t)size + 1);
    assert_int_equal(dt_index_build(buf), 0);
    check_nodes(buf, "qemu-virt, structure block unaligned");
    check_props(buf, "qemu-virt, structure block unaligned");
    check_compatibles(buf, "qemu-virt, structure block unaligned");
    free(buf);
    free(orig);
}

/* Structure errors the index must refuse (it replaces fdt_check_full) */
static void test_broken_structure_refused(void **state)
{
    size_t size;
    uint8_t *buf = fixture_load("qemu-virt", 0, &size);
    uint32_t st = fdt_off_dt_struct(buf);
    /* the root's FDT_BEGIN_NODE turned into FDT_END_NODE */
    uint8_t *b1 = malloc(size);
    memcpy(b1, buf, size);
    fdt32_st(b1 + st, FDT_END_NODE);
    assert_true(dt_index_build(b1) < 0);
    /* the structure block cut before the root closes */
    memcpy(b1, buf, size);
    fdt32_st(b1 + 36, 16);     /* size_dt_struct: just the root's first tags */
    assert_true(dt_index_build(b1) < 0);
    /* a property name outside the strings block */
    memcpy(b1, buf, size);
    int node = fdt_path_offset(b1, "/cpus");
    int prop = fdt_first_property_offset(b1, node);
    fdt32_st(b1 + st + prop + 8, 0x7fffff00);
    assert_true(dt_index_build(b1) < 0);
    free(b1);
    free(buf);
}

/* The first error of libfdt's own walk over every tag, or 0 */
static int libfdt_walk_error(const void *fdt)
{
    int off = 0, next;
    for (;;) {
        uint32_t tag = fdt_next_tag(fdt, off, &next);
        if (next < 0)
            return next;
        if (tag == FDT_END)
            return 0;
        off = next;
    }
}

/*
 * The structure block cut at every length short of its own, in a node's
 * name, a property or between tags: the index refuses each one with the
 * error libfdt's walk meets first (a name must end within the block, as
 * fdt_next_tag checks it), and takes the whole block.
 */
static void test_every_cut_refused(void **state)
{
    size_t size;
    uint8_t *buf = fixture_load("virt-spin-table", 0, &size);
    uint32_t full = fdt_size_dt_struct(buf);
    for (uint32_t cut = 0; cut < full; cut++) {
        fdt_set_size_dt_struct(buf, cut);
        int rc = dt_index_build(buf), want = libfdt_walk_error(buf);
        if (rc >= 0)
            fail_msg("a structure block cut to %u of %u bytes was taken", cut, full);
        /* the last 8 bytes are the root's FDT_END_NODE and FDT_END, where
         * the index's own nesting check speaks first */
        if (cut < full - 8 && rc != want)
            fail_msg("cut to %u: error %d, libfdt's walk %d", cut, rc, want);
    }
    fdt_set_size_dt_struct(buf, full);
    assert_int_equal(dt_index_build(buf), 0);
    free(buf);
}

/*
 * Trees dtc would not write: a property after a node's first child (libfdt
 * does not see it, so neither may the index), and more properties than the
 * index keeps (the nodes past the limit are answered by libfdt's walk).
 */
static void test_odd_property_layouts(void **state)
{
    size_t size = 1 << 20;
    void *fdt = malloc(size);
    char name[32];
    assert_int_equal(fdt_create(fdt, (int)size), 0);
    assert_int_equal(fdt_finish_reservemap(fdt), 0);
    assert_int_equal(fdt_begin_node(fdt, ""), 0);
    assert_int_equal(fdt_property_string(fdt, "compatible", "test,root"), 0);
    assert_int_equal(fdt_begin_node(fdt, "parent"), 0);
    assert_int_equal(fdt_property_u32(fdt, "before", 1), 0);
    assert_int_equal(fdt_begin_node(fdt, "child"), 0);
    assert_int_equal(fdt_property_u32(fdt, "inchild", 2), 0);
    assert_int_equal(fdt_end_node(fdt), 0);
    assert_int_equal(fdt_property_u32(fdt, "after", 3), 0);
    assert_int_equal(fdt_property_string(fdt, "compatible", "test,late"), 0);
    assert_int_equal(fdt_end_node(fdt), 0);
    for (int n = 0; n < 3; n++) {
        snprintf(name, sizeof(name), "many@%d", n);
        assert_int_equal(fdt_begin_node(fdt, name), 0);
        for (int i = 0; i < DT_INDEX_MAX_PROPS / 2; i++) {
            snprintf(name, sizeof(name), "p%d", i % 200);   /* repeats: the first counts */
            assert_int_equal(fdt_property_u32(fdt, name, (uint32_t)(n * 100000 + i)), 0);
        }
        assert_int_equal(fdt_end_node(fdt), 0);
    }
    assert_int_equal(fdt_end_node(fdt), 0);
    assert_int_equal(fdt_finish(fdt), 0);

    assert_int_equal(dt_index_build(fdt), 0);
    int parent = fdt_path_offset(fdt, "/parent");
    assert_non_null(dt_getprop(fdt, parent, "before", NULL));
    assert_null(fdt_getprop(fdt, parent, "after", NULL));
    assert_null(dt_getprop(fdt, parent, "after", NULL));
    assert_false(dt_is_compatible(fdt, parent, "test,late"));
    assert_int_equal(dt_find_compatible(fdt, -1, "test,late"), -FDT_ERR_NOTFOUND);
    check_nodes(fdt, "odd layouts");
    check_props(fdt, "odd layouts");
    int last = fdt_path_offset(fdt, "/many@2");
    int len;
    const fdt32_t *v = dt_getprop(fdt, last, "p7", &len);
    assert_non_null(v);
    assert_int_equal(len, 4);
    assert_int_equal(fdt32_to_cpu(*v), 200007);
    free(fdt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookups_match_libfdt),
        cmocka_unit_test(test_other_tree_falls_back),
        cmocka_unit_test(test_paths),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_flipped_bytes),
        cmocka_unit_test(test_broken_structure_refused),
        cmocka_unit_test(test_unaligned_structure_block),
        cmocka_unit_test(test_odd_property_layouts),
        cmocka_unit_test(test_every_cut_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
