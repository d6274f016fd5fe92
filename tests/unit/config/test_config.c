/*
 * Host unit tests for the configuration parser and validator (hyp/config/config.c).
 *
 * The host is QEMU virt as its own device tree describes it
 * (fixtures/qemu-virt.dts through platform_probe: 4 CPUs, 1 GiB at
 * 0x40000000, UART IRQ 33, maintenance IRQ 25), with the hypervisor at
 * 0x40000000-0x40800000.  fixtures/config-good.dts is right in every
 * respect; most error tests break one property of a copy of it and expect
 * exactly the report lines they name: "guest 'NAME': property 'PROP': ...".
 * The runner starts us in build/unit, where the fixtures are compiled.
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
#include <partita/manage_abi.h>
#include "fixture.h"
#include "hyp/config/guest_config.h"
#include "hyp/platform/platform.h"

#define HYP_START 0x40000000u
#define HYP_END   0x40800000u

static struct platform virt;            /* QEMU virt, probed once */
static void *virt_dtb;
static struct system_config sys;

/* ---- the report ---- */

static struct line {
    bool error;
    char text[320];
} lines[64];
static int nlines;

static void collect(void *ctx, bool is_error, const char *msg)
{
    assert_ptr_equal(ctx, lines);
    if (nlines == (int)(sizeof(lines) / sizeof(lines[0])))
        fail_msg("more than %d report lines", nlines);
    lines[nlines].error = is_error;
    snprintf(lines[nlines].text, sizeof(lines[nlines].text), "%s", msg);
    if (strlen(msg) >= sizeof(lines[nlines].text))
        fail_msg("report line longer than %zu: %s", sizeof(lines[0].text), msg);
    nlines++;
}

static void dump_lines(void)
{
    for (int i = 0; i < nlines; i++)
        print_message("  %s %s\n", lines[i].error ? "error:" : "warning:", lines[i].text);
}

struct want {
    const char *guest, *prop, *text;
};

/* want.guest "channel:NAME" stands for a line about channel NAME */
static bool line_matches(const struct line *l, const struct want *w)
{
    char prefix[128];
    const char *kind = "guest", *name = w->guest;
    if (strncmp(name, "channel:", 8) == 0) {
        kind = "channel";
        name += 8;
    } else if (strncmp(name, "network:", 8) == 0) {
        kind = "network";
        name += 8;
    } else if (strncmp(name, "disk:", 5) == 0) {
        kind = "disk";
        name += 5;
    } else if (strncmp(name, "schedule:", 9) == 0) {
        kind = "schedule";
        name += 9;
    } else if (strcmp(name, "/partita") == 0) {
        kind = "node";
    }
    if (w->prop)
        snprintf(prefix, sizeof(prefix), "%s '%s': property '%s': ", kind, name, w->prop);
    else
        snprintf(prefix, sizeof(prefix), "%s '%s': ", kind, name);
    return strncmp(l->text, prefix, strlen(prefix)) == 0 &&
           strstr(l->text + strlen(prefix), w->text) != NULL;
}

/* The lines of one kind are exactly the wanted ones (in any order). */
static void expect_lines(bool errors, const struct want *w)
{
    bool used[64] = { false };
    int n = 0, have = 0;
    for (int i = 0; i < nlines; i++) {
        if (strchr(lines[i].text, '\n'))
            fail_msg("a report line with a newline: \"%s\"", lines[i].text);
        if (strncmp(lines[i].text, "guest '", 7) != 0 &&
            strncmp(lines[i].text, "channel '", 9) != 0 &&
            strncmp(lines[i].text, "network '", 9) != 0 &&
            strncmp(lines[i].text, "disk '", 6) != 0 &&
            strncmp(lines[i].text, "schedule '", 10) != 0 &&
            strncmp(lines[i].text, "node '/partita'", 15) != 0)
            fail_msg("a report line that names no guest or channel: \"%s\"", lines[i].text);
        have += lines[i].error == errors;
    }
    for (; w[n].guest; n++) {
        int i;
        for (i = 0; i < nlines; i++)
            if (!used[i] && lines[i].error == errors && line_matches(&lines[i], &w[n]))
                break;
        if (i == nlines) {
            dump_lines();
            fail_msg("no %s line \"guest '%s': property '%s': ...%s...\"",
                     errors ? "error" : "warning", w[n].guest, w[n].prop, w[n].text);
        }
        used[i] = true;
    }
    if (have != n) {
        dump_lines();
        fail_msg("%d %s lines, expected %d", have, errors ? "error" : "warning", n);
    }
}

/* config_load's result is the number of error lines, and these are they */
static void expect_errors(int rc, const struct want *w)
{
    int errs = 0;
    for (int i = 0; i < nlines; i++)
        errs += lines[i].error;
    if (rc != errs) {
        dump_lines();
        fail_msg("config_load returned %d with %d error lines", rc, errs);
    }
    expect_lines(true, w);
}

#define END { NULL, NULL, NULL }
#define EXPECT(rc, ...) expect_errors((rc), (const struct want[]){ __VA_ARGS__, END })
#define EXPECT_OK(rc) expect_errors((rc), (const struct want[]){ END })
#define EXPECT_WARNINGS(...) expect_lines(false, (const struct want[]){ __VA_ARGS__, END })

/* ---- blobs ---- */

static void *load_dtb(const char *name, size_t extra)
{
    return fixture_load(name, extra, NULL);
}

/* a copy of a configuration with room for edits */
static void *cfg(const char *name)
{
    return load_dtb(name, 8192);
}

static int gnode(const void *b, const char *guest)
{
    char path[64];
    if (guest[0] == '/')
        return fdt_path_offset(b, guest);       /* "/partita" itself */
    snprintf(path, sizeof(path), "/partita/%s", guest);
    int off = fdt_path_offset(b, path);
    if (off < 0)
        fail_msg("no %s in the configuration", path);
    return off;
}

static void set_cells(void *b, const char *guest, const char *prop, int n, ...)
{
    fdt32_t c[32];
    va_list ap;
    assert_true(n <= 32);
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        c[i] = cpu_to_fdt32(va_arg(ap, uint32_t));
    va_end(ap);
    assert_int_equal(fdt_setprop(b, gnode(b, guest), prop, c, n * 4), 0);
}

static void set_str(void *b, const char *guest, const char *prop, const char *s)
{
    assert_int_equal(fdt_setprop_string(b, gnode(b, guest), prop, s), 0);
}

static void set_bytes(void *b, const char *guest, const char *prop, const void *v, int len)
{
    assert_int_equal(fdt_setprop(b, gnode(b, guest), prop, v, len), 0);
}

static void del(void *b, const char *guest, const char *prop)
{
    assert_int_equal(fdt_delprop(b, gnode(b, guest), prop), 0);
}

/* A property of size bytes, in a blob grown for it; the bytes are left as
 * they are (the validator reads sizes only), so even 256 MiB costs nothing. */
static void *set_big(void *b, const char *guest, const char *prop, uint32_t size)
{
    assert_int_equal(fdt_pack(b), 0);           /* copy what is used, no more */
    size_t n = fdt_totalsize(b) + size + 4096;
    void *nb = malloc(n);
    assert_non_null(nb);
    assert_int_equal(fdt_open_into(b, nb, (int)n), 0);
    free(b);
    void *p;
    assert_int_equal(fdt_setprop_placeholder(nb, gnode(nb, guest), prop, (int)size, &p), 0);
    if (size)
        memset(p, 0x5a, size < 4096 ? size : 4096);
    return nb;
}

/* guest/passthrough/NAME { reg = <base size>; interrupts = <irqs...>; } */
static void add_pt(void *b, const char *guest, const char *dev, uint32_t base, uint32_t size,
                   int nirq, ...)
{
    int g = gnode(b, guest);
    int pt = fdt_subnode_offset(b, g, "passthrough");
    if (pt < 0)
        pt = fdt_add_subnode(b, g, "passthrough");
    assert_true(pt >= 0);
    int d = fdt_add_subnode(b, pt, dev);
    assert_true(d >= 0);
    fdt32_t reg[2] = { cpu_to_fdt32(base), cpu_to_fdt32(size) };
    if (size || base)
        assert_int_equal(fdt_setprop(b, d, "reg", reg, 8), 0);
    va_list ap;
    va_start(ap, nirq);
    for (int i = 0; i < nirq; i++)
        assert_int_equal(fdt_appendprop_u32(b, d, "interrupts", va_arg(ap, uint32_t)), 0);
    va_end(ap);
}

static struct config_host host_of(const struct platform *p, const void *fdt)
{
    return (struct config_host){ p, HYP_START, HYP_END, fdt, 0, false, NULL, 0 };
}

static int load_with(const void *blob, const struct config_host *h)
{
    nlines = 0;
    memset(lines, 0, sizeof(lines));
    memset(&sys, 0xa5, sizeof(sys));        /* config_load must set every field */
    return config_load(blob, h, &sys, collect, lines);
}

/* on QEMU virt */
static int load(const void *blob)
{
    struct config_host h = host_of(&virt, virt_dtb);
    return load_with(blob, &h);
}

/* load, then free the blob */
static int load_free(void *blob)
{
    int rc = load(blob);
    free(blob);
    return rc;
}

static const struct guest_config *guest(const char *name)
{
    for (unsigned int i = 0; i < sys.nguest_cfg && i < GUEST_MAX; i++)
        if (strcmp(sys.guest_cfg[i].name, name) == 0)
            return &sys.guest_cfg[i];
    fail_msg("no guest '%s' in the parsed configuration", name);
    return NULL;
}

static int setup(void **state)
{
    char err[160];
    virt_dtb = load_dtb("qemu-virt", 0);
    if (platform_probe(virt_dtb, &virt, err, sizeof(err)) != 0)
        fail_msg("qemu-virt: %s", err);
    return 0;
}

static int teardown(void **state)
{
    free(virt_dtb);
    return 0;
}

/* ---- a right configuration, field by field ---- */

static void test_good_config(void **state)
{
    void *b = cfg("config-good");
    EXPECT_OK(load(b));
    assert_int_equal(nlines, 0);                    /* not even a warning */
    assert_int_equal(sys.nguest_cfg, 3);
    assert_string_equal(sys.guest_cfg[0].name, "linux0");     /* in DT order */
    assert_string_equal(sys.guest_cfg[1].name, "rtos0");
    assert_string_equal(sys.guest_cfg[2].name, "bare0");

    int len;
    const struct guest_config *g = guest("linux0");
    assert_int_equal(g->ncpus, 2);
    assert_int_equal(g->cpus[0], 1);
    assert_int_equal(g->cpus[1], 2);
    assert_int_equal(g->mem_base, 0x50000000);
    assert_int_equal(g->mem_size, 0x10000000);
    assert_true(g->identity);
    assert_int_equal(guest_ram_ipa(g), 0x50000000);
    const void *k = fdt_getprop(b, gnode(b, "linux0"), "kernel", &len);
    assert_ptr_equal(g->kernel, k);                 /* in place, not copied */
    assert_int_equal(g->kernel_size, len);
    assert_int_equal(g->kernel_size, 80);           /* config-kernel.img */
    assert_memory_equal(g->kernel, "Partita unit-test kernel image", 30);
    assert_int_equal(g->format, KERNEL_LINUX);
    assert_int_equal(g->load_offset, 0);
    assert_int_equal(g->entry_offset, 0);
    const void *i = fdt_getprop(b, gnode(b, "linux0"), "initrd", &len);
    assert_ptr_equal(g->initrd, i);
    assert_int_equal(g->initrd_size, 53);           /* config-initrd.img */
    assert_memory_equal(g->initrd, "Partita unit-test initrd", 24);
    assert_string_equal(g->bootargs, "console=ttyAMA0 earlycon");
    assert_true(g->autostart);
    assert_int_equal(g->on_crash, ON_CRASH_RESTART);
    assert_int_equal(g->npt_regs, 2);
    assert_int_equal(g->pt_regs[0].base, 0x09010000);
    assert_int_equal(g->pt_regs[0].size, 0x1000);
    assert_int_equal(g->pt_regs[1].base, 0x09030000);
    assert_int_equal(g->pt_regs[1].size, 0x1000);
    assert_int_equal(g->npt_irqs, 2);
    assert_int_equal(g->pt_irqs[0], 34);
    assert_int_equal(g->pt_irqs[1], 39);

    g = guest("rtos0");
    assert_int_equal(g->ncpus, 1);
    assert_int_equal(g->cpus[0], 3);
    assert_int_equal(g->mem_base, 0x60000000);      /* two-cell form */
    assert_int_equal(g->mem_size, 0x01000000);
    assert_false(g->identity);
    assert_int_equal(guest_ram_ipa(g), VBOARD_RAM_IPA);
    assert_int_equal(g->kernel_size, 8);
    assert_memory_equal(g->kernel, "\xe3\xa0\x00\x00\xea\xff\xff\xfe", 8);
    assert_int_equal(g->format, KERNEL_RAW);
    assert_int_equal(g->load_offset, 0x10000);
    assert_int_equal(g->entry_offset, 0x10000);     /* defaults to the load offset */
    assert_null(g->initrd);
    assert_int_equal(g->initrd_size, 0);
    assert_string_equal(g->bootargs, "");
    assert_false(g->autostart);
    assert_int_equal(g->on_crash, ON_CRASH_STOP);
    assert_int_equal(g->npt_regs, 0);
    assert_int_equal(g->npt_irqs, 0);

    g = guest("bare0");
    assert_int_equal(g->ncpus, 1);
    assert_int_equal(g->cpus[0], 0);
    assert_int_equal(g->mem_base, 0x48000000);
    assert_int_equal(g->mem_size, 0x00800000);
    assert_int_equal(g->kernel_size, 16);
    assert_int_equal(g->format, KERNEL_RAW);        /* by default */
    assert_int_equal(g->load_offset, 0x1000);
    assert_int_equal(g->entry_offset, 0x1040);
    assert_int_equal(g->on_crash, ON_CRASH_STOP);   /* by default */
    assert_false(g->autostart);
    assert_false(g->identity);
    free(b);
}

/* no load-offset: image and entry at the start of RAM */
static void test_offsets_default_to_zero(void **state)
{
    void *b = cfg("config-good");
    del(b, "bare0", "load-offset");
    del(b, "bare0", "entry-offset");
    EXPECT_OK(load_free(b));
    assert_int_equal(guest("bare0")->load_offset, 0);
    assert_int_equal(guest("bare0")->entry_offset, 0);
}

static void test_entry_before_load_offset(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "entry-offset", 1, 0);    /* explicitly 0: kept */
    EXPECT_OK(load_free(b));
    assert_int_equal(guest("bare0")->load_offset, 0x1000);
    assert_int_equal(guest("bare0")->entry_offset, 0);
}

static void test_good_config_without_host_dt(void **state)
{
    void *b = cfg("config-good");
    struct config_host h = host_of(&virt, NULL);
    EXPECT_OK(load_with(b, &h));
    assert_int_equal(sys.nguest_cfg, 3);
    free(b);
}

/* ---- memory ---- */

static void test_memory_overlap_and_conflicts(void **state)
{
    void *b = cfg("config-conflicts");
    EXPECT(load_free(b),
           { "second", "memory", "overlaps the memory of guest 'first'" },
           { "second", "cpus", "CPU 1 is already given to guest 'first'" },
           { "second", "passthrough interrupts", "interrupt 34 is already given to guest 'first'" });
    assert_int_equal(sys.nguest_cfg, 2);
}

static void test_memory_overlap_touching_is_fine(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "memory", 2, 0x4f000000, 0x01000000);    /* ends at linux0 */
    set_cells(b, "bare0", "memory", 2, 0x60000000 + 0x01000000, 0x800000);
    EXPECT_OK(load_free(b));
}

static void test_memory_overlap_contained(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x58000000, 0x100000);      /* inside linux0 */
    EXPECT(load_free(b), { "bare0", "memory", "overlaps the memory of guest 'linux0'" });
}

static void test_memory_outside_ram(void **state)
{
    static const uint32_t cases[][2] = {
        { 0x80000000, 0x100000 },       /* above */
        { 0x7ff00000, 0x200000 },       /* straddles the end */
        { 0x30000000, 0x1000000 },      /* below */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        void *b = cfg("config-good");
        set_cells(b, "rtos0", "memory", 2, cases[i][0], cases[i][1]);
        EXPECT(load_free(b), { "rtos0", "memory", "is outside host RAM" });
    }
    /* straddling the start of RAM, where the hypervisor is: both said */
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "memory", 2, 0x3ff00000, 0x200000);
    EXPECT(load_free(b), { "rtos0", "memory", "0x3ff00000-0x40100000 is outside host RAM" },
           { "rtos0", "memory", "overlaps the hypervisor" });
}

static void test_memory_outside_ram_64bit(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "memory", 4, 1, 0x40000000, 0, 0x100000);  /* 4 GiB up */
    EXPECT(load_free(b), { "rtos0", "memory", "0x140000000-0x140100000 is outside host RAM" });
}

/* base + size past 2^64 must not come round into RAM */
static void test_memory_wraps_address_space(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "memory", 4, 0xffffffff, 0xfffff000, 0, 0x40002000);
    EXPECT(load_free(b), { "rtos0", "memory", "outside host RAM" });
}

static void test_memory_over_hypervisor(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x40700000, 0x200000);
    EXPECT(load_free(b), { "bare0", "memory",
                           "overlaps the hypervisor (0x40000000-0x40800000)" });
    b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x40800000, 0x200000);      /* just above it */
    EXPECT_OK(load_free(b));
}

static void test_memory_unaligned(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x48000800, 0x800000);
    EXPECT(load_free(b), { "bare0", "memory", "base and size must be 4 KiB aligned" });
    b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x48000000, 0x800010);
    EXPECT(load_free(b), { "bare0", "memory", "4 KiB aligned" });
}

static void test_memory_missing(void **state)
{
    void *b = cfg("config-good");
    del(b, "bare0", "memory");
    EXPECT(load_free(b), { "bare0", "memory", "missing" });
    b = cfg("config-good");
    set_cells(b, "bare0", "memory", 3, 0, 0x48000000, 0x800000);   /* neither form */
    EXPECT(load_free(b), { "bare0", "memory", "missing: give <base size>" });
    b = cfg("config-good");
    set_bytes(b, "bare0", "memory", "", 0);
    EXPECT(load_free(b), { "bare0", "memory", "missing" });
}

/* a guest with no RAM at all is no guest */
static void test_memory_zero_size(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x48000000, 0);
    EXPECT(load_free(b), { "bare0", "memory", "size is 0" });
}

/* the loader writes the guest's 64 KiB device tree at the top of its RAM */
static void test_memory_smaller_than_device_tree(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x48000000, 0x8000);
    del(b, "bare0", "load-offset");
    del(b, "bare0", "entry-offset");
    EXPECT(load_free(b), { "bare0", "memory", "64 KiB" });
    b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x48000000, 0x11000);
    del(b, "bare0", "load-offset");
    del(b, "bare0", "entry-offset");
    EXPECT_OK(load_free(b));
}

static void test_memory_over_2g_needs_identity(void **state)
{
    struct platform big = virt;
    big.mem[0].size = 0xa0000000;           /* 2.5 GiB from 0x40000000 */
    struct config_host h = host_of(&big, virt_dtb);
    void *b = cfg("config-good");
    set_cells(b, "linux0", "memory", 2, 0x49000000, 0x01000000);
    set_cells(b, "rtos0", "memory", 2, 0x50000000, 0x80001000);
    EXPECT(load_with(b, &h), { "rtos0", "memory", "more than 2 GiB" });
    set_bytes(b, "rtos0", "identity-map", "", 0);
    EXPECT_OK(load_with(b, &h));
    assert_true(guest("rtos0")->identity);
    free(b);
}

/* RAM above the hypervisor's identity map (HYP_VA_RAM_END) cannot be
 * loaded or scrubbed by it: QEMU virt with -m 3G has RAM up to 4 GiB */
static void test_memory_beyond_hypervisor_reach(void **state)
{
    struct platform big = virt;
    big.mem[0].size = 0xc0000000;
    struct config_host h = host_of(&big, virt_dtb);
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "memory", 2, 0xdf000000, 0x01000000);    /* ends at the limit */
    EXPECT_OK(load_with(b, &h));
    set_cells(b, "rtos0", "memory", 2, 0xf0000000, 0x01000000);
    EXPECT(load_with(b, &h), { "rtos0", "memory", "beyond the hypervisor's reach" });
    set_cells(b, "rtos0", "memory", 2, 0xdf000000, 0x01001000);
    EXPECT(load_with(b, &h), { "rtos0", "memory", "beyond the hypervisor's reach" });
    free(b);
}

/* ---- CPUs ---- */

static void test_cpu_does_not_exist(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 4);
    EXPECT(load_free(b), { "bare0", "cpus", "CPU 4 does not exist (the host has 4)" });
    b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 0xffffffff);
    EXPECT(load_free(b), { "bare0", "cpus", "CPU 4294967295 does not exist" });
}

static void test_cpu_twice_in_one_guest(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "linux0", "cpus", 3, 1, 2, 1);
    EXPECT(load_free(b), { "linux0", "cpus", "CPU 1 given twice" });
}

static void test_cpu_in_two_guests(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 2);
    EXPECT(load_free(b), { "bare0", "cpus", "CPU 2 is already given to guest 'linux0'" });
}

/* ---- shared CPUs (time-slice-us) ---- */

/* Both guests on CPU 2 say they share: accepted, slices kept */
static void test_cpu_shared_with_slices(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 2);
    set_cells(b, "bare0", "time-slice-us", 1, 2000);
    set_cells(b, "linux0", "time-slice-us", 1, 6000);
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.guest_cfg[0].slice_us, 6000);
    assert_int_equal(sys.guest_cfg[2].slice_us, 2000);
    assert_int_equal(sys.guest_cfg[1].slice_us, 0);    /* rtos0: its CPU alone */
}

/* Only one side says so: refused, naming the guest that did not */
static void test_cpu_shared_one_side_only(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 2);
    set_cells(b, "bare0", "time-slice-us", 1, 2000);
    EXPECT(load_free(b), { "bare0", "cpus", "CPU 2 is already given to guest 'linux0', "
                                            "which has it alone (no time-slice-us)" });
    b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 2);
    set_cells(b, "linux0", "time-slice-us", 1, 2000);
    EXPECT(load_free(b), { "bare0", "cpus", "CPU 2 is already given to guest 'linux0' "
                                            "(to share it, give both guests time-slice-us)" });
}

/* More vCPUs than CPUs: a guest with slices may put two vCPUs on one CPU */
static void test_cpu_twice_with_slice(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "linux0", "cpus", 3, 1, 2, 1);
    set_cells(b, "linux0", "time-slice-us", 1, 1000);
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.guest_cfg[0].ncpus, 3);
}

static void test_slice_bounds(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "time-slice-us", 1, 99);
    EXPECT(load_free(b), { "rtos0", "time-slice-us", "99 us: give 100 to 1000000" });
    b = cfg("config-good");
    set_cells(b, "rtos0", "time-slice-us", 1, 1000001);
    EXPECT(load_free(b), { "rtos0", "time-slice-us", "1000001 us: give 100 to 1000000" });
    b = cfg("config-good");
    set_cells(b, "rtos0", "time-slice-us", 2, 0, 1000);
    EXPECT(load_free(b), { "rtos0", "time-slice-us", "must be one 32-bit cell" });
    b = cfg("config-good");
    set_cells(b, "rtos0", "time-slice-us", 1, 100);     /* alone on CPU 3: fine */
    EXPECT_OK(load_free(b));
    b = cfg("config-good");
    set_cells(b, "rtos0", "time-slice-us", 1, 1000000);
    EXPECT_OK(load_free(b));
}

/* ---- memory-bandwidth budgets (memory-budget) ---- */

/* on QEMU virt with a PMU of 6 counters and its interrupt */
static int load_pmu(void *blob)
{
    struct config_host h = host_of(&virt, virt_dtb);
    h.pmu_counters = 6;
    int rc = load_with(blob, &h);
    free(blob);
    return rc;
}

static void test_budget_parsed(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "linux0", "memory-budget", 2, 500000, 1000);
    EXPECT_OK(load_pmu(b));
    assert_int_equal(guest("linux0")->budget_events, 500000);
    assert_int_equal(guest("linux0")->budget_period_us, 1000);
    assert_int_equal(guest("linux0")->budget_event, 0x17);     /* L2D_CACHE_REFILL */
    assert_int_equal(guest("rtos0")->budget_events, 0);        /* none: pays nothing */
    b = cfg("config-good");
    set_cells(b, "linux0", "memory-budget", 2, 1, 100);
    set_cells(b, "linux0", "memory-budget-event", 1, 0x08);
    set_bytes(b, "linux0", "pmu", "off", 4);    /* the counter is the hypervisor's */
    EXPECT_OK(load_pmu(b));
    assert_int_equal(guest("linux0")->budget_event, 0x08);
}

static void test_budget_errors(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "linux0", "memory-budget", 2, 1000, 0);
    EXPECT(load_pmu(b), { "linux0", "memory-budget", "period 0 us: give 100 to 10000000" });
    b = cfg("config-good");
    set_cells(b, "linux0", "memory-budget", 2, 1000, 10000001);
    EXPECT(load_pmu(b), { "linux0", "memory-budget", "period 10000001 us" });
    b = cfg("config-good");
    set_cells(b, "linux0", "memory-budget", 2, 0, 1000);
    EXPECT(load_pmu(b), { "linux0", "memory-budget", "0 events" });
    b = cfg("config-good");
    set_cells(b, "linux0", "memory-budget", 1, 1000);
    EXPECT(load_pmu(b), { "linux0", "memory-budget", "give <EVENTS PERIOD-US>" });
    b = cfg("config-good");
    set_cells(b, "linux0", "memory-budget", 2, 1000, 1000);
    set_cells(b, "linux0", "memory-budget-event", 1, 0x100);
    EXPECT(load_pmu(b), { "linux0", "memory-budget-event", "0x100: events are 0 to 0xff" });
    b = cfg("config-good");
    set_cells(b, "linux0", "memory-budget-event", 1, 0x08);
    EXPECT(load_pmu(b), { "linux0", "memory-budget-event", "no memory-budget" });
}

/* what a budget cannot be kept with is refused, not ignored */
static void test_budget_needs(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "memory-budget", 2, 1000, 1000);
    EXPECT(load_free(b), { "rtos0", "memory-budget", "no PMU with an interrupt" });
    b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 2);
    set_cells(b, "bare0", "time-slice-us", 1, 2000);
    set_cells(b, "linux0", "time-slice-us", 1, 6000);
    set_cells(b, "linux0", "memory-budget", 2, 1000, 1000);
    EXPECT(load_pmu(b), { "linux0", "memory-budget", "no time-slice-us" });
}

/* ---- cyclic schedules (partita,schedule) ---- */

/* /partita/NAME, a schedule of frame_us (0: no major-frame-us) */
static void add_sched(void *b, const char *name, uint32_t frame_us, bool boot)
{
    int n = fdt_add_subnode(b, gnode(b, "/partita"), name);
    assert_true(n >= 0);
    assert_int_equal(fdt_setprop_string(b, n, "compatible", "partita,schedule"), 0);
    if (frame_us)
        assert_int_equal(fdt_setprop_u32(b, n, "major-frame-us", frame_us), 0);
    if (boot)
        assert_int_equal(fdt_setprop(b, n, "boot", NULL, 0), 0);
}

/* its table TNAME for cpu: nwin windows (offset, length, guest), from varargs */
static void add_table(void *b, const char *sched, const char *tname, uint32_t cpu, int nwin,
                      ...)
{
    char path[64];
    snprintf(path, sizeof(path), "/partita/%s", sched);
    int n = fdt_add_subnode(b, fdt_path_offset(b, path), tname);
    assert_true(n >= 0);
    assert_int_equal(fdt_setprop_u32(b, n, "cpu", cpu), 0);
    va_list ap;
    va_start(ap, nwin);
    for (int i = 0; i < nwin; i++) {
        uint32_t off = va_arg(ap, uint32_t), len = va_arg(ap, uint32_t);
        const char *g = va_arg(ap, const char *);
        assert_int_equal(fdt_appendprop_u32(b, n, "windows", off), 0);
        assert_int_equal(fdt_appendprop_u32(b, n, "windows", len), 0);
        assert_int_equal(fdt_appendprop_string(b, n, "guests", g), 0);
    }
    va_end(ap);
}

/* linux0 (CPUs 1, 2) and rtos0 (CPU 3) under schedule name */
static void add_good_sched(void *b, const char *name, uint32_t shift, bool boot)
{
    add_sched(b, name, 1000, boot);
    add_table(b, name, "cpu1", 1, 1, 0 + shift, 200, "linux0");
    add_table(b, name, "cpu2", 2, 1, 0 + shift, 200, "linux0");
    add_table(b, name, "cpu3", 3, 2, 500, 200, "rtos0", 0, 100, "rtos0");
}

static void test_schedule_parsed(void **state)
{
    void *b = cfg("config-good");
    /* (libfdt adds a node before its siblings: "normal" comes first) */
    add_good_sched(b, "alt", 300, false);
    add_good_sched(b, "normal", 0, true);
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.sched.n, 2);
    assert_int_equal(sys.sched.boot, 0);
    assert_int_equal(sys.sched.cpus, 0xe);
    const struct schedule_config *s = &sys.sched.s[0];
    assert_string_equal(s->name, "normal");
    assert_int_equal(s->frame_us, 1000);
    assert_int_equal(s->cpu[0].nwindows, 0);
    assert_int_equal(s->cpu[1].nwindows, 1);
    assert_int_equal(s->cpu[1].w[0].guest, 0);      /* linux0 */
    /* by offset, whatever the order given */
    assert_int_equal(s->cpu[3].nwindows, 2);
    assert_int_equal(s->cpu[3].w[0].offset_us, 0);
    assert_int_equal(s->cpu[3].w[0].length_us, 100);
    assert_int_equal(s->cpu[3].w[1].offset_us, 500);
    assert_int_equal(s->cpu[3].w[1].guest, 1);      /* rtos0 */
    assert_int_equal(sys.sched.s[1].cpu[2].w[0].offset_us, 300);
    /* one schedule is in force without boot; none at all: no CPU under one */
    b = cfg("config-good");
    add_good_sched(b, "only", 0, false);
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.sched.boot, 0);
    b = cfg("config-good");
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.sched.n, 0);
    assert_int_equal(sys.sched.cpus, 0);
}

/* a CPU under the schedules runs several guests without time-slice-us */
static void test_schedule_shares_cpus(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 3);
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 2, 0, 300, "rtos0", 300, 300, "bare0");
    EXPECT_OK(load_free(b));
    /* not without the schedule */
    b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 3);
    EXPECT(load_free(b), { "bare0", "cpus", "CPU 3 is already given to guest 'rtos0'" });
}

static void test_schedule_window_errors(void **state)
{
    void *b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 2, 0, 200, "rtos0", 100, 200, "rtos0");
    EXPECT(load_free(b), { "schedule:s", "cpu3/windows", "windows 0 and 1 overlap" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 1, 900, 200, "rtos0");
    EXPECT(load_free(b), { "schedule:s", "cpu3/windows",
                           "window 0 (200 us at 900) ends past the frame (1000 us)" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 1, 0, 5, "rtos0");
    EXPECT(load_free(b), { "schedule:s", "cpu3/windows", "window 0: 5 us long: at least 10" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 1, 0, 100, "linux0");
    EXPECT(load_free(b), { "schedule:s", "cpu3/guests",
                           "window 0: guest 'linux0' has no vCPU on CPU 3" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 1, 0, 100, "nosuch");
    EXPECT(load_free(b), { "schedule:s", "cpu3/guests", "window 0: no guest 'nosuch'" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 1, 0, 100, "rtos0");
    int t = fdt_path_offset(b, "/partita/s/cpu3");
    assert_int_equal(fdt_appendprop_u32(b, t, "windows", 400), 0);
    assert_int_equal(fdt_appendprop_u32(b, t, "windows", 100), 0);
    EXPECT(load_free(b), { "schedule:s", "cpu3/guests", "1 guests for 2 windows" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 0);
    EXPECT(load_free(b), { "schedule:s", "cpu3/windows", "give <OFFSET-US LENGTH-US>" });
}

static void test_schedule_frame_errors(void **state)
{
    void *b = cfg("config-good");
    add_sched(b, "s", 0, false);
    add_table(b, "s", "cpu3", 3, 1, 0, 100, "rtos0");
    EXPECT(load_free(b), { "schedule:s", "major-frame-us", "missing: give 10 to 10000000 us" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    set_cells(b, "s", "major-frame-us", 1, 0);
    add_table(b, "s", "cpu3", 3, 1, 0, 100, "rtos0");
    EXPECT(load_free(b), { "schedule:s", "major-frame-us", "out of range: give 10" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    EXPECT(load_free(b), { "schedule:s", NULL, "no table of windows" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "again", 3, 1, 200, 100, "rtos0");
    add_table(b, "s", "cpu3", 3, 1, 0, 100, "rtos0");
    EXPECT(load_free(b), { "schedule:s", "again/cpu", "CPU 3 has two tables" });
}

static void test_schedule_set_errors(void **state)
{
    void *b = cfg("config-good");
    add_good_sched(b, "b", 300, false);
    add_good_sched(b, "a", 0, false);
    EXPECT(load_free(b), { "schedule:a", "boot", "2 schedules and none in force at boot" });
    b = cfg("config-good");
    add_good_sched(b, "b", 300, true);
    add_good_sched(b, "a", 0, true);
    EXPECT(load_free(b), { "schedule:b", "boot", "'a' is in force at boot already" });
    b = cfg("config-good");
    add_sched(b, "b", 1000, false);
    add_table(b, "b", "cpu3", 3, 1, 0, 100, "rtos0");
    add_good_sched(b, "a", 0, true);
    EXPECT(load_free(b), { "schedule:b", NULL, "its tables are for other CPUs than schedule 'a'" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 1, 0, 100, "rtos0");
    add_table(b, "s", "cpu5", 5, 0);
    EXPECT(load_free(b), { "schedule:s", "cpu5/windows", "give <OFFSET-US LENGTH-US>" },
           { "schedule:s", NULL, "CPU 5 does not exist (the host has 4)" });
}

/* a guest's vCPUs run in the same windows on all its CPUs (gang) */
static void test_schedule_gang(void **state)
{
    void *b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu1", 1, 1, 0, 200, "linux0");
    add_table(b, "s", "cpu2", 2, 1, 100, 200, "linux0");
    EXPECT(load_free(b), { "schedule:s", NULL,
                           "guest 'linux0': its windows on CPU 2 are not those on CPU 1" });
    b = cfg("config-good");
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu1", 1, 1, 0, 200, "linux0");
    add_table(b, "s", "cpu2", 2, 0);
    int t = fdt_path_offset(b, "/partita/s/cpu2");
    assert_int_equal(fdt_delprop(b, t, "cpu"), 0);
    EXPECT(load_free(b), { "schedule:s", "cpu2/cpu", "missing: the physical CPU" },
           { "linux0", "cpus", "some of its CPUs are under the cyclic schedules, not all" });
}

/* what a CPU under the schedules cannot keep is refused */
static void test_schedule_guest_needs(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "time-slice-us", 1, 1000);
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 1, 0, 100, "rtos0");
    EXPECT(load_free(b), { "rtos0", "time-slice-us", "not on CPUs under the cyclic schedules" });
    b = cfg("config-good");
    set_cells(b, "rtos0", "memory-budget", 2, 1000, 1000);
    add_sched(b, "s", 1000, false);
    add_table(b, "s", "cpu3", 3, 1, 0, 100, "rtos0");
    EXPECT(load_pmu(b), { "rtos0", "memory-budget", "not on CPUs under the cyclic schedules" });
}

/* ---- the health table (health { EVENT = "ACTION"; }) ---- */

/* guest's health node (made if it is not there yet) */
static int hnode(void *b, const char *guest)
{
    int h = fdt_subnode_offset(b, gnode(b, guest), "health");
    if (h < 0)
        h = fdt_add_subnode(b, gnode(b, guest), "health");
    assert_true(h >= 0);
    return h;
}

static void set_health(void *b, const char *guest, const char *prop, const char *action)
{
    assert_int_equal(fdt_setprop_string(b, hnode(b, guest), prop, action), 0);
}

static void set_threshold(void *b, const char *guest, const char *prop, int n, uint32_t count,
                          uint32_t us)
{
    fdt32_t c[2] = { cpu_to_fdt32(count), cpu_to_fdt32(us) };
    assert_int_equal(fdt_setprop(b, hnode(b, guest), prop, c, (int)(n * sizeof(c[0]))), 0);
}

static void test_health_parsed(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "watchdog", 1, 100);
    set_health(b, "rtos0", "watchdog", "log");
    set_health(b, "rtos0", "abort-storm", "stop-system");
    set_threshold(b, "rtos0", "abort-storm-threshold", 2, 100, 2000);
    set_health(b, "rtos0", "deadline-miss", "restart");
    set_health(b, "bare0", "crash", "restart");
    EXPECT_OK(load_free(b));
    const struct guest_health *h = &guest("rtos0")->health;
    assert_int_equal(h->action[HEALTH_EV_CRASH], HEALTH_ACT_STOP);     /* on-crash */
    assert_int_equal(h->action[HEALTH_EV_WATCHDOG], HEALTH_ACT_LOG);
    assert_int_equal(h->action[HEALTH_EV_ABORTS], HEALTH_ACT_STOP_SYSTEM);
    assert_int_equal(h->count[HEALTH_EV_ABORTS], 100);
    assert_int_equal(h->period_us[HEALTH_EV_ABORTS], 2000);
    assert_int_equal(h->action[HEALTH_EV_DEADLINE], HEALTH_ACT_RESTART);
    assert_int_equal(h->count[HEALTH_EV_DEADLINE], HEALTH_COUNT_DEFAULT);  /* 1 a second */
    assert_int_equal(h->period_us[HEALTH_EV_DEADLINE], HEALTH_PERIOD_DEFAULT_US);
    assert_int_equal(h->action[HEALTH_EV_OVERRUN], HEALTH_ACT_NONE);
    /* the crash entry is on-crash, either way round */
    assert_int_equal(guest("bare0")->on_crash, ON_CRASH_RESTART);
    assert_int_equal(guest("linux0")->health.action[HEALTH_EV_CRASH], HEALTH_ACT_RESTART);
    /* no watchdog: no entry; watchdog-action's default is restart */
    assert_int_equal(guest("linux0")->health.action[HEALTH_EV_WATCHDOG], HEALTH_ACT_NONE);
    b = cfg("config-good");
    set_cells(b, "bare0", "watchdog", 1, 100);
    set_health(b, "rtos0", "crash", "stop");            /* agrees with on-crash */
    EXPECT_OK(load_free(b));
    assert_int_equal(guest("bare0")->health.action[HEALTH_EV_WATCHDOG], HEALTH_ACT_RESTART);
}

static void test_health_errors(void **state)
{
    void *b = cfg("config-good");
    set_health(b, "rtos0", "reboot", "log");
    EXPECT(load_free(b), { "rtos0", "health/reboot", "no such event" });
    b = cfg("config-good");
    set_health(b, "rtos0", "deadline-miss", "panic");
    EXPECT(load_free(b), { "rtos0", "health/deadline-miss", "\"panic\": use \"log\"" });
    b = cfg("config-good");
    set_health(b, "rtos0", "crash", "restart");         /* on-crash = "stop" */
    EXPECT(load_free(b), { "rtos0", "health/crash", "\"restart\" contradicts on-crash \"stop\"" });
    b = cfg("config-good");
    set_cells(b, "rtos0", "watchdog", 1, 100);
    set_str(b, "rtos0", "watchdog-action", "stop");
    set_health(b, "rtos0", "watchdog", "log");
    EXPECT(load_free(b), { "rtos0", "health/watchdog", "\"log\" contradicts watchdog-action" });
    b = cfg("config-good");
    set_health(b, "rtos0", "watchdog", "log");
    EXPECT(load_free(b), { "rtos0", "health/watchdog", "has no watchdog" });
    b = cfg("config-good");
    set_health(b, "rtos0", "budget-overrun", "stop");
    EXPECT(load_free(b), { "rtos0", "health/budget-overrun", "has no memory-budget" });
    b = cfg("config-good");
    set_threshold(b, "rtos0", "abort-storm-threshold", 2, 10, 1000);
    EXPECT(load_free(b), { "rtos0", "health/abort-storm-threshold", "no abort-storm entry" });
    b = cfg("config-good");
    set_health(b, "rtos0", "abort-storm", "log");
    set_threshold(b, "rtos0", "abort-storm-threshold", 2, 0, 999);
    EXPECT(load_free(b), { "rtos0", "health/abort-storm-threshold", "count 0: give 1 to" },
           { "rtos0", "health/abort-storm-threshold", "period 999 us: give 1000 to" });
    b = cfg("config-good");
    set_health(b, "rtos0", "deadline-miss", "log");
    set_threshold(b, "rtos0", "deadline-miss-threshold", 1, 10, 0);
    EXPECT(load_free(b), { "rtos0", "health/deadline-miss-threshold", "give <COUNT PERIOD-US>" });
    b = cfg("config-good");
    set_health(b, "rtos0", "crash-threshold", "log");   /* a crash is not counted */
    EXPECT(load_free(b), { "rtos0", "health/crash-threshold", "no such event" });
}

/* switch-schedule: the schedule it names must be one of the configuration's */
static void test_health_switch_schedule(void **state)
{
    void *b = cfg("config-good");
    add_good_sched(b, "alt", 300, false);
    add_good_sched(b, "normal", 0, true);
    set_health(b, "rtos0", "deadline-miss", "switch-schedule");
    set_health(b, "rtos0", "schedule", "alt");
    EXPECT_OK(load_free(b));
    const struct guest_config *g = &sys.guest_cfg[1];
    assert_string_equal(g->name, "rtos0");
    assert_int_equal(g->health.action[HEALTH_EV_DEADLINE], HEALTH_ACT_SWITCH_SCHEDULE);
    assert_int_equal(g->health.schedule, 1);                /* "alt", after "normal" */
    b = cfg("config-good");
    add_good_sched(b, "normal", 0, true);
    set_health(b, "rtos0", "deadline-miss", "switch-schedule");
    set_health(b, "rtos0", "schedule", "nosuch");
    EXPECT(load_free(b), { "rtos0", "health/schedule", "no schedule 'nosuch'" });
    b = cfg("config-good");                                 /* no schedules at all */
    set_health(b, "rtos0", "deadline-miss", "switch-schedule");
    set_health(b, "rtos0", "schedule", "alt");
    EXPECT(load_free(b), { "rtos0", "health/schedule", "no schedule 'alt'" });
    b = cfg("config-good");
    add_good_sched(b, "normal", 0, true);
    set_health(b, "rtos0", "deadline-miss", "switch-schedule");
    EXPECT(load_free(b), { "rtos0", "health/schedule", "switch-schedule needs the schedule" });
    b = cfg("config-good");
    add_good_sched(b, "normal", 0, true);
    set_health(b, "rtos0", "deadline-miss", "log");
    set_health(b, "rtos0", "schedule", "normal");
    EXPECT(load_free(b), { "rtos0", "health/schedule", "no event switches schedules" });
}

static void test_cpus_missing(void **state)
{
    void *b = cfg("config-good");
    del(b, "rtos0", "cpus");
    EXPECT(load_free(b), { "rtos0", "cpus", "missing" });
    b = cfg("config-good");
    set_bytes(b, "rtos0", "cpus", "", 0);
    EXPECT(load_free(b), { "rtos0", "cpus", "missing" });
    b = cfg("config-good");
    set_bytes(b, "rtos0", "cpus", "\0\0\0", 3);
    EXPECT(load_free(b), { "rtos0", "cpus", "missing" });
}

static void test_too_many_vcpus(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 9, 0, 1, 2, 3, 4, 5, 6, 7, 8);
    EXPECT(load_free(b), { "bare0", "cpus", "9 CPUs, at most 8" });
}

/* ---- interrupts ---- */

/* a device for the tests of interrupts: QEMU virt's second flash bank */
#define FLASH1 0x04000000u

static void expect_irq_error(const struct platform *p, uint32_t irq, const char *what)
{
    char text[96];
    struct config_host h = host_of(p, virt_dtb);
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "dev", FLASH1, 0x1000, 1, irq);
    snprintf(text, sizeof(text), "interrupt %u %s", irq, what);
    EXPECT(load_with(b, &h), { "rtos0", "passthrough interrupts", text });
    free(b);
}

static void expect_irq_ok(const struct platform *p, uint32_t irq)
{
    struct config_host h = host_of(p, virt_dtb);
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "dev", FLASH1, 0x1000, 1, irq);
    EXPECT_OK(load_with(b, &h));
    assert_int_equal(guest("rtos0")->npt_irqs, 1);
    assert_int_equal(guest("rtos0")->pt_irqs[0], irq);
    free(b);
}

static void test_irq_sgi_ppi_reserved(void **state)
{
    static const uint32_t irqs[] = { 0, 7, 15, 16, 25, 26, 27, 30, 31 };
    for (size_t i = 0; i < sizeof(irqs) / sizeof(irqs[0]); i++)
        expect_irq_error(&virt, irqs[i], "is reserved by the hypervisor");
    expect_irq_ok(&virt, 32);
}

/* a maintenance interrupt wired to an SPI is the hypervisor's too */
static void test_irq_maintenance_reserved(void **state)
{
    struct platform p = virt;
    p.gic.maint_irq = 50;
    expect_irq_error(&p, 50, "is reserved by the hypervisor");
    expect_irq_ok(&virt, 50);
}

static void test_irq_host_uart_reserved(void **state)
{
    struct platform p = virt;
    p.uart.irq = 40;
    expect_irq_error(&p, 40, "is reserved by the hypervisor");
    expect_irq_ok(&virt, 40);
    /* on QEMU virt the host UART is SPI 1 = 33 as well: reserved first */
    expect_irq_error(&virt, 33, "is reserved by the hypervisor");
}

static void test_irq_guest_uart(void **state)
{
    struct platform p = virt;
    p.uart.irq = 40;
    expect_irq_error(&p, 33, "is the guest's own emulated UART");
}

static void test_irq_in_two_guests(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "bare0", "dev", FLASH1, 0x1000, 2, 35, 39);
    EXPECT(load_free(b), { "bare0", "passthrough interrupts",
                           "interrupt 39 is already given to guest 'linux0'" });
}

/* INTIDs 1020-1023 are special and the GIC has none above */
static void test_irq_does_not_exist(void **state)
{
    expect_irq_error(&virt, 1020, "does not exist");
    expect_irq_error(&virt, 5000, "does not exist");
    expect_irq_ok(&virt, 1019);
}

static void test_too_many_irqs(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "a", FLASH1, 0x1000, 9, 40, 41, 42, 43, 44, 45, 46, 47, 48);
    add_pt(b, "rtos0", "b", FLASH1 + 0x1000, 0x1000, 9, 50, 51, 52, 53, 54, 55, 56, 57, 58);
    EXPECT(load_free(b), { "rtos0", "passthrough interrupts", ": too many" });
    assert_int_equal(guest("rtos0")->npt_irqs, GUEST_MAX_PT_IRQS);
}

/* ---- passthrough ranges ---- */

static void test_pt_not_a_host_device(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "ghost", 0x0b000000, 0x1000, 0);
    EXPECT(load(b), { "rtos0", "passthrough reg", "0xb000000+0x1000 is not a device of the host" });
    /* without the host's tree nothing says what is a device */
    struct config_host h = host_of(&virt, NULL);
    EXPECT_OK(load_with(b, &h));
    free(b);
}

/*
 * A page of QEMU's virtio-mmio transports (eight 0x200-byte devices): Stage-2
 * maps pages, so the page is a device's; the linuxblk system test passes it.
 */
static void test_pt_page_of_small_devices(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "disk", 0x0a003000, 0x1000, 1, 79);
    EXPECT_OK(load_free(b));
}

/* a huge range is refused, and quickly (the fuzzer found a walk per page) */
static void test_pt_huge_range(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "all", 0x10000000, 0x2eff0000, 0);   /* PCIe MMIO window */
    EXPECT(load_free(b), { "rtos0", "passthrough reg", "is not a device of the host" });
}

/* a range must lie inside devices, not only start in one */
static void test_pt_larger_than_device(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "v2m", 0x08020000, 0x2000, 0);  /* the frame is 4 KiB */
    EXPECT(load_free(b), { "rtos0", "passthrough reg", "is not a device of the host" });
}

static void test_pt_nested_device(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "v2m", 0x08020000, 0x1000, 0);   /* /intc/v2m, through ranges */
    EXPECT_OK(load_free(b));
}

static void test_pt_unaligned(void **state)
{
    static const uint32_t cases[][2] = {
        { 0x09010800, 0x1000 }, { 0x09010000, 0x800 }, { 0x0a003e00, 0x200 },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[64];
        void *b = cfg("config-good");
        add_pt(b, "rtos0", "dev", cases[i][0], cases[i][1], 0);
        snprintf(text, sizeof(text), "0x%x+0x%x is not whole 4 KiB pages", cases[i][0],
                 cases[i][1]);
        EXPECT(load_free(b), { "rtos0", "passthrough reg", text });
    }
}

static void test_pt_zero_size(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "dev", 0x09010000, 0, 0);
    EXPECT(load_free(b), { "rtos0", "passthrough reg", "not whole 4 KiB pages" });
}

static void test_pt_bad_reg(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "noreg", 0, 0, 1, 40);
    int d = fdt_path_offset(b, "/partita/rtos0/passthrough/noreg");
    assert_true(d >= 0);
    /* every passthrough device names its range */
    EXPECT(load(b), { "rtos0", "passthrough reg", "noreg: reg must be <base size> pairs" });
    assert_int_equal(fdt_setprop_u32(b, d, "reg", FLASH1), 0);
    EXPECT(load_free(b), { "rtos0", "passthrough reg", "noreg: reg must be <base size> pairs" });
}

static void test_too_many_ranges(void **state)
{
    void *b = cfg("config-good");
    int g = gnode(b, "rtos0");
    int pt = fdt_add_subnode(b, g, "passthrough");
    int d = fdt_add_subnode(b, pt, "flash");
    assert_true(pt >= 0 && d >= 0);
    for (uint32_t i = 0; i < GUEST_MAX_PT_REGS + 1; i++) {
        assert_int_equal(fdt_appendprop_u32(b, d, "reg", i * 0x100000), 0);
        assert_int_equal(fdt_appendprop_u32(b, d, "reg", 0x1000), 0);
    }
    EXPECT(load_free(b), { "rtos0", "passthrough reg", "flash: more than 8 ranges" });
    assert_int_equal(guest("rtos0")->npt_regs, GUEST_MAX_PT_REGS);
}

/* guest/passthrough/NAME { path = "..."; } */
static int add_pt_path(void *b, const char *guest, const char *dev, const char *path)
{
    int g = gnode(b, guest);
    int pt = fdt_subnode_offset(b, g, "passthrough");
    if (pt < 0)
        pt = fdt_add_subnode(b, g, "passthrough");
    int d = fdt_add_subnode(b, pt, dev);
    assert_true(pt >= 0 && d >= 0);
    assert_int_equal(fdt_setprop_string(b, d, "path", path), 0);
    return d;
}

/* a host node by its path: its pages and its interrupts, from the host DT */
static void test_pt_by_path(void **state)
{
    void *b = cfg("config-good");
    /* linux0 has the RTC by its range: it moves to rtos0 by its path */
    assert_int_equal(fdt_del_node(b, fdt_path_offset(b, "/partita/linux0/passthrough/rtc")), 0);
    add_pt_path(b, "rtos0", "rtc", "/pl031@9010000");
    EXPECT_OK(load(b));
    const struct guest_config *g = guest("rtos0");
    assert_int_equal(g->npt_regs, 1);
    assert_int_equal(g->pt_regs[0].base, 0x09010000);
    assert_int_equal(g->pt_regs[0].size, 0x1000);
    assert_int_equal(g->npt_irqs, 1);
    assert_int_equal(g->pt_irqs[0], 34);        /* SPI 2 in QEMU virt's DT */
    free(b);
    /* a node under a bus with ranges and its own interrupt parent chain:
     * /intc/v2m (the GICv2m frame, no interrupts) translates to 0x08020000 */
    b = cfg("config-good");
    add_pt_path(b, "rtos0", "v2m", "/intc@8000000/v2m@8020000");
    EXPECT_OK(load(b));
    assert_int_equal(guest("rtos0")->pt_regs[0].base, 0x08020000);
    assert_int_equal(guest("rtos0")->npt_irqs, 0);
    free(b);
    /* a device smaller than a page gets its whole page */
    b = cfg("config-good");
    add_pt_path(b, "rtos0", "disk", "/virtio_mmio@a003e00");
    EXPECT_OK(load(b));
    assert_int_equal(guest("rtos0")->pt_regs[0].base, 0x0a003000);
    assert_int_equal(guest("rtos0")->pt_regs[0].size, 0x1000);
    assert_int_equal(guest("rtos0")->pt_irqs[0], 79);
    free(b);
}

static void test_pt_by_path_errors(void **state)
{
    void *b = cfg("config-good");
    add_pt_path(b, "rtos0", "rtc", "/no-such-device@0");
    EXPECT(load_free(b), { "rtos0", "passthrough path",
                           "rtc: no node /no-such-device@0 in the host device tree" });
    b = cfg("config-good");
    add_pt_path(b, "rtos0", "timer", "/timer");     /* interrupts, no reg */
    EXPECT(load_free(b), { "rtos0", "passthrough path", "timer: /timer has no reg to map" });
    /* the hypervisor's own console UART, found by path, is still refused */
    b = cfg("config-good");
    add_pt_path(b, "rtos0", "uart", "/pl011@9000000");
    EXPECT(load_free(b), { "rtos0", "passthrough reg", "overlaps the hypervisor's console UART" },
                         { "rtos0", "passthrough interrupts", "reserved by the hypervisor" });
    /* a path needs the host's tree */
    b = cfg("config-good");
    add_pt_path(b, "rtos0", "rtc", "/pl061@9030000");
    struct config_host h = host_of(&virt, NULL);
    EXPECT(load_with(b, &h), { "rtos0", "passthrough path", "rtc: no host device tree" });
    free(b);
    /* a path and a range in one node: which is meant? */
    b = cfg("config-good");
    int d = add_pt_path(b, "rtos0", "rtc", "/pl061@9030000");
    assert_int_equal(fdt_setprop_u32(b, d, "interrupts", 39), 0);
    EXPECT(load_free(b), { "rtos0", "passthrough path", "rtc: give either path or reg" });
    /* not a string */
    b = cfg("config-good");
    d = add_pt_path(b, "rtos0", "rtc", "/pl061@9030000");
    assert_int_equal(fdt_setprop(b, d, "path", "/pl", 3), 0);  /* no NUL */
    EXPECT(load_free(b), { "rtos0", "passthrough path", "rtc: not a string" });
    b = cfg("config-good");
    add_pt_path(b, "rtos0", "rtc", "");
    EXPECT(load_free(b), { "rtos0", "passthrough path", "rtc: no node  in the host device tree" });
    /* a property passthrough does not know is an error, not ignored */
    b = cfg("config-good");
    d = add_pt_path(b, "rtos0", "disk", "/virtio_mmio@a000000");
    assert_int_equal(fdt_setprop_string(b, d, "compatible", "virtio,mmio"), 0);
    EXPECT(load_free(b), { "rtos0", "passthrough", "disk: unknown property 'compatible'" });
}

/* the hypervisor's own devices are never a guest's */
static void test_pt_hypervisor_devices(void **state)
{
    static const struct { uint32_t base, size; const char *what; } cases[] = {
        { 0x09000000, 0x1000, "console UART" },
        { 0x08000000, 0x1000, "GIC" },      /* distributor */
        { 0x08010000, 0x2000, "GIC" },      /* CPU interface */
        { 0x08030000, 0x1000, "GIC" },      /* virtual interface control */
        { 0x08040000, 0x2000, "GIC" },      /* virtual CPU interface */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        void *b = cfg("config-good");
        add_pt(b, "rtos0", "dev", cases[i].base, cases[i].size, 0);
        EXPECT(load_free(b), { "rtos0", "passthrough reg", cases[i].what });
    }
}

/* a UART the host DT gives the debugger (/chosen/partita,debug-uart) is
 * the hypervisor's too: its page and its interrupt */
static void test_pt_debug_uart(void **state)
{
    struct platform dbg = virt;
    dbg.debug_uart = (struct plat_uart){ .path = "/pl031@9010000", .kind = UART_PL011,
                                         .reg = { 0x09010000, 0x1000 }, .irq = 34 };
    struct config_host h = host_of(&dbg, virt_dtb);
    void *b = cfg("config-good");
    assert_int_equal(fdt_del_node(b, fdt_path_offset(b, "/partita/linux0/passthrough/rtc")), 0);
    add_pt_path(b, "rtos0", "rtc", "/pl031@9010000");
    EXPECT(load_with(b, &h), { "rtos0", "passthrough reg", "overlaps the hypervisor's debug UART" },
                             { "rtos0", "passthrough interrupts", "reserved by the hypervisor" });
    /* without one, the same device is the guest's */
    h = host_of(&virt, virt_dtb);
    EXPECT_OK(load_with(b, &h));
    free(b);
}

/* RAM is no device, and may be the hypervisor's or another guest's */
static void test_pt_host_ram(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "ram", 0x50000000, 0x1000, 0);
    struct config_host h = host_of(&virt, NULL);
    EXPECT(load_with(b, &h), { "rtos0", "passthrough reg", "is host RAM" });
    EXPECT(load(b), { "rtos0", "passthrough reg", "0x50000000+0x1000" });
    /* without the platform, the host's tree still says it is memory */
    h = host_of(NULL, virt_dtb);
    EXPECT(load_with(b, &h), { "rtos0", "passthrough reg", "is not a device of the host" });
    free(b);
}

static void test_pt_in_two_guests(void **state)
{
    void *b = cfg("config-good");
    add_pt(b, "rtos0", "rtc", 0x09010000, 0x1000, 0);
    EXPECT(load_free(b), { "rtos0", "passthrough reg", "is already given to guest 'linux0'" });
}

/*
 * Passthrough ranges are mapped at IPA = PA: on a board whose devices sit
 * where the virtual board has its GIC, UART or RAM (vexpress: NOR flash at
 * 0x08000000-0x0c000000), the two would collide in the guest.
 */
static void test_pt_collides_with_virtual_board(void **state)
{
    static const struct { uint32_t base; const char *what; } cases[] = {
        { 0x08000000, "GIC" }, { 0x08011000, "GIC" }, { 0x09000000, "UART" },
    };
    char err[160];
    struct platform vx;
    void *vdtb = load_dtb("vexpress-a15", 0);
    assert_int_equal(platform_probe(vdtb, &vx, err, sizeof(err)), 0);
    struct config_host h = { &vx, 0x80000000, 0x80800000, vdtb, 0, false, NULL, 0 };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        void *b = cfg("config-conflicts");
        fdt_del_node(b, gnode(b, "second"));
        set_cells(b, "first", "memory", 2, 0x90000000, 0x01000000);
        fdt_del_node(b, fdt_path_offset(b, "/partita/first/passthrough"));
        add_pt(b, "first", "flash", cases[i].base, 0x1000, 0);
        EXPECT(load_with(b, &h), { "first", "passthrough reg", cases[i].what });
        free(b);
    }
    /* a device where the guest's RAM is (0x40000000 when not identity-mapped) */
    void *vb = malloc(fdt_totalsize(vdtb) + 1024);
    assert_non_null(vb);
    assert_int_equal(fdt_open_into(vdtb, vb, (int)fdt_totalsize(vdtb) + 1024), 0);
    int sram = fdt_add_subnode(vb, 0, "sram@40000000");
    assert_true(sram >= 0);
    fdt32_t reg[4] = { 0, cpu_to_fdt32(0x40000000), 0, cpu_to_fdt32(0x2000000) };
    assert_int_equal(fdt_setprop(vb, sram, "reg", reg, sizeof(reg)), 0);
    h.host_dt = vb;
    void *b = cfg("config-conflicts");
    fdt_del_node(b, gnode(b, "second"));
    set_cells(b, "first", "memory", 2, 0x90000000, 0x01000000);
    fdt_del_node(b, fdt_path_offset(b, "/partita/first/passthrough"));
    add_pt(b, "first", "sram", 0x40fff000, 0x1000, 0);        /* its last page */
    EXPECT(load_with(b, &h), { "first", "passthrough reg",
                               "0x40fff000+0x1000 collides with the guest's own RAM" });
    set_bytes(b, "first", "identity-map", "", 0);              /* RAM at 0x90000000 */
    EXPECT_OK(load_with(b, &h));
    del(b, "first", "identity-map");
    int d = fdt_path_offset(b, "/partita/first/passthrough/sram");
    fdt32_t past[2] = { cpu_to_fdt32(0x41000000), cpu_to_fdt32(0x1000) };  /* past 16 MiB */
    assert_int_equal(fdt_setprop(b, d, "reg", past, sizeof(past)), 0);
    EXPECT_OK(load_with(b, &h));
    free(b);
    free(vb);
    free(vdtb);
}

/* guest memory over the host DT's reservations (vexpress fixture: a
 * /memreserve/ at 0x80000000 and optee@bfe00000 in /reserved-memory) */
static void test_memory_over_reserved(void **state)
{
    char err[160];
    struct platform vx;
    void *vdtb = load_dtb("vexpress-a15", 0);
    assert_int_equal(platform_probe(vdtb, &vx, err, sizeof(err)), 0);
    struct config_host h = { &vx, 0x80100000, 0x80900000, vdtb, 0, false, NULL, 0 };
    void *b = cfg("config-conflicts");
    fdt_del_node(b, gnode(b, "second"));
    fdt_del_node(b, fdt_path_offset(b, "/partita/first/passthrough"));
    set_cells(b, "first", "memory", 2, 0xbfd00000, 0x00200000);
    EXPECT(load_with(b, &h), { "first", "memory", "overlaps reserved memory 0xbfe00000-" });
    set_cells(b, "first", "memory", 2, 0x80000000, 0x00100000);
    EXPECT(load_with(b, &h), { "first", "memory", "overlaps reserved memory 0x80000000-0x80010000" });
    set_cells(b, "first", "memory", 2, 0x90000000, 0x01000000);
    EXPECT_OK(load_with(b, &h));
    free(b);
    free(vdtb);
}

/* ---- images ---- */

static void test_kernel_missing(void **state)
{
    void *b = cfg("config-good");
    del(b, "rtos0", "kernel");
    EXPECT(load_free(b), { "rtos0", "kernel", "missing image" });
}

static void test_kernel_empty(void **state)
{
    void *b = cfg("config-good");
    set_bytes(b, "rtos0", "kernel", "", 0);
    EXPECT(load_free(b), { "rtos0", "kernel", "empty image" });
}

/* pmu = "on" (the default) or "off"; nothing else */
static void test_pmu_property(void **state)
{
    void *b = cfg("config-good");
    set_str(b, "rtos0", "pmu", "off");
    EXPECT_OK(load(b));
    assert_false(guest("rtos0")->pmu);
    assert_true(guest("linux0")->pmu);          /* not given: on */
    set_str(b, "rtos0", "pmu", "on");
    EXPECT_OK(load(b));
    assert_true(guest("rtos0")->pmu);
    set_str(b, "rtos0", "pmu", "maybe");
    EXPECT(load(b), { "rtos0", "pmu", "\"maybe\": use \"on\" or \"off\"" });
    set_bytes(b, "rtos0", "pmu", "on", 2);       /* no NUL */
    EXPECT(load_free(b), { "rtos0", "pmu", "not a string" });
}

/* ---- interrupts = "direct" (docs/direct-interrupts.md) ---- */

/* on QEMU virt started in the secure world: Group 0 is the hypervisor's */
static int load_secure(const void *blob)
{
    struct config_host h = host_of(&virt, virt_dtb);
    h.group0 = true;
    h.start_mode = "secure";
    return load_with(blob, &h);
}

static void test_irq_mode_property(void **state)
{
    void *b = cfg("config-good");
    EXPECT_OK(load(b));
    assert_int_equal(guest("rtos0")->irq_mode, IRQ_VIRTUAL);   /* not given */
    set_str(b, "rtos0", "interrupts", "virtual");
    EXPECT_OK(load(b));
    assert_int_equal(guest("rtos0")->irq_mode, IRQ_VIRTUAL);
    set_str(b, "rtos0", "interrupts", "direct");
    set_str(b, "rtos0", "pmu", "off");
    EXPECT_OK(load_secure(b));
    assert_int_equal(guest("rtos0")->irq_mode, IRQ_DIRECT);
    assert_int_equal(guest("linux0")->irq_mode, IRQ_VIRTUAL);
    set_str(b, "rtos0", "interrupts", "fast");
    EXPECT(load_secure(b), { "rtos0", "interrupts", "\"fast\": use \"virtual\" or \"direct\"" });
    set_bytes(b, "rtos0", "interrupts", "direct", 6);   /* no NUL */
    EXPECT(load_free(b), { "rtos0", "interrupts", "not a string" });
}

/* Without Group 0 (a non-secure start) the hypervisor could not keep the CPU */
static void test_direct_needs_secure_start(void **state)
{
    void *b = cfg("config-good");
    set_str(b, "rtos0", "interrupts", "direct");
    set_str(b, "rtos0", "pmu", "off");
    EXPECT(load(b), { "rtos0", "interrupts", "needs Partita started in the secure world" });
    struct config_host h = host_of(&virt, virt_dtb);
    h.start_mode = "nonsecure-hyp";
    EXPECT(load_with(b, &h), { "rtos0", "interrupts", "this start: nonsecure-hyp" });
    EXPECT_OK(load_secure(b));
    free(b);
}

/* Its CPUs alone, not the monitor's CPU 0, no PMU interrupt */
static void test_direct_cpus(void **state)
{
    void *b = cfg("config-good");
    set_str(b, "rtos0", "interrupts", "direct");
    EXPECT(load_secure(b), { "rtos0", "interrupts", "give it pmu = \"off\"" });
    set_str(b, "rtos0", "pmu", "off");
    set_cells(b, "rtos0", "time-slice-us", 1, 1000);
    EXPECT(load_secure(b), { "rtos0", "interrupts", "no time-slice-us" });
    del(b, "rtos0", "time-slice-us");
    /* a CPU another guest has: the CPU check says so, as for any guest */
    set_cells(b, "rtos0", "cpus", 1, 2);
    EXPECT(load_secure(b), { "rtos0", "cpus", "CPU 2 is already given to guest 'linux0'" });
    /* beside the monitor: CPU 0 (bare0 moved away) */
    set_cells(b, "bare0", "cpus", 1, 3);
    set_cells(b, "rtos0", "cpus", 1, 0);
    EXPECT(load_secure(b), { "rtos0", "interrupts", "CPU 0 takes the monitor console's" });
    set_cells(b, "bare0", "cpus", 1, 0);
    set_cells(b, "rtos0", "cpus", 2, 3, 3);
    EXPECT(load_secure(b), { "rtos0", "cpus", "CPU 3 given twice" });
    free(b);
}

/* Its passthrough interrupts are its own; nothing virtual can reach it */
static void test_direct_interrupt_sources(void **state)
{
    void *b = cfg("config-good");
    set_str(b, "rtos0", "interrupts", "direct");
    set_str(b, "rtos0", "pmu", "off");
    add_pt(b, "rtos0", "mmio", 0x0a000000, 0x1000, 1, 39);   /* linux0 has 39 */
    EXPECT(load_secure(b), { "rtos0", "passthrough interrupts",
                             "interrupt 39 is already given to guest 'linux0'" });
    free(b);
    b = cfg("config-good");
    set_str(b, "rtos0", "interrupts", "direct");
    set_str(b, "rtos0", "pmu", "off");
    add_pt(b, "rtos0", "mmio", 0x0a000000, 0x1000, 1, 27);
    EXPECT(load_secure(b), { "rtos0", "passthrough interrupts", "reserved by the hypervisor" });
    free(b);
    b = cfg("config-good");
    set_str(b, "rtos0", "interrupts", "direct");
    set_str(b, "rtos0", "pmu", "off");
    set_cells(b, "rtos0", "virtio-console", 2, 0x0a000000, 40);
    EXPECT(load_secure(b), { "rtos0", "interrupts", "a virtio console cannot be given to it" });
    del(b, "rtos0", "virtio-console");
    set_bytes(b, "rtos0", "control", "", 0);
    EXPECT(load_secure(b), { "rtos0", "interrupts", "control cannot be given to it" });
    free(b);
}

/* ---- the control capability ---- */

static void test_control_all_rights(void **state)
{
    void *b = cfg("config-good");
    set_bytes(b, "linux0", "control", "", 0);
    EXPECT_OK(load(b));
    assert_int_equal(guest("linux0")->control, CONTROL_ALL);
    /* every other guest, not itself */
    assert_int_equal(guest("linux0")->control_guests, 0x6);
    assert_int_equal(guest("rtos0")->control, 0);
    assert_int_equal(guest("rtos0")->control_guests, 0);
    EXPECT_WARNINGS(END);
    free(b);
}

static void test_control_rights_and_guests(void **state)
{
    void *b = cfg("config-good");
    static const char rights[] = "list\0stop\0load";
    static const char targets[] = "bare0";
    set_bytes(b, "linux0", "control", rights, sizeof(rights));
    set_bytes(b, "linux0", "control-guests", targets, sizeof(targets));
    EXPECT_OK(load(b));
    assert_int_equal(guest("linux0")->control, CONTROL_LIST | CONTROL_STOP | CONTROL_LOAD);
    assert_int_equal(guest("linux0")->control_guests, 1u << 2);
    free(b);
}

static void test_control_errors(void **state)
{
    void *b = cfg("config-good");
    static const char rights[] = "list\0reboot";
    set_bytes(b, "linux0", "control", rights, sizeof(rights));
    EXPECT(load(b), { "linux0", "control", "\"reboot\": use \"list\"" });
    set_bytes(b, "linux0", "control", "list", 4);       /* no NUL */
    EXPECT(load(b), { "linux0", "control", "not a list of strings" });
    set_bytes(b, "linux0", "control", "", 0);
    static const char targets[] = "rtos0\0nobody\0linux0";
    set_bytes(b, "linux0", "control-guests", targets, sizeof(targets));
    EXPECT(load(b), { "linux0", "control-guests", "no guest 'nobody'" },
           { "linux0", "control-guests", "cannot manage itself" });
    assert_int_equal(guest("linux0")->control_guests, 1u << 1);
    set_bytes(b, "linux0", "control-guests", "", 0);
    EXPECT(load(b), { "linux0", "control-guests", "not a list of guest names" });
    set_str(b, "rtos0", "control-guests", "bare0");
    EXPECT(load_free(b), { "linux0", "control-guests", "not a list of guest names" },
           { "rtos0", "control-guests", "given without control" });
}

static void test_control_check(void **state)
{
    void *b = cfg("config-good");
    static const char rights[] = "list\0stop";
    set_bytes(b, "linux0", "control", rights, sizeof(rights));
    set_str(b, "linux0", "control-guests", "bare0");
    EXPECT_OK(load_free(b));
    const struct guest_config *l = guest("linux0"), *r = guest("rtos0");
    /* linux0 is guest 0, rtos0 1, bare0 2 */
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_VERSION, 99), 0);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_STOP, 2), 0);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_INFO, 2), 0);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_INFO, 0), 0);      /* itself */
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_STOP, 0), PARTITA_E_DENIED);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_STOP, 1), PARTITA_E_DENIED);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_START, 2), PARTITA_E_DENIED);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_LOAD, 2), PARTITA_E_DENIED);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_STOP, 3), PARTITA_E_INVALID);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_STOP, 0xffffffffu), PARTITA_E_INVALID);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_LAST + 1, 2), PARTITA_E_NOT_SUPPORTED);
    /* the schedules: read with list, switched with the right of their own;
     * r1 is a schedule, not a guest, so any value passes here */
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_SCHEDULE, 77), 0);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_SCHEDULE_SET, 1), PARTITA_E_DENIED);
    /* a budget: read with list, changed with the right of its own */
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_BUDGET, 2), 0);
    assert_int_equal(control_check(l, 0, 3, PARTITA_MG_BUDGET_SET, 2), PARTITA_E_DENIED);
    /* no control at all: every call denied, whatever the arguments */
    uint32_t x = 12345;
    for (int i = 0; i < 1000; i++) {
        x = x * 1103515245u + 12345u;
        uint32_t fn = PARTITA_MG_FIRST + x % (PARTITA_MG_LAST - PARTITA_MG_FIRST + 1);
        uint32_t id = x >> 20;
        assert_int_equal(control_check(r, 1, 3, fn, id), PARTITA_E_DENIED);
    }
}

static void test_guest_buffer(void **state)
{
    void *b = cfg("config-good");
    EXPECT_OK(load_free(b));
    const struct guest_config *r = guest("rtos0");     /* 16 MiB at 0x60000000, IPA 0x40000000 */
    const struct guest_config *l = guest("linux0");    /* 256 MiB, identity at 0x50000000 */
    uint64_t pa = 0;
    assert_true(guest_config_buffer(r, 0x40000000u, 4096, &pa));
    assert_int_equal(pa, 0x60000000u);
    assert_true(guest_config_buffer(r, 0x40fff000u, 0x1000, &pa));     /* up to its end */
    assert_int_equal(pa, 0x60fff000u);
    assert_false(guest_config_buffer(r, 0x40fff001u, 0x1000, &pa));    /* straddles the end */
    assert_false(guest_config_buffer(r, 0x41000000u, 1, &pa));         /* just after */
    assert_false(guest_config_buffer(r, 0x3ffff000u, 0x2000, &pa));    /* starts before */
    assert_false(guest_config_buffer(r, 0x40000000u, 0, &pa));         /* empty */
    assert_false(guest_config_buffer(r, 0x40000100u, 0xffffffffu, &pa)); /* wraps */
    assert_false(guest_config_buffer(r, 0x08000000u, 4, &pa));         /* a device */
    assert_false(guest_config_buffer(r, 0x60000000u, 4, &pa));         /* its PA is no IPA */
    assert_true(guest_config_buffer(l, 0x50000000u, 16, &pa));         /* identity */
    assert_int_equal(pa, 0x50000000u);
    assert_false(guest_config_buffer(l, 0x40000000u, 16, &pa));
}

static void test_control_page_collides(void **state)
{
    /* a control partition's management page is part of its board */
    void *b = cfg("config-good");
    set_bytes(b, "rtos0", "control", "", 0);
    add_pt(b, "rtos0", "mgmt", 0x090c1000, 0x1000, 0);
    EXPECT(load(b), { "rtos0", "passthrough reg", "collides with the guest's own management page" });
    del(b, "rtos0", "control");
    EXPECT(load_free(b), { "rtos0", "passthrough reg", "is not a device of the host" });
}

static void test_run_time_image_check(void **state)
{
    /* an image given at run time gets the configured image's checks */
    void *b = cfg("config-good");
    EXPECT_OK(load_free(b));
    struct guest_config c = *guest("rtos0");        /* 16 MiB, raw at 0x10000 */
    nlines = 0;
    assert_int_equal(config_check_guest_image(&c, collect, lines), 0);
    c.mem_size = 0x20000;                            /* the store took the rest */
    c.kernel_size = 0x8000;
    assert_int_equal(config_check_guest_image(&c, collect, lines), 1);
    assert_non_null(strstr(lines[0].text, "guest 'rtos0': property 'kernel': image"));
    c.mem_size = 0x8000;                             /* not even the DTB */
    nlines = 0;
    assert_true(config_check_guest_image(&c, collect, lines) >= 1);
    assert_non_null(strstr(lines[0].text, "property 'memory': no room for the device tree"));
    c = *guest("linux0");
    c.kernel_size = 0x10000000;                      /* a zImage over the 256 MiB window */
    nlines = 0;
    assert_int_equal(config_check_guest_image(&c, collect, lines), 1);
    assert_non_null(strstr(lines[0].text, "guest 'linux0': property 'initrd'"));
}

static void test_initrd_empty(void **state)
{
    void *b = cfg("config-good");
    set_bytes(b, "linux0", "initrd", "", 0);
    EXPECT(load_free(b), { "linux0", "initrd", "empty image" });
}

static void test_bad_kernel_format(void **state)
{
    void *b = cfg("config-good");
    set_str(b, "rtos0", "kernel-format", "elf");
    EXPECT(load_free(b), { "rtos0", "kernel-format", "\"elf\": use \"linux\" or \"raw\"" });
    b = cfg("config-good");
    set_str(b, "rtos0", "kernel-format", "Linux");  /* exact */
    EXPECT(load_free(b), { "rtos0", "kernel-format", "\"Linux\"" });
}

static void test_bad_on_crash(void **state)
{
    void *b = cfg("config-good");
    set_str(b, "rtos0", "on-crash", "reboot");
    EXPECT(load_free(b), { "rtos0", "on-crash", "\"reboot\": use \"stop\" or \"restart\"" });
}

static void test_console_rate(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "console-rate", 2, 1200, 4096);
    EXPECT_OK(load_free(b));
    assert_int_equal(guest("rtos0")->console_rate, 1200);
    assert_int_equal(guest("rtos0")->console_burst, 4096);
    assert_int_equal(guest("linux0")->console_rate, 16384);     /* the defaults */
    assert_int_equal(guest("linux0")->console_burst, 65536);
    b = cfg("config-good");
    set_cells(b, "rtos0", "console-rate", 1, 50000);
    EXPECT_OK(load_free(b));
    assert_int_equal(guest("rtos0")->console_burst, 65536);
    b = cfg("config-good");
    set_cells(b, "rtos0", "console-rate", 2, 10, 100);
    EXPECT(load_free(b), { "rtos0", "console-rate", "10 characters a second: use 100 to" },
           { "rtos0", "console-rate", "burst of 100 characters: use 256 to" });
    b = cfg("config-good");
    set_cells(b, "rtos0", "console-rate", 3, 1000, 1000, 1000);
    EXPECT(load_free(b), { "rtos0", "console-rate", "must be <characters-per-second>" });
}

/* strings must be strings: "linux" without its NUL is no kernel-format */
static void test_unterminated_strings(void **state)
{
    static const char *const props[] = { "kernel-format", "on-crash", "bootargs" };
    for (size_t i = 0; i < 3; i++) {
        void *b = cfg("config-good");
        set_bytes(b, "rtos0", props[i], i == 1 ? "stop" : "linux", i == 1 ? 4 : 5);
        EXPECT(load_free(b), { "rtos0", props[i], "not a string" });
    }
}

/*
 * The same at the very end of the blob: the header is sane, the structure
 * block ends in the property's last byte ("linu", no NUL).  Reading the
 * property as a C string runs off the buffer (ASan).
 *   0 header | 40 rsvmap end | 56 strings | 84 struct ... | 156 end
 */
static void test_unterminated_string_at_end_of_blob(void **state)
{
    static const char strings[] = "compatible\0kernel-format";   /* 25 bytes */
    uint8_t *b = calloc(1, 156);
    assert_non_null(b);
    uint8_t *p = b + 84;
#define BE(v) do { fdt32_st(p, (v)); p += 4; } while (0)
    BE(FDT_BEGIN_NODE); BE(0);
    BE(FDT_BEGIN_NODE); memcpy(p, "partita", 8); p += 8;
    BE(FDT_BEGIN_NODE); memcpy(p, "g", 2); p += 4;
    BE(FDT_PROP); BE(14); BE(0); memcpy(p, "partita,guest", 14); p += 16;
    BE(FDT_PROP); BE(4); BE(11); memcpy(p, "linu", 4); p += 4;
#undef BE
    assert_int_equal(p - b, 156);
    memcpy(b + 56, strings, sizeof(strings));
    fdt32_st(b + 0, FDT_MAGIC);
    fdt32_st(b + 4, 156);               /* totalsize */
    fdt32_st(b + 8, 84);                /* off_dt_struct */
    fdt32_st(b + 12, 56);               /* off_dt_strings */
    fdt32_st(b + 16, 40);               /* off_mem_rsvmap */
    fdt32_st(b + 20, 17);
    fdt32_st(b + 24, 16);
    fdt32_st(b + 32, sizeof(strings));
    fdt32_st(b + 36, 72);               /* size_dt_struct */
    assert_int_equal(fdt_check_header(b), 0);
    int rc = load(b);
    assert_true(rc > 0);
    EXPECT(rc, { "g", "cpus", "missing" }, { "g", "memory", "missing" },
           { "g", "kernel", "missing image" }, { "g", "kernel-format", "not a string" });
    free(b);
}

static void test_raw_image_larger_than_memory(void **state)
{
    void *b = cfg("config-good");
    b = set_big(b, "bare0", "kernel", 0x800000);
    EXPECT(load_free(b), { "bare0", "kernel", "image (8388608 bytes at offset 0x1000) does not "
                                              "fit in memory" });
    /* by one byte, high in a large RAM (clear of the device tree) */
    b = cfg("config-good");
    set_cells(b, "linux0", "memory", 2, 0x50000000, 0x01000000);
    set_cells(b, "bare0", "memory", 2, 0x61000000, 0x14000000);
    set_cells(b, "bare0", "load-offset", 1, 0x13fff000);
    b = set_big(b, "bare0", "kernel", 0x1000);
    EXPECT_OK(load(b));
    b = set_big(b, "bare0", "kernel", 0x1001);
    EXPECT(load_free(b), { "bare0", "kernel", "does not fit in memory" });
}

/* the loader writes the guest's DTB in the top 64 KiB of the first 256 MiB */
static void test_raw_image_over_device_tree(void **state)
{
    void *b = cfg("config-good");               /* bare0: 8 MiB, image at 0x1000 */
    b = set_big(b, "bare0", "kernel", 0x7ef000);
    EXPECT_OK(load(b));
    b = set_big(b, "bare0", "kernel", 0x7ef001);
    EXPECT(load(b), { "bare0", "kernel", "overlaps the device tree at offset 0x7f0000" });
    /* above the first 256 MiB an image is clear of it */
    set_cells(b, "linux0", "memory", 2, 0x50000000, 0x01000000);
    set_cells(b, "bare0", "memory", 2, 0x61000000, 0x14000000);
    set_cells(b, "bare0", "load-offset", 1, 0x10000000);
    set_cells(b, "bare0", "entry-offset", 1, 0x10000000);
    EXPECT_OK(load_free(b));
}

static void test_entry_outside_memory(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "entry-offset", 1, 0x800000);
    EXPECT(load_free(b), { "bare0", "entry-offset", "outside the guest's memory" });
    b = cfg("config-good");
    set_cells(b, "bare0", "entry-offset", 1, 0x7ffffc);
    EXPECT_OK(load_free(b));
}

static void test_offsets_bad_size(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "load-offset", 2, 0, 0x1000);
    EXPECT(load_free(b), { "bare0", "load-offset", "must be one 32-bit cell" });
    b = cfg("config-good");
    set_bytes(b, "bare0", "entry-offset", "\x10", 1);
    EXPECT(load_free(b), { "bare0", "entry-offset", "must be one 32-bit cell" });
}

static void test_linux_does_not_fit(void **state)
{
    /* 1 MiB: zImage at 32 KiB, initrd and 64 KiB DTB at the top */
    void *b = cfg("config-good");
    set_cells(b, "linux0", "memory", 2, 0x50000000, 0x100000);
    b = set_big(b, "linux0", "initrd", 0x100000 - 0x8000 - 0x1000 - 0x10000);
    EXPECT_OK(load(b));                         /* 80-byte zImage in a page */
    b = set_big(b, "linux0", "initrd", 0x100000 - 0x8000 - 0x1000 - 0x10000 + 1);
    EXPECT(load(b), { "linux0", "initrd", "kernel, initrd and DTB need 1025 KiB, "
                                          "memory is 1024 KiB" });
    del(b, "linux0", "initrd");
    b = set_big(b, "linux0", "kernel", 0x100000 - 0x8000 - 0x10000 + 1);
    EXPECT(load_free(b), { "linux0", "kernel", "need" });
}

/* the initrd is page aligned below the DTB: a zImage that ends inside
 * a page leaves the rest of it unused */
static void test_linux_initrd_page_rounding(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "linux0", "memory", 2, 0x50000000, 0x100000);
    b = set_big(b, "linux0", "kernel", 0x8001);         /* ends at 0x10001 */
    b = set_big(b, "linux0", "initrd", 0xdf000);        /* from 0x11000 to the DTB */
    EXPECT_OK(load(b));
    b = set_big(b, "linux0", "initrd", 0xdf001);        /* would start at 0x10000 */
    EXPECT(load_free(b), { "linux0", "initrd", "kernel, initrd and DTB need" });
}

/* a raw image's initrd is loaded too (page aligned below the DTB, as for
 * Linux): accepted when it fits beside the image, refused otherwise -
 * never accepted and dropped */
static void test_raw_initrd(void **state)
{
    void *b = cfg("config-good");           /* rtos0: 16 MiB, image at 64 KiB */
    set_bytes(b, "rtos0", "initrd", "raw initrd", 10);
    EXPECT_OK(load(b));
    assert_int_equal(guest("rtos0")->initrd_size, 10);
    /* the DTB's 64 KiB at the top: the rest above the 8-byte image is free */
    b = set_big(b, "rtos0", "initrd", 0x1000000 - 0x10000 - 0x11000);
    EXPECT_OK(load(b));
    b = set_big(b, "rtos0", "initrd", 0x1000000 - 0x10000 - 0x10000);   /* onto the image */
    EXPECT(load(b), { "rtos0", "initrd", "overlap the image (8 bytes at offset 0x10000)" });
    b = set_big(b, "rtos0", "initrd", 0x1000000);
    EXPECT(load_free(b), { "rtos0", "initrd", "more than the 16320 KiB below the device tree" });
}

/* the loader puts initrd and DTB in the first 256 MiB, however large RAM is */
static void test_linux_low_window(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "linux0", "memory", 2, 0x50000000, 0x20000000);    /* 512 MiB */
    set_cells(b, "rtos0", "memory", 2, 0x70000000, 0x01000000);
    b = set_big(b, "linux0", "initrd", 0x10000000 - 0x8000 - 0x1000 - 0x10000);
    EXPECT_OK(load(b));
    del(b, "linux0", "initrd");                 /* not copied into the next blob */
    b = set_big(b, "linux0", "initrd", 0x10000000);
    EXPECT(load_free(b), { "linux0", "initrd", "the first 256 MiB" });
}

static void test_bootargs_too_long(void **state)
{
    char s[GUEST_BOOTARGS_MAX + 1];
    memset(s, 'a', sizeof(s));
    s[GUEST_BOOTARGS_MAX - 1] = '\0';           /* 255 characters: fits */
    void *b = cfg("config-good");
    set_str(b, "rtos0", "bootargs", s);
    EXPECT_OK(load(b));
    assert_string_equal(guest("rtos0")->bootargs, s);
    s[GUEST_BOOTARGS_MAX - 1] = 'a';
    s[GUEST_BOOTARGS_MAX] = '\0';               /* 256 characters */
    set_str(b, "rtos0", "bootargs", s);
    EXPECT(load_free(b), { "rtos0", "bootargs", "longer than 255 bytes" });
    assert_string_equal(guest("rtos0")->bootargs, "");
}

/* ---- the configuration as a whole ---- */

static void test_too_many_guests(void **state)
{
    struct platform p = virt;
    p.ncpus = PLAT_MAX_CPUS;
    for (unsigned int i = 0; i < PLAT_MAX_CPUS; i++)
        p.cpus[i] = (struct plat_cpu){ .mpidr = i, .method = CPU_METHOD_PSCI };
    struct config_host h = host_of(&p, virt_dtb);
    h.hyp_start = 0x4f000000;
    h.hyp_end = 0x4f800000;
    void *b = load_dtb("config-many", 0);
    EXPECT(load_with(b, &h), { "g8", NULL, "more than 8 guests" });
    assert_int_equal(sys.nguest_cfg, GUEST_MAX);
    assert_string_equal(sys.guest_cfg[GUEST_MAX - 1].name, "g7");
    /* eight are fine */
    fdt_del_node(b, gnode(b, "g8"));
    EXPECT_OK(load_with(b, &h));
    free(b);
}

static void test_unknown_property_is_a_warning(void **state)
{
    void *b = load_dtb("config-warnings", 0);
    EXPECT_OK(load_free(b));
    EXPECT_WARNINGS({ "solo", "colour", "unknown property" },
                    { "notes", "compatible", "not partita,guest: node ignored" });
    assert_int_equal(sys.nguest_cfg, 1);
    assert_string_equal(sys.guest_cfg[0].name, "solo");
}

static void test_partita_not_compatible(void **state)
{
    void *b = cfg("config-good");
    assert_int_equal(fdt_setprop_string(b, fdt_path_offset(b, "/partita"), "compatible",
                                        "partita,other"), 0);
    EXPECT_OK(load_free(b));
    EXPECT_WARNINGS({ "-", "compatible", "not compatible with partita,config" });
    assert_int_equal(sys.nguest_cfg, 3);
}

static void test_no_partita_node(void **state)
{
    void *b = load_dtb("config-none", 0);
    EXPECT_OK(load_free(b));
    assert_int_equal(nlines, 0);
    assert_int_equal(sys.nguest_cfg, 0);
    /* the host's own tree has none either */
    EXPECT_OK(load(virt_dtb));
    assert_int_equal(nlines, 0);
    assert_int_equal(sys.nguest_cfg, 0);
}

static void test_empty_partita_node(void **state)
{
    void *b = cfg("config-good");
    for (int n; (n = fdt_first_subnode(b, fdt_path_offset(b, "/partita"))) >= 0;)
        assert_int_equal(fdt_del_node(b, n), 0);
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.nguest_cfg, 0);
}

static void test_not_a_device_tree(void **state)
{
    static const char text[64] = "/dts-v1/; / { partita { }; };  -- source, not a blob";
    uint8_t buf[4096];
    EXPECT(load(text), { "-", NULL, "the configuration is not a valid device tree" });
    memset(buf, 0, sizeof(buf));
    EXPECT(load(buf), { "-", NULL, "not a valid device tree" });
    for (size_t i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)(i * 131 + 7);
    EXPECT(load(buf), { "-", NULL, "not a valid device tree" });
    EXPECT(load(NULL), { "-", NULL, "not a valid device tree" });
    /* a blob with a broken header: byte-swapped magic, future version */
    void *b = cfg("config-good");
    fdt32_st(b, 0xedfe0dd0);
    EXPECT(load(b), { "-", NULL, "not a valid device tree" });
    fdt32_st(b, FDT_MAGIC);
    fdt32_st((char *)b + 24, 18);               /* last_comp_version */
    EXPECT(load_free(b), { "-", NULL, "not a valid device tree" });
    assert_int_equal(sys.nguest_cfg, 0);
}

/*
 * Found by fuzz_config: names and values are echoed into the report, and a
 * blob (not dtc) can put any byte in them.  A newline would split the line,
 * an escape sequence would reach the console: both come out as '?'.
 */
static void test_report_control_characters(void **state)
{
    void *b = cfg("config-good");
    int n = fdt_add_subnode(b, fdt_path_offset(b, "/partita"), "odd\n\x1b[2Jname");
    assert_true(n >= 0);
    assert_int_equal(fdt_setprop_string(b, n, "compatible", "vendor,x"), 0);
    set_str(b, "rtos0", "on-crash", "re\rboot\x7f");
    EXPECT(load_free(b), { "rtos0", "on-crash", "\"re?boot?\"" });
    EXPECT_WARNINGS({ "odd??[2Jname", "compatible", "not partita,guest" });
    for (int i = 0; i < nlines; i++)
        for (const char *p = lines[i].text; *p; p++)
            if ((unsigned char)*p < 0x20 || *p == 0x7f)
                fail_msg("control character 0x%02x in \"%s\"", *p, lines[i].text);
}

/* many errors in one configuration: each reported, all counted */
static void test_every_error_reported(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "linux0", "cpus", 2, 1, 9);
    set_str(b, "linux0", "on-crash", "explode");
    set_cells(b, "rtos0", "memory", 2, 0x40000000, 0x01000000);
    set_str(b, "rtos0", "kernel-format", "coff");
    del(b, "bare0", "kernel");
    set_cells(b, "bare0", "cpus", 1, 3);
    EXPECT(load_free(b),
           { "linux0", "cpus", "CPU 9 does not exist" },
           { "linux0", "on-crash", "\"explode\"" },
           { "rtos0", "memory", "overlaps the hypervisor" },
           { "rtos0", "kernel-format", "\"coff\"" },
           { "bare0", "kernel", "missing image" },
           { "bare0", "cpus", "CPU 3 is already given to guest 'rtos0'" });
}


/* ---- channels ---- */

static void del_node(void *b, const char *path)
{
    assert_int_equal(fdt_del_node(b, gnode(b, path)), 0);
}

static void test_channels_parsed(void **state)
{
    void *b = cfg("config-channels");
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.nchannels, 2);
    const struct channel_config *c0 = &sys.channels[0], *c1 = &sys.channels[1];
    assert_string_equal(c0->name, "chan0");
    assert_int_equal(c0->base, 0x5f000000);
    assert_int_equal(c0->size, 0x10000);
    assert_int_equal(c0->nmembers, 2);
    assert_string_equal(c1->name, "log");
    assert_int_equal(c1->base, 0x5f100000);             /* 64-bit cells */
    assert_int_equal(c1->size, 0x4000);

    const struct guest_config *lx = guest("linux"), *rt = guest("rt"), *lg = guest("logger");
    assert_int_equal(lx->nchannels, 1);
    assert_string_equal(lx->channels[0].name, "chan0");
    assert_int_equal(lx->channels[0].id, 0);
    assert_int_equal(lx->channels[0].member, 0);
    assert_int_equal(lx->channels[0].ipa, 0x70000000);
    assert_int_equal(lx->channels[0].base, 0x5f000000);
    assert_int_equal(lx->channels[0].size, 0x10000);
    assert_int_equal(lx->channels[0].doorbell, 64);
    assert_false(lx->channels[0].read_only);            /* access = "rw" */
    assert_int_equal(rt->nchannels, 2);
    assert_int_equal(rt->channels[0].member, 1);
    assert_int_equal(rt->channels[0].ipa, 0x60000000);
    assert_false(rt->channels[0].read_only);            /* rw by default */
    assert_int_equal(rt->channels[1].id, 1);
    assert_int_equal(rt->channels[1].member, 0);
    assert_int_equal(rt->channels[1].doorbell, 41);
    assert_int_equal(lg->nchannels, 1);
    assert_true(lg->channels[0].read_only);
    assert_int_equal(lg->channels[0].member, 1);
    /* members point back at the guests' slots */
    assert_int_equal(c1->members[0].guest, 1);
    assert_int_equal(c1->members[0].slot, 1);
    assert_int_equal(c1->members[1].guest, 2);
    assert_int_equal(c1->members[1].slot, 0);
    /* the guest checks are not disturbed: no channel node counts as a guest */
    assert_int_equal(sys.nguest_cfg, 3);
}

static void test_channel_memory_errors(void **state)
{
    void *b = cfg("config-channels");
    set_cells(b, "chan0", "memory", 2, 0x5f000800, 0x10000);
    set_cells(b, "log", "memory", 2, 0x5f100000, 0);
    EXPECT(load_free(b),
           { "channel:chan0", "memory", "4 KiB aligned" },
           { "channel:log", "memory", "size is 0" });

    b = cfg("config-channels");
    set_cells(b, "chan0", "memory", 2, 0x30000000, 0x10000);        /* flash */
    set_cells(b, "log", "memory", 2, 0x40100000, 0x4000);
    EXPECT(load_free(b),
           { "channel:chan0", "memory", "0x30000000-0x30010000 is outside host RAM" },
           { "channel:log", "memory", "overlaps the hypervisor" });

    b = cfg("config-channels");
    set_cells(b, "chan0", "memory", 2, 0x50ff0000, 0x20000);
    set_cells(b, "log", "memory", 2, 0x51000000, 0x4000);
    EXPECT(load_free(b),
           { "channel:chan0", "memory", "overlaps the memory of guest 'linux'" },
           { "channel:log", "memory", "overlaps the memory of channel 'chan0'" });

    b = cfg("config-channels");
    del(b, "chan0", "memory");
    set_cells(b, "log", "memory", 2, 0x5f100000, 0x80001000);
    EXPECT(load_free(b),
           { "channel:chan0", "memory", "missing" },
           { "channel:log", "memory", "more than 2 GiB" });
}

static void test_channel_members(void **state)
{
    void *b = cfg("config-channels");
    assert_true(fdt_add_subnode(b, gnode(b, "chan0"), "nosuch") >= 0);
    del_node(b, "log/logger");
    EXPECT(load_free(b),
           { "channel:chan0", "nosuch", "no guest of that name" },
           { "channel:log", NULL, "needs at least two guests (has 1)" });

    b = cfg("config-channels");
    del(b, "chan0/linux", "ipa");
    del(b, "chan0/rt", "doorbell");
    set_str(b, "log/logger", "access", "wo");
    EXPECT(load_free(b),
           { "linux", "chan0/ipa", "missing" },
           { "rt", "chan0/doorbell", "missing" },
           { "logger", "log/access", "\"wo\": use \"rw\" or \"ro\"" });
}

static void test_channel_ipa_errors(void **state)
{
    void *b = cfg("config-channels");
    set_cells(b, "chan0/linux", "ipa", 1, 0x70000800);
    set_cells(b, "chan0/rt", "ipa", 1, 0x40ff0000);         /* its RAM */
    set_cells(b, "log/logger", "ipa", 1, 0x49000000);       /* identity-mapped RAM */
    EXPECT(load_free(b),
           { "linux", "chan0/ipa", "0x70000800 is not 4 KiB aligned" },
           { "rt", "chan0/ipa", "collides with the guest's own RAM" },
           { "logger", "log/ipa", "collides with the guest's own RAM" });

    b = cfg("config-channels");
    set_cells(b, "chan0/linux", "ipa", 1, 0x09000000);
    set_cells(b, "chan0/rt", "ipa", 1, 0x07ff0000);         /* doorbell page on the GICD */
    set_cells(b, "log/logger", "ipa", 1, 0xffffe000);       /* 16 KiB + 4 KiB past 4 GiB */
    EXPECT(load_free(b),
           { "linux", "chan0/ipa", "collides with the guest's own UART" },
           { "rt", "chan0/ipa", "0x7ff0000-0x8001000 collides with the guest's own GIC "
                                "distributor" },
           { "logger", "log/ipa", "passes the 4 GiB IPA space" });

    b = cfg("config-channels");
    set_cells(b, "chan0/linux", "ipa", 1, 0x09000000 + 0x8000);    /* over its rtc */
    set_cells(b, "log/rt", "ipa", 1, 0x60010000);           /* chan0's doorbell page */
    EXPECT(load_free(b),
           { "linux", "chan0/ipa", "collides with its passthrough range 0x9010000" },
           { "rt", "log/ipa", "collides with channel 'chan0'" });
}

static void test_channel_doorbell_errors(void **state)
{
    void *b = cfg("config-channels");
    set_cells(b, "chan0/linux", "doorbell", 1, 34);         /* its passthrough rtc */
    set_cells(b, "chan0/rt", "doorbell", 1, 27);            /* a PPI */
    set_cells(b, "log/logger", "doorbell", 1, 256);
    EXPECT(load_free(b),
           { "linux", "chan0/doorbell", "interrupt 34 is passed through to the guest" },
           { "rt", "chan0/doorbell", "interrupt 27 is not an SPI of the virtual GIC (32-255)" },
           { "logger", "log/doorbell", "interrupt 256 is not an SPI" });

    b = cfg("config-channels");
    set_cells(b, "chan0/linux", "doorbell", 1, 33);
    set_cells(b, "log/rt", "doorbell", 1, 40);              /* chan0's in the same guest */
    set_cells(b, "log/logger", "doorbell", 2, 50, 51);
    EXPECT(load_free(b),
           { "linux", "chan0/doorbell", "interrupt 33 is the guest's own emulated UART" },
           { "rt", "log/doorbell", "interrupt 40 is already the doorbell of channel 'chan0'" },
           { "logger", "log/doorbell", "must be one 32-bit cell" });

    /* the same INTID in two different guests is fine: each has its own vGIC */
    b = cfg("config-channels");
    set_cells(b, "chan0/rt", "doorbell", 1, 64);
    EXPECT_OK(load_free(b));
}

static void test_channel_unknown_properties(void **state)
{
    void *b = cfg("config-channels");
    set_cells(b, "chan0", "size", 1, 4096);
    set_cells(b, "chan0/rt", "irq", 1, 40);
    EXPECT_OK(load(b));
    EXPECT_WARNINGS({ "channel:chan0", "size", "unknown property" },
                    { "rt", NULL, "chan0/irq: unknown property" });
    free(b);
}

static void test_channel_limits(void **state)
{
    /* a guest in more channels than it has doorbell pages for */
    void *b = cfg("config-channels");
    int root = fdt_path_offset(b, "/partita");
    for (int i = 0; i < (int)GUEST_MAX_CHANNELS; i++) {
        char n[24];
        snprintf(n, sizeof(n), "extra%d", i);
        int c = fdt_add_subnode(b, root, n);
        assert_true(c >= 0);
        assert_int_equal(fdt_setprop_string(b, c, "compatible", "partita,channel"), 0);
        fdt32_t mem[2] = { cpu_to_fdt32(0x5e000000 + i * 0x10000), cpu_to_fdt32(0x1000) };
        assert_int_equal(fdt_setprop(b, c, "memory", mem, 8), 0);
        for (int g = 0; g < 2; g++) {
            int m = fdt_add_subnode(b, c, g ? "rt" : "linux");
            assert_true(m >= 0);
            assert_int_equal(fdt_setprop_u32(b, m, "ipa", 0x80000000u + i * 0x100000), 0);
            assert_int_equal(fdt_setprop_u32(b, m, "doorbell", 100 + i), 0);
        }
    }
    /* fdt_add_subnode puts each first: extra3..extra0, then chan0 and log,
     * which are one too many for linux and two too many for rt */
    EXPECT(load_free(b),
           { "linux", "chan0", "a member of more than 4 channels" },
           { "rt", "chan0", "a member of more than 4 channels" },
           { "rt", "log", "a member of more than 4 channels" },
           { "channel:chan0", NULL, "needs at least two guests (has 0)" },
           { "channel:log", NULL, "needs at least two guests (has 1)" });
}

/* ---- networks ---- */

static void test_network_parsed(void **state)
{
    void *b = cfg("config-network");
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.nnetworks, 1);
    assert_string_equal(sys.networks[0].name, "lan");
    assert_int_equal(sys.networks[0].nmembers, 3);
    assert_int_equal(sys.nguest_cfg, 3);                   /* no network node is a guest */
    const struct guest_config *lx = guest("linux"), *rt = guest("rt"), *ec = guest("echo");
    assert_int_equal(lx->nnets, 1);
    assert_string_equal(lx->nets[0].name, "lan");
    assert_int_equal(lx->nets[0].ipa, 0x0a000000);
    assert_int_equal(lx->nets[0].irq, 48);
    assert_memory_equal(lx->nets[0].mac, ((uint8_t[]){ 2, 0, 0, 0, 0, 1 }), 6);
    assert_int_equal(lx->nets[0].budget, NET_BUDGET_DEFAULT);
    assert_int_equal(lx->nets[0].rate, 0);                /* no limit */
    assert_int_equal(rt->nets[0].member, 1);
    assert_int_equal(rt->nets[0].budget, 16);
    /* no mac: derived from the network and the member */
    assert_memory_equal(rt->nets[0].mac, ((uint8_t[]){ 2, 0x50, 0x54, 0, 0, 1 }), 6);
    assert_memory_equal(ec->nets[0].mac, ((uint8_t[]){ 2, 0x50, 0x54, 0, 0, 2 }), 6);
    assert_int_equal(sys.networks[0].members[2].guest, 2);
    assert_int_equal(sys.networks[0].members[2].slot, 0);
}

static void test_network_members(void **state)
{
    void *b = cfg("config-network");
    assert_true(fdt_add_subnode(b, gnode(b, "lan"), "nosuch") >= 0);
    del(b, "lan/linux", "ipa");
    del(b, "lan/rt", "interrupt");
    set_cells(b, "lan/echo", "frame-budget", 1, 0);
    EXPECT(load_free(b),
           { "network:lan", "nosuch", "no guest of that name" },
           { "linux", "lan/ipa", "missing" },
           { "rt", "lan/interrupt", "missing" },
           { "echo", "lan/frame-budget", "0 frames: give 1 to 1024" });

    b = cfg("config-network");
    del_node(b, "lan/rt");
    del_node(b, "lan/echo");
    set_cells(b, "lan/linux", "frame-budget", 2, 1, 2);
    set_cells(b, "lan/linux", "frame-rate", 1, 0);
    EXPECT(load_free(b),
           { "network:lan", NULL, "needs at least two guests (has 1)" },
           { "linux", "lan/frame-budget", "must be one 32-bit cell" },
           { "linux", "lan/frame-rate", "0 frames a second: give 1 to 10000000" });

    b = cfg("config-network");
    set_cells(b, "lan/rt", "frame-rate", 1, 5000);
    EXPECT_OK(load_free(b));
    assert_int_equal(guest("rt")->nets[0].rate, 5000);
}

static void test_network_mac_errors(void **state)
{
    void *b = cfg("config-network");
    set_bytes(b, "lan/linux", "mac", (uint8_t[]){ 3, 0, 0, 0, 0, 1 }, 6);
    set_bytes(b, "lan/rt", "mac", (uint8_t[]){ 2, 0, 0, 0, 1 }, 5);
    set_bytes(b, "lan/echo", "mac", (uint8_t[]){ 0, 0, 0, 0, 0, 0 }, 6);
    EXPECT(load_free(b),
           { "linux", "lan/mac", "03:00:00:00:00:01 is a multicast address" },
           { "rt", "lan/mac", "must be 6 bytes" },
           { "echo", "lan/mac", "00:00:00:00:00:00 is no address" });

    /* a configured MAC may clash with another member's, derived or not */
    b = cfg("config-network");
    set_bytes(b, "lan/echo", "mac", (uint8_t[]){ 2, 0x50, 0x54, 0, 0, 1 }, 6);
    EXPECT(load_free(b),
           { "echo", "lan/mac", "02:50:54:00:00:01 is already the address of guest 'rt'" });
}

static void test_network_ipa_errors(void **state)
{
    void *b = cfg("config-network");
    set_cells(b, "lan/linux", "ipa", 1, 0x0a000100);
    set_cells(b, "lan/rt", "ipa", 1, 0x40000000);           /* its RAM */
    set_cells(b, "lan/echo", "ipa", 1, 0x09000000);
    EXPECT(load_free(b),
           { "linux", "lan/ipa", "0xa000100 is not 0x200 aligned" },
           { "rt", "lan/ipa", "collides with the guest's own RAM" },
           { "echo", "lan/ipa", "collides with the guest's own UART" });

    b = cfg("config-network");
    set_cells(b, "lan/linux", "ipa", 1, 0x09010e00);        /* the page of its rtc */
    set_cells(b, "lan/rt", "ipa", 1, 0x60010000);           /* chan0's doorbell page */
    set_cells(b, "lan/echo", "ipa", 1, 0x08000200);
    EXPECT(load_free(b),
           { "linux", "lan/ipa", "collides with its passthrough range 0x9010000" },
           { "rt", "lan/ipa", "collides with channel 'chan0'" },
           { "echo", "lan/ipa", "collides with the guest's own GIC distributor" });
}

static void test_network_irq_errors(void **state)
{
    void *b = cfg("config-network");
    set_cells(b, "lan/linux", "interrupt", 1, 34);          /* its passthrough rtc */
    set_cells(b, "lan/rt", "interrupt", 1, 40);             /* chan0's doorbell */
    set_cells(b, "lan/echo", "interrupt", 1, 27);
    EXPECT(load_free(b),
           { "linux", "lan/interrupt", "interrupt 34 is passed through to the guest" },
           { "rt", "lan/interrupt", "interrupt 40 is the doorbell of channel 'chan0'" },
           { "echo", "lan/interrupt", "interrupt 27 is not an SPI of the virtual GIC" });

    b = cfg("config-network");
    set_cells(b, "lan/linux", "interrupt", 1, 33);
    set_cells(b, "lan/echo", "interrupt", 1, 256);
    EXPECT(load_free(b),
           { "linux", "lan/interrupt", "interrupt 33 is the guest's own emulated UART" },
           { "echo", "lan/interrupt", "interrupt 256 is not an SPI" });
}

/* a second network in the same guest: its device and SPI must differ */
static void test_network_two_in_a_guest(void **state)
{
    void *b = cfg("config-network");
    int root = fdt_path_offset(b, "/partita");
    int n = fdt_add_subnode(b, root, "wan");
    assert_true(n >= 0);
    assert_int_equal(fdt_setprop_string(b, n, "compatible", "partita,network"), 0);
    const char *names[] = { "linux", "rt" };
    for (int i = 0; i < 2; i++) {
        int m = fdt_add_subnode(b, n, names[i]);
        assert_true(m >= 0);
        assert_int_equal(fdt_setprop_u32(b, m, "ipa", 0x0a000000), 0);
        assert_int_equal(fdt_setprop_u32(b, m, "interrupt", 48), 0);
    }
    /* wan comes first (fdt_add_subnode), so lan's devices are the second */
    EXPECT(load_free(b),
           { "linux", "lan/ipa", "collides with the device of network 'wan'" },
           { "linux", "lan/interrupt", "interrupt 48 is the interrupt of network 'wan'" });
}

static void test_network_unknown_properties(void **state)
{
    void *b = cfg("config-network");
    set_cells(b, "lan", "mtu", 1, 1500);
    set_cells(b, "lan/rt", "irq", 1, 40);
    EXPECT_OK(load(b));
    EXPECT_WARNINGS({ "network:lan", "mtu", "unknown property" },
                    { "rt", NULL, "lan/irq: unknown property" });
    free(b);
}

/* ---- disks ---- */

static void test_disk_parsed(void **state)
{
    void *b = cfg("config-disk");
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.ndisks, 1);
    const struct disk_config *d = &sys.disks[0];
    assert_string_equal(d->name, "store");
    assert_int_equal(d->driver, 0);
    assert_int_equal(d->queue_ipa, 0x40a00000);
    assert_int_equal(d->queue_size, 0x100000);
    assert_int_equal(d->irq, 60);
    assert_int_equal(d->done_ipa, 0x0a100000);
    assert_int_equal(d->nfrontends, 2);
    assert_int_equal(sys.nguest_cfg, 3);                   /* no disk node is a guest */
    const struct guest_config *lx = guest("linux"), *rt = guest("rt"), *ec = guest("echo");
    assert_int_equal(lx->ndisks, 0);
    assert_int_equal(rt->ndisks, 1);
    assert_string_equal(rt->disks[0].name, "store");
    assert_int_equal(rt->disks[0].ipa, 0x0a000400);
    assert_int_equal(rt->disks[0].irq, 50);
    assert_int_equal(rt->disks[0].capacity, 0x8000);
    assert_false(rt->disks[0].read_only);
    assert_string_equal(rt->disks[0].backing, "/srv/rt.img");
    assert_int_equal(ec->disks[0].member, 1);
    assert_int_equal(ec->disks[0].capacity, 0x100000000ull);     /* two cells */
    assert_true(ec->disks[0].read_only);
    assert_int_equal(d->frontends[1].guest, 2);
    assert_int_equal(d->frontends[1].slot, 0);
    /* the driver's view, for its device tree */
    assert_int_equal(lx->ndriven, 1);
    assert_int_equal(rt->ndriven, 0);
    assert_string_equal(lx->driven[0].name, "store");
    assert_int_equal(lx->driven[0].id, 0);
    assert_int_equal(lx->driven[0].queue_ipa, 0x40a00000);
    assert_int_equal(lx->driven[0].queue_size, 0x100000);
    assert_int_equal(lx->driven[0].irq, 60);
    assert_int_equal(lx->driven[0].done_ipa, 0x0a100000);
}

/* the done page: optional, a whole page of its own outside the driver's
 * RAM and devices */
static void test_disk_done_errors(void **state)
{
    void *b = cfg("config-disk");
    del(b, "store", "done");
    EXPECT_OK(load_free(b));
    assert_int_equal(sys.disks[0].done_ipa, 0);

    b = cfg("config-disk");
    set_cells(b, "store", "done", 1, 0x0a100800);
    EXPECT(load_free(b), { "linux", "store/done", "0xa100800 is not 4 KiB aligned" });

    b = cfg("config-disk");
    set_cells(b, "store", "done", 2, 0, 0x0a100000);
    EXPECT(load_free(b), { "linux", "store/done", "give the IPA of a 4 KiB page" });

    b = cfg("config-disk");
    set_cells(b, "store", "done", 1, 0);
    EXPECT(load_free(b), { "linux", "store/done", "give the IPA of a 4 KiB page" });

    b = cfg("config-disk");
    set_cells(b, "store", "done", 1, 0x40f00000);
    EXPECT(load_free(b), { "linux", "store/done", "collides with the guest's own RAM" });

    b = cfg("config-disk");
    set_cells(b, "store", "done", 1, 0x09000000);
    EXPECT(load_free(b), { "linux", "store/done", "collides with the guest's own UART" });

    b = cfg("config-disk");
    set_cells(b, "store", "done", 1, 0x70010000);            /* chan0's doorbell page */
    EXPECT(load_free(b), { "linux", "store/done", "collides with channel 'chan0'" });

    b = cfg("config-disk");
    set_cells(b, "store", "done", 1, 0x0a000000);
    EXPECT(load_free(b),
           { "linux", "store/done", "collides with the device of one of its networks" });

    b = cfg("config-disk");
    set_cells(b, "store", "done", 1, 0x09010000);
    EXPECT(load_free(b), { "linux", "store/done", "collides with its passthrough range" });
}

static void test_disk_driver_errors(void **state)
{
    void *b = cfg("config-disk");
    set_str(b, "store", "driver", "nosuch");
    EXPECT(load_free(b), { "disk:store", "driver", "no guest 'nosuch'" });

    b = cfg("config-disk");
    del(b, "store", "driver");
    EXPECT(load_free(b), { "disk:store", "driver", "missing" });

    b = cfg("config-disk");
    del(b, "store", "queue");
    set_cells(b, "store", "interrupt", 2, 60, 61);
    EXPECT(load_free(b),
           { "linux", "store/queue", "missing" },
           { "linux", "store/interrupt", "must be one 32-bit cell" });

    /* a frontend that is its own backend */
    b = cfg("config-disk");
    set_str(b, "store", "driver", "rt");
    EXPECT(load_free(b),
           { "rt", "store", "the driver partition of disk 'store' cannot be its frontend" });

    /* a disk nobody uses */
    b = cfg("config-disk");
    del_node(b, "store/rt");
    del_node(b, "store/echo");
    EXPECT(load_free(b), { "disk:store", NULL, "has no frontend guest" });
}

static void test_disk_queue_errors(void **state)
{
    void *b = cfg("config-disk");
    set_cells(b, "store", "queue", 2, 0x40a00800, 0x100000);
    EXPECT(load_free(b), { "linux", "store/queue", "is not in whole 4 KiB pages" });

    b = cfg("config-disk");
    set_cells(b, "store", "queue", 2, 0x40a00000, 0x1000);
    EXPECT(load_free(b), { "linux", "store/queue", "4 KiB: give 132 KiB to 16 MiB" });

    b = cfg("config-disk");
    set_cells(b, "store", "queue", 2, 0x40f80000, 0x100000);     /* past its 16 MiB */
    EXPECT(load_free(b), { "linux", "store/queue", "is not inside its RAM" });

    b = cfg("config-disk");
    set_cells(b, "store", "queue", 2, 0xfff00000, 0x100000);
    EXPECT(load_free(b), { "linux", "store/queue", "is not inside its RAM" });

    /* over what the loader puts into the driver's RAM: Partita writes the
     * queue's header when the driver starts, over its device tree, its
     * image or its initrd */
    b = cfg("config-disk");
    set_cells(b, "store", "queue", 2, 0x40f00000, 0x100000);
    EXPECT(load_free(b), { "linux", "store/queue", "offset 0xf00000+0x100000 of its RAM "
                                                   "overlaps the device tree" });

    b = cfg("config-disk");
    set_cells(b, "store", "queue", 2, 0x40000000, 0x100000);
    EXPECT(load_free(b), { "linux", "store/queue", "overlaps the kernel image" });

    static const uint8_t initrd[100] = { 1 };
    b = cfg("config-disk");
    set_bytes(b, "linux", "initrd", initrd, sizeof(initrd));
    set_cells(b, "store", "queue", 2, 0x40fc0000, 0x30000);   /* up to the DT, not on it */
    EXPECT(load_free(b), { "linux", "store/queue", "overlaps the initrd" });
    b = cfg("config-disk");
    set_cells(b, "store", "queue", 2, 0x40fc0000, 0x30000);   /* no initrd: nothing there */
    EXPECT_OK(load_free(b));
}

static void test_disk_interrupt_errors(void **state)
{
    void *b = cfg("config-disk");
    set_cells(b, "store", "interrupt", 1, 48);               /* its network device's */
    EXPECT(load_free(b),
           { "linux", "store/interrupt", "interrupt 48 is the interrupt of network 'lan'" });

    b = cfg("config-disk");
    set_cells(b, "store", "interrupt", 1, 64);
    EXPECT(load_free(b),
           { "linux", "store/interrupt", "interrupt 64 is the doorbell of channel 'chan0'" });

    b = cfg("config-disk");
    set_cells(b, "store", "interrupt", 1, 16);
    EXPECT(load_free(b), { "linux", "store/interrupt", "interrupt 16 is not an SPI" });

    b = cfg("config-disk");
    set_cells(b, "linux", "virtio-console", 2, 0x0a000600, 60);
    EXPECT(load_free(b),
           { "linux", "store/interrupt", "interrupt 60 is the interrupt of its virtio console" });
}

static void test_disk_frontend_errors(void **state)
{
    void *b = cfg("config-disk");
    assert_true(fdt_add_subnode(b, gnode(b, "store"), "nosuch") >= 0);
    del(b, "store/rt", "ipa");
    del(b, "store/echo", "capacity");
    EXPECT(load_free(b),
           { "disk:store", "nosuch", "no guest of that name" },
           { "rt", "store/ipa", "missing" },
           { "echo", "store/capacity", "missing" });

    b = cfg("config-disk");
    set_cells(b, "store/rt", "capacity", 1, 0);
    set_cells(b, "store/echo", "capacity", 3, 0, 0, 1);
    EXPECT(load_free(b),
           { "rt", "store/capacity", "0 sectors: give 1 to" },
           { "echo", "store/capacity", "must be one or two 32-bit cells" });

    b = cfg("config-disk");
    set_cells(b, "store/rt", "capacity", 2, 0x00800000, 0);      /* 2^55 sectors: 2^64 bytes */
    del(b, "store/echo", "backing");
    EXPECT(load_free(b),
           { "rt", "store/capacity", "36028797018963968 sectors" },
           { "echo", "store/backing", "missing" });

    b = cfg("config-disk");
    set_str(b, "store/rt", "backing", "my disk");
    set_str(b, "store/echo", "backing", "");
    EXPECT(load_free(b),
           { "rt", "store/backing", "printable characters without spaces" },
           { "echo", "store/backing", "printable characters without spaces" });
}

static void test_disk_device_clashes(void **state)
{
    void *b = cfg("config-disk");
    set_cells(b, "store/rt", "ipa", 1, 0x0a000200);          /* its network device */
    set_cells(b, "store/echo", "ipa", 1, 0x40000000);        /* its RAM */
    EXPECT(load_free(b),
           { "rt", "store/ipa", "collides with the device of network 'lan'" },
           { "echo", "store/ipa", "collides with the guest's own RAM" });

    b = cfg("config-disk");
    set_cells(b, "store/rt", "ipa", 1, 0x0a000600);          /* its virtio console */
    set_cells(b, "store/echo", "interrupt", 1, 33);
    EXPECT(load_free(b),
           { "rt", "store/ipa", "collides with its virtio console" },
           { "echo", "store/interrupt", "interrupt 33 is the guest's own emulated UART" });

    b = cfg("config-disk");
    set_cells(b, "store/rt", "interrupt", 1, 51);            /* its virtio console's */
    set_cells(b, "store/echo", "interrupt", 1, 300);
    EXPECT(load_free(b),
           { "rt", "store/interrupt", "interrupt 51 is the interrupt of its virtio console" },
           { "echo", "store/interrupt", "interrupt 300 is not an SPI" });

    b = cfg("config-disk");
    set_cells(b, "store/rt", "interrupt", 1, 40);            /* chan0's doorbell */
    set_cells(b, "store/rt", "ipa", 1, 0x60000000);          /* chan0's memory */
    EXPECT(load_free(b),
           { "rt", "store/ipa", "collides with channel 'chan0'" },
           { "rt", "store/interrupt", "interrupt 40 is the doorbell of channel 'chan0'" });
}

/* a second disk: its devices clash with the first's in the same guest,
 * and a driver's two queues and interrupts must differ */
static void test_disk_two_disks(void **state)
{
    void *b = cfg("config-disk");
    int root = fdt_path_offset(b, "/partita");
    int n = fdt_add_subnode(b, root, "scratch");
    assert_true(n >= 0);
    assert_int_equal(fdt_setprop_string(b, n, "compatible", "partita,disk"), 0);
    assert_int_equal(fdt_setprop_string(b, n, "driver", "linux"), 0);
    fdt32_t q[2] = { cpu_to_fdt32(0x40a80000), cpu_to_fdt32(0x21000) };
    assert_int_equal(fdt_setprop(b, n, "queue", q, sizeof(q)), 0);
    assert_int_equal(fdt_setprop_u32(b, n, "interrupt", 60), 0);
    int m = fdt_add_subnode(b, n, "rt");
    assert_true(m >= 0);
    assert_int_equal(fdt_setprop_u32(b, m, "ipa", 0x0a000400), 0);
    assert_int_equal(fdt_setprop_u32(b, m, "interrupt", 50), 0);
    assert_int_equal(fdt_setprop_u32(b, m, "capacity", 8), 0);
    assert_int_equal(fdt_setprop_string(b, m, "backing", "/srv/scratch.img"), 0);
    /* scratch comes first (fdt_add_subnode), so store's are the second */
    EXPECT(load_free(b),
           { "linux", "store/queue", "overlaps the queue of disk 'scratch'" },
           { "linux", "store/interrupt", "the request interrupt of disk 'scratch'" },
           { "rt", "store/ipa", "collides with the device of disk 'scratch'" },
           { "rt", "store/interrupt", "interrupt 50 is the interrupt of disk 'scratch'" });
}

/* two frontends on one store: only when neither writes */
static void test_disk_shared_backing(void **state)
{
    void *b = cfg("config-disk");
    set_str(b, "store/echo", "backing", "/srv/rt.img");
    EXPECT(load_free(b), { "echo", "store/backing",
                           "'/srv/rt.img' is already the store of guest 'rt'" });

    b = cfg("config-disk");
    set_str(b, "store/echo", "backing", "/srv/rt.img");
    assert_int_equal(fdt_setprop(b, gnode(b, "store/rt"), "read-only", NULL, 0), 0);
    EXPECT_OK(load_free(b));
}

static void test_disk_unknown_properties(void **state)
{
    void *b = cfg("config-disk");
    set_cells(b, "store", "cache", 1, 1);
    set_cells(b, "store/rt", "irq", 1, 40);
    EXPECT_OK(load(b));
    EXPECT_WARNINGS({ "disk:store", "cache", "unknown property" },
                    { "rt", NULL, "store/irq: unknown property" });
    free(b);
}

/* a guest with every device it may have is accepted, and needs every
 * region its MMIO bus holds (config_check_mmio, GUEST_MAX_MMIO_REGIONS) */
static void test_every_device_fits(void **state)
{
    void *b = cfg("config-alldevices");
    EXPECT_OK(load_free(b));
    const struct guest_config *g = guest("full");
    assert_int_equal(g->nchannels, GUEST_MAX_CHANNELS);
    assert_int_equal(g->nnets, GUEST_MAX_NETS);
    assert_int_equal(g->ndisks, GUEST_MAX_DISKS);
    assert_int_equal(g->ndriven, DISK_MAX - GUEST_MAX_DISKS);
    assert_true(g->vcon && g->control);
    assert_int_equal(GUEST_VBOARD_REGIONS + g->nchannels + 1 + g->nnets + 1 + g->ndisks +
                     g->ndriven, GUEST_MAX_MMIO_REGIONS);
}

static void test_virtio_console(void **state)
{
    void *b = cfg("config-network");
    set_cells(b, "echo", "virtio-console", 2, 0x0a000400, 50);
    EXPECT_OK(load_free(b));
    const struct guest_config *ec = guest("echo");
    assert_true(ec->vcon);
    assert_int_equal(ec->vcon_ipa, 0x0a000400);
    assert_int_equal(ec->vcon_irq, 50);
    assert_false(guest("rt")->vcon);

    b = cfg("config-network");
    set_cells(b, "echo", "virtio-console", 2, 0x0a000000, 48);     /* its network device's */
    set_cells(b, "rt", "virtio-console", 2, 0x0a000410, 33);
    set_cells(b, "linux", "virtio-console", 1, 0x0a000400);
    EXPECT(load_free(b),
           { "echo", "virtio-console", "collides with the device of network 'lan'" },
           { "echo", "virtio-console", "interrupt 48 is the interrupt of network 'lan'" },
           { "rt", "virtio-console", "0xa000410 is not 0x200 aligned" },
           { "rt", "virtio-console", "interrupt 33 is the guest's own emulated UART" },
           { "linux", "virtio-console", "give <IPA INTID>" });
}

/* no report function: the count alone */
static void test_without_report_function(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 7);
    struct config_host h = host_of(&virt, virt_dtb);
    assert_int_equal(config_load(b, &h, &sys, NULL, NULL), 1);
    free(b);
}

/* a host without a platform: only what needs no host is checked */
static void test_without_platform(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "cpus", 1, 7);
    set_cells(b, "bare0", "memory", 2, 0x90000000, 0x800000);
    struct config_host h = { NULL, HYP_START, HYP_END, NULL, 0, false, NULL, 0 };
    EXPECT_OK(load_with(b, &h));
    free(b);
}


/* ---- cache colours (hyp/config/config_colour.c) ---- */

/* config-good on QEMU virt whose cache has n colours */
static int load_colours(void *b, unsigned int n)
{
    struct config_host h = { &virt, HYP_START, HYP_END, virt_dtb, n, false, NULL, 0 };
    int rc = load_with(b, &h);
    free(b);
    return rc;
}

static void set_partita_u32(void *b, const char *prop, uint32_t v)
{
    assert_int_equal(fdt_setprop_u32(b, fdt_path_offset(b, "/partita"), prop, v), 0);
}

static void test_colours_share_a_span(void **state)
{
    /* two guests in one 16 MiB span, 16 colours each of 32 */
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "memory", 2, 0x48000000, 0x800000);
    set_str(b, "rtos0", "colors", "0-15");
    set_cells(b, "bare0", "colors", 16, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
              29, 30, 31);
    EXPECT_OK(load_colours(b, 32));
    const struct guest_config *r = guest("rtos0"), *g = guest("bare0");
    assert_int_equal(r->colours.n, 32);
    assert_int_equal(r->colours.k, 16);
    assert_int_equal(r->colours.colour[15], 15);
    assert_int_equal(g->colours.colour[0], 16);
    assert_int_equal(r->mem_span, 0x1000000 - 16 * 0x1000);  /* ends with colour 15 */
    assert_int_equal(g->mem_span, 0x1000000);
    /* an uncoloured guest spans its memory */
    assert_int_equal(guest("linux0")->mem_span, guest("linux0")->mem_size);
    assert_int_equal(guest("linux0")->colours.n, 0);
}

static void test_colours_overlap_refused(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "rtos0", "memory", 2, 0x48000000, 0x800000);
    set_str(b, "rtos0", "colors", "0-15");
    set_str(b, "bare0", "colors", "15-31");
    EXPECT(load_colours(b, 32), { "bare0", "colors", "colour 15 is also guest 'rtos0''s" },
           { "bare0", "memory", "overlaps the memory of guest 'rtos0'" });
    /* apart in memory, a shared colour is refused all the same: colours
     * are asked for to keep guests out of each other's cache sets */
    b = cfg("config-good");
    set_str(b, "rtos0", "colors", "0-3");
    set_str(b, "bare0", "colors", "3-18");
    EXPECT(load_colours(b, 32), { "bare0", "colors", "colour 3 is also guest 'rtos0''s" });
    /* a coloured and an uncoloured guest never share a span */
    b = cfg("config-good");
    set_cells(b, "rtos0", "memory", 2, 0x48000000, 0x800000);
    set_str(b, "bare0", "colors", "16-31");
    EXPECT(load_colours(b, 32), { "bare0", "memory", "overlaps the memory of guest 'rtos0'" });
}

static void test_colours_bad_values(void **state)
{
    void *b = cfg("config-good");
    set_str(b, "bare0", "colors", "0-40");
    EXPECT(load_colours(b, 32), { "bare0", "colors", "colour 40 does not exist" });
    b = cfg("config-good");
    set_str(b, "bare0", "colors", "0-3");
    EXPECT(load_colours(b, 0), { "bare0", "colors", "no colours to give" });
    b = cfg("config-good");
    set_str(b, "linux0", "colors", "0-3");
    EXPECT(load_colours(b, 32), { "linux0", "colors", "cannot be identity-mapped" });
    b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x48010000, 0x800000);
    set_str(b, "bare0", "colors", "0-3");
    EXPECT(load_colours(b, 32), { "bare0", "colors", "not aligned to the colour period" });
}

/* colours that cannot hold the guest's memory inside host RAM */
static void test_colours_span_outside_ram(void **state)
{
    void *b = cfg("config-good");
    set_cells(b, "bare0", "memory", 2, 0x70000000, 0x01000000);    /* 16 MiB of 1/32 */
    set_str(b, "bare0", "colors", "7");
    EXPECT(load_colours(b, 32), { "bare0", "memory", "is outside host RAM (the pages of "
                                  "its colors)" });
}

/* a network member's or virtio console's rings are read as one block:
 * not of a coloured guest, yet */
static void test_colours_not_with_virtio(void **state)
{
    void *b = cfg("config-network");
    set_str(b, "rt", "colors", "0-31");      /* every colour: no wider than its memory */
    EXPECT(load_colours(b, 32), { "rt", "colors", "cannot have a network device yet" });
    b = cfg("config-good");
    set_str(b, "bare0", "colors", "0-15");
    set_cells(b, "bare0", "virtio-console", 2, 0x0a000000, 48);
    EXPECT(load_colours(b, 32), { "bare0", "colors", "cannot have a virtio console yet" });
}

static void test_colours_llc_way_size(void **state)
{
    /* the CPU says nothing usable (QEMU), the configuration gives 16 */
    void *b = cfg("config-good");
    set_partita_u32(b, "llc-way-size", 0x10000);
    set_str(b, "bare0", "colors", "8-15");
    EXPECT_OK(load_colours(b, 0));
    assert_int_equal(guest("bare0")->colours.n, 16);
    b = cfg("config-good");
    set_partita_u32(b, "llc-way-size", 0x10000);
    set_str(b, "bare0", "colors", "16");
    EXPECT(load_colours(b, 32), { "bare0", "colors", "colour 16 does not exist" });
    b = cfg("config-good");
    set_partita_u32(b, "llc-way-size", 0x3000);
    EXPECT(load_colours(b, 32), { "-", "llc-way-size", "a power of two" });
}

/* the hypervisor's own colours (mm/hyp_colour.h) */
static void test_colours_of_the_hypervisor(void **state)
{
    void *b = cfg("config-good");
    set_str(b, "/partita", "colors", "28-31");
    set_str(b, "bare0", "colors", "0-15");
    EXPECT_OK(load_colours(b, 32));
    assert_int_equal(sys.hyp_colours.n, 32);
    assert_int_equal(sys.hyp_colours.k, 4);
    assert_int_equal(sys.hyp_colours.colour[0], 28);
    /* a coloured guest shares none of them; an uncoloured one has them all anyway */
    b = cfg("config-good");
    set_str(b, "/partita", "colors", "12-15");
    set_str(b, "bare0", "colors", "0-15");
    EXPECT(load_colours(b, 32), { "bare0", "colors", "colour 12 is also the hypervisor's" });
    b = cfg("config-good");
    set_str(b, "/partita", "colors", "0-40");
    EXPECT(load_colours(b, 32), { "/partita", "colors", "colour 40 does not exist" });
    b = cfg("config-good");
    set_str(b, "/partita", "colors", "0-3");
    EXPECT(load_colours(b, 0), { "/partita", "colors", "this cache has no colours" });
    b = cfg("config-good");
    set_str(b, "/partita", "colors", "");
    EXPECT(load_colours(b, 32), { "/partita", "colors", "neither colour cells nor a string" });
    /* none given: not coloured */
    EXPECT_OK(load_colours(cfg("config-good"), 32));
    assert_int_equal(sys.hyp_colours.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_config),
        cmocka_unit_test(test_colours_of_the_hypervisor),
        cmocka_unit_test(test_colours_share_a_span),
        cmocka_unit_test(test_colours_overlap_refused),
        cmocka_unit_test(test_colours_bad_values),
        cmocka_unit_test(test_colours_span_outside_ram),
        cmocka_unit_test(test_colours_llc_way_size),
        cmocka_unit_test(test_colours_not_with_virtio),
        cmocka_unit_test(test_offsets_default_to_zero),
        cmocka_unit_test(test_entry_before_load_offset),
        cmocka_unit_test(test_good_config_without_host_dt),
        cmocka_unit_test(test_memory_overlap_and_conflicts),
        cmocka_unit_test(test_memory_overlap_touching_is_fine),
        cmocka_unit_test(test_memory_overlap_contained),
        cmocka_unit_test(test_memory_outside_ram),
        cmocka_unit_test(test_memory_outside_ram_64bit),
        cmocka_unit_test(test_memory_wraps_address_space),
        cmocka_unit_test(test_memory_over_hypervisor),
        cmocka_unit_test(test_memory_unaligned),
        cmocka_unit_test(test_memory_missing),
        cmocka_unit_test(test_memory_zero_size),
        cmocka_unit_test(test_memory_smaller_than_device_tree),
        cmocka_unit_test(test_memory_over_2g_needs_identity),
        cmocka_unit_test(test_memory_beyond_hypervisor_reach),
        cmocka_unit_test(test_cpu_does_not_exist),
        cmocka_unit_test(test_cpu_twice_in_one_guest),
        cmocka_unit_test(test_cpu_in_two_guests),
        cmocka_unit_test(test_cpu_shared_with_slices),
        cmocka_unit_test(test_cpu_shared_one_side_only),
        cmocka_unit_test(test_cpu_twice_with_slice),
        cmocka_unit_test(test_slice_bounds),
        cmocka_unit_test(test_budget_parsed),
        cmocka_unit_test(test_budget_errors),
        cmocka_unit_test(test_budget_needs),
        cmocka_unit_test(test_health_parsed),
        cmocka_unit_test(test_health_errors),
        cmocka_unit_test(test_health_switch_schedule),
        cmocka_unit_test(test_cpus_missing),
        cmocka_unit_test(test_too_many_vcpus),
        cmocka_unit_test(test_irq_sgi_ppi_reserved),
        cmocka_unit_test(test_irq_maintenance_reserved),
        cmocka_unit_test(test_irq_host_uart_reserved),
        cmocka_unit_test(test_irq_guest_uart),
        cmocka_unit_test(test_irq_in_two_guests),
        cmocka_unit_test(test_irq_does_not_exist),
        cmocka_unit_test(test_too_many_irqs),
        cmocka_unit_test(test_pt_not_a_host_device),
        cmocka_unit_test(test_pt_page_of_small_devices),
        cmocka_unit_test(test_pt_huge_range),
        cmocka_unit_test(test_pt_larger_than_device),
        cmocka_unit_test(test_pt_nested_device),
        cmocka_unit_test(test_pt_unaligned),
        cmocka_unit_test(test_pt_zero_size),
        cmocka_unit_test(test_pt_bad_reg),
        cmocka_unit_test(test_too_many_ranges),
        cmocka_unit_test(test_pt_hypervisor_devices),
        cmocka_unit_test(test_pt_debug_uart),
        cmocka_unit_test(test_pt_by_path),
        cmocka_unit_test(test_pt_by_path_errors),
        cmocka_unit_test(test_pt_host_ram),
        cmocka_unit_test(test_pt_in_two_guests),
        cmocka_unit_test(test_pt_collides_with_virtual_board),
        cmocka_unit_test(test_memory_over_reserved),
        cmocka_unit_test(test_kernel_missing),
        cmocka_unit_test(test_kernel_empty),
        cmocka_unit_test(test_pmu_property),
        cmocka_unit_test(test_control_all_rights),
        cmocka_unit_test(test_control_rights_and_guests),
        cmocka_unit_test(test_control_errors),
        cmocka_unit_test(test_control_check),
        cmocka_unit_test(test_guest_buffer),
        cmocka_unit_test(test_run_time_image_check),
        cmocka_unit_test(test_control_page_collides),
        cmocka_unit_test(test_initrd_empty),
        cmocka_unit_test(test_bad_kernel_format),
        cmocka_unit_test(test_bad_on_crash),
        cmocka_unit_test(test_console_rate),
        cmocka_unit_test(test_unterminated_strings),
        cmocka_unit_test(test_unterminated_string_at_end_of_blob),
        cmocka_unit_test(test_raw_image_larger_than_memory),
        cmocka_unit_test(test_raw_image_over_device_tree),
        cmocka_unit_test(test_entry_outside_memory),
        cmocka_unit_test(test_offsets_bad_size),
        cmocka_unit_test(test_linux_does_not_fit),
        cmocka_unit_test(test_linux_initrd_page_rounding),
        cmocka_unit_test(test_raw_initrd),
        cmocka_unit_test(test_linux_low_window),
        cmocka_unit_test(test_bootargs_too_long),
        cmocka_unit_test(test_too_many_guests),
        cmocka_unit_test(test_unknown_property_is_a_warning),
        cmocka_unit_test(test_partita_not_compatible),
        cmocka_unit_test(test_no_partita_node),
        cmocka_unit_test(test_empty_partita_node),
        cmocka_unit_test(test_not_a_device_tree),
        cmocka_unit_test(test_report_control_characters),
        cmocka_unit_test(test_every_error_reported),
        cmocka_unit_test(test_without_report_function),
        cmocka_unit_test(test_without_platform),
        cmocka_unit_test(test_channels_parsed),
        cmocka_unit_test(test_channel_memory_errors),
        cmocka_unit_test(test_channel_members),
        cmocka_unit_test(test_channel_ipa_errors),
        cmocka_unit_test(test_channel_doorbell_errors),
        cmocka_unit_test(test_channel_unknown_properties),
        cmocka_unit_test(test_channel_limits),
        cmocka_unit_test(test_network_parsed),
        cmocka_unit_test(test_network_members),
        cmocka_unit_test(test_network_mac_errors),
        cmocka_unit_test(test_network_ipa_errors),
        cmocka_unit_test(test_network_irq_errors),
        cmocka_unit_test(test_network_two_in_a_guest),
        cmocka_unit_test(test_network_unknown_properties),
        cmocka_unit_test(test_disk_parsed),
        cmocka_unit_test(test_disk_done_errors),
        cmocka_unit_test(test_disk_driver_errors),
        cmocka_unit_test(test_disk_queue_errors),
        cmocka_unit_test(test_disk_interrupt_errors),
        cmocka_unit_test(test_disk_frontend_errors),
        cmocka_unit_test(test_disk_device_clashes),
        cmocka_unit_test(test_disk_two_disks),
        cmocka_unit_test(test_disk_shared_backing),
        cmocka_unit_test(test_disk_unknown_properties),
        cmocka_unit_test(test_every_device_fits),
        cmocka_unit_test(test_schedule_parsed),
        cmocka_unit_test(test_schedule_shares_cpus),
        cmocka_unit_test(test_schedule_window_errors),
        cmocka_unit_test(test_schedule_frame_errors),
        cmocka_unit_test(test_schedule_set_errors),
        cmocka_unit_test(test_schedule_gang),
        cmocka_unit_test(test_schedule_guest_needs),
        cmocka_unit_test(test_virtio_console),
        cmocka_unit_test(test_irq_mode_property),
        cmocka_unit_test(test_direct_needs_secure_start),
        cmocka_unit_test(test_direct_cpus),
        cmocka_unit_test(test_direct_interrupt_sources),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
