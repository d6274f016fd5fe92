/*
 * Host unit tests for the platform probe (hyp/platform/platform.c).
 *
 * Fixtures are device tree sources in tests/unit/fixtures, compiled by the
 * Makefile into build/unit/fixtures; the runner starts us in build/unit.
 * qemu-virt*.dts are QEMU 7.2's own trees (dumpdtb), virt-*.dts are QEMU
 * virt with one thing broken, vexpress-a15.dts has the UART under nested
 * buses.  Blobs that are no device tree at all are built here.
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
#include "hyp/platform/platform.h"

#define IOFPGA "/smb@8000000/motherboard/iofpga@3,00000000"

static struct platform plat;
static char err[160];

/* ---- helpers ---- */

/* A fixture in a buffer of exactly its size (so ASan sees any overread),
 * with room for extra bytes of edits when extra > 0. */
static void *load_dtb(const char *name, size_t extra, size_t *size)
{
    return fixture_load(name, extra, size);
}

static int probe_blob(const void *fdt)
{
    memset(err, 0, sizeof(err));
    return platform_probe(fdt, &plat, err, sizeof(err));
}

static int probe(const char *name)
{
    void *fdt = load_dtb(name, 0, NULL);
    int rc = probe_blob(fdt);
    free(fdt);
    return rc;
}

static void probe_ok(const char *name)
{
    if (probe(name) != 0)
        fail_msg("%s: platform_probe failed: %s", name, err);
}

#define assert_contains(s, sub) do { \
        if (!strstr((s), (sub))) \
            fail_msg("\"%s\" does not contain \"%s\"", (s), (sub)); \
    } while (0)

/* -1, a one-line error, and it names what it should */
#define assert_probe_fails(name, what1, what2) do { \
        assert_int_equal(probe(name), -1); \
        assert_contains(err, what1); \
        assert_contains(err, what2); \
        assert_null(strchr(err, '\n')); \
    } while (0)

#define assert_range(r, b, s) do { \
        assert_int_equal((r).base, (b)); \
        assert_int_equal((r).size, (s)); \
    } while (0)

#define assert_invalid_dt(fdt) do { \
        assert_int_equal(probe_blob(fdt), -1); \
        assert_contains(err, "invalid device tree"); \
    } while (0)

static int node(const void *fdt, const char *path)
{
    int off = fdt_path_offset(fdt, path);
    if (off < 0)
        fail_msg("no node %s in the fixture", path);
    return off;
}

static void set_cells(void *fdt, const char *path, const char *prop,
                      const uint32_t *v, int n)
{
    fdt32_t cells[16];
    assert_true(n <= 16);
    for (int i = 0; i < n; i++)
        cells[i] = cpu_to_fdt32(v[i]);
    assert_int_equal(fdt_setprop(fdt, node(fdt, path), prop, cells,
                                 n * (int)sizeof(fdt32_t)), 0);
}

/* ---- QEMU virt, virtualization=on, cortex-a15 x 4, 1 GiB ---- */

static void test_qemu_virt_memory(void **state)
{
    probe_ok("qemu-virt");
    assert_string_equal(plat.model, "linux,dummy-virt");
    assert_int_equal(plat.nmem, 1);
    assert_range(plat.mem[0], 0x40000000, 0x40000000);
    assert_int_equal(plat.nrsv, 0);
}

static void test_qemu_virt_cpus(void **state)
{
    probe_ok("qemu-virt");
    assert_int_equal(plat.ncpus, 4);
    for (unsigned int i = 0; i < 4; i++) {
        assert_int_equal(plat.cpus[i].mpidr, i);
        assert_int_equal(plat.cpus[i].method, CPU_METHOD_PSCI);
        assert_int_equal(plat.cpus[i].release_addr, 0);
    }
}

static void test_qemu_virt_gic(void **state)
{
    probe_ok("qemu-virt");
    assert_string_equal(plat.gic.compatible, "arm,cortex-a15-gic");
    assert_range(plat.gic.gicd, 0x08000000, 0x10000);
    assert_range(plat.gic.gicc, 0x08010000, 0x10000);
    assert_range(plat.gic.gich, 0x08030000, 0x10000);
    assert_range(plat.gic.gicv, 0x08040000, 0x10000);
    assert_int_equal(plat.gic.maint_irq, 25);           /* PPI 9 */
}

static void test_qemu_virt_timer(void **state)
{
    probe_ok("qemu-virt");
    assert_int_equal(plat.timer.irq_sec_phys, 29);      /* PPI 13 */
    assert_int_equal(plat.timer.irq_phys, 30);          /* PPI 14 */
    assert_int_equal(plat.timer.irq_virt, 27);          /* PPI 11 */
    assert_int_equal(plat.timer.irq_hyp, 26);           /* PPI 10 */
    assert_int_equal(plat.timer.clock_frequency, 0);
}

static void test_qemu_virt_uart(void **state)
{
    probe_ok("qemu-virt");
    assert_string_equal(plat.uart.path, "/pl011@9000000");
    assert_string_equal(plat.uart.compatible, "arm,pl011");
    assert_int_equal(plat.uart.kind, UART_PL011);
    assert_range(plat.uart.reg, 0x09000000, 0x1000);
    assert_int_equal(plat.uart.irq, 33);                /* SPI 1 */
}

static void test_qemu_virt_psci(void **state)
{
    probe_ok("qemu-virt");
    assert_int_equal(plat.psci.conduit, PSCI_CONDUIT_SMC);
    assert_string_equal(plat.psci.compatible, "arm,psci-1.0");
    assert_int_equal(plat.psci.fn_cpu_on, 0x84000003);
}

/* secure=on: Partita is the firmware; no PSCI node, secure-only devices */
static void test_qemu_virt_secure(void **state)
{
    probe_ok("qemu-virt-secure");
    assert_int_equal(plat.psci.conduit, PSCI_CONDUIT_NONE);
    assert_int_equal(plat.psci.fn_cpu_on, 0);
    assert_int_equal(plat.nmem, 1);         /* secram@e000000 is disabled */
    assert_range(plat.mem[0], 0x40000000, 0x40000000);
    assert_string_equal(plat.uart.path, "/pl011@9000000");  /* not 9040000 */
    assert_range(plat.uart.reg, 0x09000000, 0x1000);
    assert_range(plat.gic.gich, 0x08030000, 0x10000);
    assert_int_equal(plat.ncpus, 4);
    /* QEMU still writes enable-method = "psci": reported as the DT says */
    assert_int_equal(plat.cpus[3].method, CPU_METHOD_PSCI);
}

/* one cortex-a7 without enable-method: it starts through the PSCI node */
static void test_qemu_virt_a7_up(void **state)
{
    probe_ok("qemu-virt-a7-up");
    assert_int_equal(plat.ncpus, 1);
    assert_int_equal(plat.cpus[0].mpidr, 0);
    assert_int_equal(plat.cpus[0].method, CPU_METHOD_PSCI);
    assert_int_equal(plat.psci.conduit, PSCI_CONDUIT_SMC);
    assert_range(plat.gic.gicv, 0x08040000, 0x10000);
}

/* plain -M virt: a GIC without virtualization extensions */
static void test_qemu_virt_without_virtualization(void **state)
{
    assert_probe_fails("qemu-virt-novirt", "intc@8000000", "GICH");
    /* the console is known, so the error can be printed */
    assert_int_equal(plat.uart.kind, UART_PL011);
    assert_range(plat.uart.reg, 0x09000000, 0x1000);
}

/* ---- vexpress: nested buses, alias console, clusters, reservations ---- */

static void test_vexpress_uart_translated(void **state)
{
    probe_ok("vexpress-a15");
    assert_string_equal(plat.model, "V2P-CA15_CA7");
    assert_string_equal(plat.uart.path, IOFPGA "/uart@90000");
    assert_int_equal(plat.uart.kind, UART_PL011);
    assert_range(plat.uart.reg, 0x1c090000, 0x1000);
    /* a 1-cell specifier through the motherboard's interrupt-map: SPI 5 */
    assert_int_equal(plat.uart.irq, 37);
}

static void test_vexpress_cpus(void **state)
{
    static const uint32_t mpidr[] = { 0x000, 0x001, 0x100, 0x101, 0x102 };
    probe_ok("vexpress-a15");
    assert_int_equal(plat.ncpus, 5);
    /* no PSCI, no enable-method: the vexpress system flags start them */
    for (unsigned int i = 0; i < 5; i++) {
        assert_int_equal(plat.cpus[i].mpidr, mpidr[i]);
        assert_int_equal(plat.cpus[i].method, CPU_METHOD_SYSFLAGS);
        assert_int_equal(plat.cpus[i].release_addr, 0x1c010030);   /* SYS_FLAGSSET */
        assert_int_equal(plat.cpus[i].release_clear, 0x1c010034);  /* SYS_FLAGSCLR */
    }
    assert_string_equal(platform_cpu_method_name(plat.cpus[0].method), "vexpress-sysflags");
    assert_int_equal(plat.psci.conduit, PSCI_CONDUIT_NONE);
}

static void test_vexpress_memory_reserved(void **state)
{
    probe_ok("vexpress-a15");
    assert_int_equal(plat.nmem, 1);
    assert_range(plat.mem[0], 0x80000000, 0x40000000);
    /* two /memreserve/, then optee@bfe00000; linux,cma has no reg */
    assert_int_equal(plat.nrsv, 3);
    assert_range(plat.rsv[0], 0x80000000, 0x10000);
    assert_range(plat.rsv[1], 0xff000000, 0x1000000);
    assert_range(plat.rsv[2], 0xbfe00000, 0x200000);
}

static void test_vexpress_gic_timer(void **state)
{
    probe_ok("vexpress-a15");
    assert_string_equal(plat.gic.compatible, "arm,cortex-a15-gic");
    assert_range(plat.gic.gicd, 0x2c001000, 0x1000);
    assert_range(plat.gic.gicc, 0x2c002000, 0x2000);
    assert_range(plat.gic.gich, 0x2c004000, 0x2000);
    assert_range(plat.gic.gicv, 0x2c006000, 0x2000);
    assert_int_equal(plat.gic.maint_irq, 25);
    assert_int_equal(plat.timer.irq_sec_phys, 29);
    assert_int_equal(plat.timer.irq_phys, 30);
    assert_int_equal(plat.timer.irq_virt, 27);
    assert_int_equal(plat.timer.irq_hyp, 26);
    assert_int_equal(plat.timer.clock_frequency, 24000000);
}

/* /chosen rewritten: which UART is the console */
static const struct console_case {
    const char *prop, *value, *path;
    uint64_t base;
} console_cases[] = {
    { "stdout-path", "serial1:115200n8", IOFPGA "/uart@a0000", 0x1c0a0000 },
    { "stdout-path", "serial3", IOFPGA "/uart@c0000", 0x1c0c0000 },
    { "stdout-path", IOFPGA "/uart@b0000:38400n8", IOFPGA "/uart@b0000", 0x1c0b0000 },
    { "stdout-path", IOFPGA "/uart@c0000", IOFPGA "/uart@c0000", 0x1c0c0000 },
    { "linux,stdout-path", "serial2", IOFPGA "/uart@b0000", 0x1c0b0000 },
    /* names nothing: the first arm,pl011 */
    { "stdout-path", "serial7:115200n8", IOFPGA "/uart@90000", 0x1c090000 },
    { "stdout-path", "/smb@8000000/nothing@0", IOFPGA "/uart@90000", 0x1c090000 },
    { "stdout-path", "", IOFPGA "/uart@90000", 0x1c090000 },
};

static void check_console(const struct console_case *c)
{
    void *fdt = load_dtb("vexpress-a15", 1024, NULL);
    int chosen = node(fdt, "/chosen");
    assert_int_equal(fdt_delprop(fdt, chosen, "stdout-path"), 0);
    assert_int_equal(fdt_setprop_string(fdt, chosen, c->prop, c->value), 0);
    if (probe_blob(fdt) != 0)
        fail_msg("%s = \"%s\": %s", c->prop, c->value, err);
    free(fdt);
    assert_string_equal(plat.uart.path, c->path);
    assert_int_equal(plat.uart.reg.base, c->base);
}

static void test_console_selection(void **state)
{
    for (size_t i = 0; i < sizeof(console_cases) / sizeof(console_cases[0]); i++)
        check_console(&console_cases[i]);
}

/* ---- /chosen/partita,debug-uart: gdb's own UART ---- */

/* vexpress with /chosen/partita,debug-uart = value (and uart@c0000 off) */
static int probe_debug_uart(const char *value)
{
    void *fdt = load_dtb("vexpress-a15", 1024, NULL);
    assert_int_equal(fdt_setprop_string(fdt, node(fdt, "/chosen"), "partita,debug-uart", value),
                     0);
    assert_int_equal(fdt_setprop_string(fdt, node(fdt, IOFPGA "/uart@c0000"), "status",
                                        "disabled"), 0);
    int rc = probe_blob(fdt);
    free(fdt);
    return rc;
}

static void test_debug_uart(void **state)
{
    probe_ok("vexpress-a15");       /* none named: gdb shares the console */
    assert_int_equal(plat.debug_uart.kind, UART_NONE);
    /* an alias, translated and its interrupt mapped as the console's */
    if (probe_debug_uart("serial1") != 0)
        fail_msg("serial1: %s", err);
    assert_string_equal(plat.debug_uart.path, IOFPGA "/uart@a0000");
    assert_int_equal(plat.debug_uart.kind, UART_PL011);
    assert_range(plat.debug_uart.reg, 0x1c0a0000, 0x1000);
    assert_int_equal(plat.debug_uart.irq, 38);      /* SPI 6 */
    assert_string_equal(plat.debug_uart.found_by, "/chosen/partita,debug-uart");
    assert_string_equal(plat.uart.path, IOFPGA "/uart@90000");     /* the console stays */
    /* a path with options, as stdout-path may have */
    if (probe_debug_uart(IOFPGA "/uart@b0000:115200n8") != 0)
        fail_msg("uart@b0000: %s", err);
    assert_range(plat.debug_uart.reg, 0x1c0b0000, 0x1000);
}

/* the debug UART's own node edited: its interrupt the console's, or a
 * register layout no driver has */
static int probe_debug_uart_edited(const char *prop, uint32_t value)
{
    void *fdt = load_dtb("vexpress-a15", 1024, NULL);
    assert_int_equal(fdt_setprop_string(fdt, node(fdt, "/chosen"), "partita,debug-uart",
                                        "serial1"), 0);
    assert_int_equal(fdt_setprop_u32(fdt, node(fdt, IOFPGA "/uart@a0000"), prop, value), 0);
    int rc = probe_blob(fdt);
    free(fdt);
    return rc;
}

static void test_debug_uart_node_errors(void **state)
{
    assert_int_equal(probe_debug_uart_edited("interrupts", 5), -1);     /* uart@90000's */
    assert_contains(err, "/chosen/partita,debug-uart: 'serial1' shares the console's "
                         "interrupt 37");
    assert_int_equal(probe_debug_uart_edited("reg-io-width", 3), -1);
    assert_contains(err, "debug UART (/chosen/partita,debug-uart) with an unsupported "
                         "reg-shift 0 or reg-io-width 3");
}

/* named but unusable: an error naming the property and the node, never ignored */
static void test_debug_uart_errors(void **state)
{
    static const struct { const char *value, *why; } cases[] = {
        { "serial7", "no node or alias 'serial7'" },
        { "/smb@8000000/nothing@0", "no node or alias '/smb@8000000/nothing@0'" },
        { "serial0:115200n8", "is the console: the debugger needs a UART of its own" },
        { IOFPGA "/uart@90000", "is the console" },
        { "serial3", "'serial3' is disabled" },
        { "/chosen", "/chosen: debug UART (/chosen/partita,debug-uart) without a usable reg" },
        { IOFPGA "/sysreg@10000", "sysreg@10000 (arm,vexpress-sysreg): no driver for it" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        if (probe_debug_uart(cases[i].value) != -1)
            fail_msg("%s: accepted", cases[i].value);
        assert_contains(err, cases[i].why);
        assert_null(strchr(err, '\n'));
        assert_contains(err, "/chosen/partita,debug-uart");
    }
}

/* ---- dt_node_reg / dt_node_irq directly ---- */

static int reg_of(const void *fdt, const char *path, int index, struct plat_range *r)
{
    *r = (struct plat_range){ 0, 0 };
    return dt_node_reg(fdt, node(fdt, path), index, r);
}

static void test_node_reg_translation(void **state)
{
    void *fdt = load_dtb("vexpress-a15", 0, NULL);
    struct plat_range r;
    assert_int_equal(reg_of(fdt, IOFPGA "/uart@90000", 0, &r), 0);
    assert_range(r, 0x1c090000, 0x1000);
    assert_int_equal(reg_of(fdt, "/smb@8000000/motherboard/ethernet@2,02000000", 0, &r), 0);
    assert_range(r, 0x1a000000, 0x10000);
    assert_int_equal(reg_of(fdt, "/smb@8000000/motherboard/flash@0,00000000", 1, &r), 0);
    assert_range(r, 0x0c000000, 0x04000000);            /* chip select 4 */
    assert_int_equal(reg_of(fdt, "/cci@2c090000/slave-if@5000", 0, &r), 0);
    assert_range(r, 0x2c095000, 0x1000);
    assert_int_equal(reg_of(fdt, "/memory@80000000", 0, &r), 0);
    assert_range(r, 0x80000000, 0x40000000);
    free(fdt);
}

/* 1-cell motherboard interrupts through the smb's interrupt-map (ePAPR 2.4.3) */
static void test_node_irq_interrupt_map(void **state)
{
    void *fdt = load_dtb("vexpress-a15", 256, NULL);
    const char *eth = "/smb@8000000/motherboard/ethernet@2,02000000";
    assert_int_equal(dt_node_irq(fdt, node(fdt, eth), 0), 32 + 15);
    assert_int_equal(dt_node_irq(fdt, node(fdt, IOFPGA "/uart@a0000"), 0), 32 + 6);
    assert_int_equal(dt_node_irq(fdt, node(fdt, eth), 1), -1);    /* only one */
    /* a line the map does not list */
    set_cells(fdt, eth, "interrupts", (uint32_t[]){ 9 }, 1);
    assert_int_equal(dt_node_irq(fdt, node(fdt, eth), 0), -1);
    /* the mask keeps 6 bits: 64 + 15 is line 15 */
    set_cells(fdt, eth, "interrupts", (uint32_t[]){ 64 + 15 }, 1);
    assert_int_equal(dt_node_irq(fdt, node(fdt, eth), 0), 32 + 15);
    /* a truncated map: refused, not read past its end */
    set_cells(fdt, "/smb@8000000", "interrupt-map", (uint32_t[]){ 0, 0, 15, 1 }, 4);
    assert_int_equal(dt_node_irq(fdt, node(fdt, eth), 0), -1);
    free(fdt);
}

/* an interrupt-parent cycle without a controller ends, with no IRQ */
static void test_node_irq_parent_cycle(void **state)
{
    void *fdt = load_dtb("vexpress-a15", 256, NULL);
    const char *eth = "/smb@8000000/motherboard/ethernet@2,02000000";
    int mb = node(fdt, "/smb@8000000/motherboard");
    assert_int_equal(fdt_setprop_u32(fdt, mb, "phandle", 0x777), 0);
    assert_int_equal(fdt_setprop_u32(fdt, mb, "interrupt-parent", 0x777), 0);
    assert_int_equal(fdt_setprop_u32(fdt, node(fdt, eth), "interrupt-parent", 0x777), 0);
    assert_int_equal(dt_node_irq(fdt, node(fdt, eth), 0), -1);
    free(fdt);
}

/* a controller stacked in front of the GIC (OMAP wake-up generator,
 * Tegra legacy controller): the GIC specifier passes through it unchanged;
 * any other controller's lines are not the GIC's */
static void irq_behind(const char *compat, size_t compat_len, int want)
{
    void *fdt = load_dtb("qemu-virt", 512, NULL);
    int gic = node(fdt, "/intc@8000000");
    uint32_t gic_ph = fdt_get_phandle(fdt, gic);
    assert_true(gic_ph != 0);
    int w = fdt_add_subnode(fdt, 0, "interrupt-controller@48281000");
    assert_true(w >= 0);
    assert_int_equal(fdt_setprop(fdt, w, "compatible", compat, (int)compat_len), 0);
    assert_int_equal(fdt_setprop(fdt, w, "interrupt-controller", NULL, 0), 0);
    assert_int_equal(fdt_setprop_u32(fdt, w, "#interrupt-cells", 3), 0);
    assert_int_equal(fdt_setprop_u32(fdt, w, "interrupt-parent", gic_ph), 0);
    assert_int_equal(fdt_setprop_u32(fdt, w, "phandle", 0x4242), 0);
    int uart = node(fdt, "/pl011@9000000");
    assert_int_equal(fdt_setprop_u32(fdt, uart, "interrupt-parent", 0x4242), 0);
    assert_int_equal(dt_node_irq(fdt, uart, 0), want);
    free(fdt);
}

static void test_node_irq_stacked_controller(void **state)
{
    irq_behind("ti,omap5-wugen-mpu\0ti,omap4-wugen-mpu",
               sizeof("ti,omap5-wugen-mpu\0ti,omap4-wugen-mpu"), 33);
    irq_behind("nvidia,tegra124-ictlr\0nvidia,tegra30-ictlr",
               sizeof("nvidia,tegra124-ictlr\0nvidia,tegra30-ictlr"), 33);
    irq_behind("vendor,gpio-irqchip", sizeof("vendor,gpio-irqchip"), -1);
}

/* a device nested deeper than the interrupt lookup follows: no IRQ, no
 * overrun; one level less still resolves through the root's parent */
static void test_node_irq_deep_nesting(void **state)
{
    void *fdt = load_dtb("qemu-virt", 4096, NULL);
    int n = 0;
    char name[16];
    for (int d = 1; d <= 17; d++) {
        snprintf(name, sizeof(name), "bus%d", d);
        n = fdt_add_subnode(fdt, n, name);
        assert_true(n >= 0);
        fdt32_t irq[3] = { 0, cpu_to_fdt32(7), cpu_to_fdt32(4) };
        assert_int_equal(fdt_setprop(fdt, n, "interrupts", irq, sizeof(irq)), 0);
        if (d == 15)
            assert_int_equal(dt_node_irq(fdt, n, 0), 32 + 7);
        if (d == 17)
            assert_int_equal(dt_node_irq(fdt, n, 0), -1);
    }
    free(fdt);
}

static void test_node_reg_errors(void **state)
{
    void *fdt = load_dtb("vexpress-a15", 256, NULL);
    struct plat_range r;
    /* past the last entry, no reg, the root */
    assert_true(reg_of(fdt, IOFPGA "/uart@90000", 1, &r) < 0);
    assert_true(reg_of(fdt, "/timer", 0, &r) < 0);
    assert_true(dt_node_reg(fdt, 0, 0, &r) < 0);
    /* an I2C device: its bus has no ranges, so it is not memory mapped */
    assert_true(reg_of(fdt, IOFPGA "/i2c@16000/dvi-transmitter@39", 0, &r) < 0);
    /* outside the iofpga's 2 MiB window */
    set_cells(fdt, IOFPGA "/sysreg@10000", "reg", (uint32_t[]){ 0x200000, 0x1000 }, 2);
    assert_true(reg_of(fdt, IOFPGA "/sysreg@10000", 0, &r) < 0);
    free(fdt);
}

static const struct irq_case {
    uint32_t spec[3];
    int len;        /* cells */
    int intid;
} irq_cases[] = {
    { { 0, 0, 4 }, 3, 32 },
    { { 0, 987, 4 }, 3, 1019 },         /* last SPI */
    { { 0, 988, 4 }, 3, -1 },
    { { 1, 0, 0xf04 }, 3, 16 },
    { { 1, 15, 0xf04 }, 3, 31 },
    { { 1, 16, 0xf04 }, 3, -1 },
    { { 2, 5, 4 }, 3, -1 },             /* no such type */
    { { 0, 5, 4 }, 2, -1 },             /* short specifier */
    { { 5 }, 1, -1 },                   /* 1-cell (interrupt-map) */
};

static void test_node_irq(void **state)
{
    void *fdt = load_dtb("qemu-virt", 256, NULL);
    assert_int_equal(dt_node_irq(fdt, node(fdt, "/pl011@9000000"), 0), 33);
    assert_int_equal(dt_node_irq(fdt, node(fdt, "/pl011@9000000"), 1), -1);
    assert_int_equal(dt_node_irq(fdt, node(fdt, "/virtio_mmio@a003e00"), 0), 79);
    assert_int_equal(dt_node_irq(fdt, node(fdt, "/timer"), 3), 26);
    assert_int_equal(dt_node_irq(fdt, node(fdt, "/timer"), 4), -1);
    assert_int_equal(dt_node_irq(fdt, node(fdt, "/cpus"), 0), -1);
    for (size_t i = 0; i < sizeof(irq_cases) / sizeof(irq_cases[0]); i++) {
        const struct irq_case *c = &irq_cases[i];
        set_cells(fdt, "/pl011@9000000", "interrupts", c->spec, c->len);
        int got = dt_node_irq(fdt, node(fdt, "/pl011@9000000"), 0);
        if (got != c->intid)
            fail_msg("<%u %u %u>/%d: INTID %d, expected %d", c->spec[0], c->spec[1],
                     c->spec[2], c->len, got, c->intid);
    }
    free(fdt);
}

static void test_conduit_names(void **state)
{
    assert_string_equal(platform_psci_conduit_name(PSCI_CONDUIT_SMC), "smc");
    assert_string_equal(platform_psci_conduit_name(PSCI_CONDUIT_HVC), "hvc");
    assert_string_equal(platform_psci_conduit_name(PSCI_CONDUIT_NONE), "none");
}

/* ---- cells and limits, on edited copies of QEMU virt ---- */

/* reg is MPIDR[23:0], in the last cell when /cpus has two address cells */
static void test_cpu_reg_affinity(void **state)
{
    void *fdt = load_dtb("qemu-virt", 256, NULL);
    set_cells(fdt, "/cpus", "#address-cells", (uint32_t[]){ 2 }, 1);
    set_cells(fdt, "/cpus/cpu@0", "reg", (uint32_t[]){ 0, 0x000 }, 2);
    set_cells(fdt, "/cpus/cpu@1", "reg", (uint32_t[]){ 0, 0x101 }, 2);
    set_cells(fdt, "/cpus/cpu@2", "reg", (uint32_t[]){ 0, 0x20100 }, 2);
    set_cells(fdt, "/cpus/cpu@3", "reg", (uint32_t[]){ 0, 0x80000103 }, 2);
    if (probe_blob(fdt) != 0)
        fail_msg("%s", err);
    free(fdt);
    assert_int_equal(plat.ncpus, 4);
    assert_int_equal(plat.cpus[0].mpidr, 0x000);
    assert_int_equal(plat.cpus[1].mpidr, 0x101);
    assert_int_equal(plat.cpus[2].mpidr, 0x20100);     /* Aff2 kept */
    assert_int_equal(plat.cpus[3].mpidr, 0x103);       /* bit 31 is not affinity */
}

static bool has_range(const struct plat_range *r, unsigned int n, uint64_t base, uint64_t size)
{
    for (unsigned int i = 0; i < n; i++)
        if (r[i].base == base && r[i].size == size)
            return true;
    return false;
}

/* banks in one reg and in another node; a zero-size entry is no memory */
static void test_memory_banks(void **state)
{
    void *fdt = load_dtb("qemu-virt", 256, NULL);
    set_cells(fdt, "/memory@40000000", "reg", (uint32_t[]){
        0, 0x40000000, 0, 0x20000000, 0, 0x70000000, 0, 0, 1, 0, 0, 0x10000000 }, 12);
    int mem = fdt_add_subnode(fdt, 0, "memory@80000000");
    assert_true(mem >= 0);
    assert_int_equal(fdt_setprop_string(fdt, mem, "device_type", "memory"), 0);
    set_cells(fdt, "/memory@80000000", "reg", (uint32_t[]){ 0, 0x80000000, 0, 0x8000000 }, 4);
    if (probe_blob(fdt) != 0)
        fail_msg("%s", err);
    free(fdt);
    assert_int_equal(plat.nmem, 3);     /* node order is libfdt's business */
    assert_true(has_range(plat.mem, 3, 0x40000000, 0x20000000));
    assert_true(has_range(plat.mem, 3, 0x100000000, 0x10000000));
    assert_true(has_range(plat.mem, 3, 0x80000000, 0x8000000));
}

/* more CPUs, banks and reservations than struct platform holds */
static void add_cpus(void *fdt, int n)
{
    int cpus = node(fdt, "/cpus");
    for (int i = 4; i < 4 + n; i++) {
        char name[16];
        snprintf(name, sizeof(name), "cpu@%d", i);
        int c = fdt_add_subnode(fdt, cpus, name);
        assert_true(c >= 0);
        assert_int_equal(fdt_setprop_string(fdt, c, "device_type", "cpu"), 0);
        assert_int_equal(fdt_setprop_u32(fdt, c, "reg", (uint32_t)i), 0);
    }
}

static void add_banks(void *fdt, int n)
{
    int mem = node(fdt, "/memory@40000000");
    for (int i = 1; i < n; i++) {
        uint32_t cell[4] = { 0, 0x40000000 + (uint32_t)i * 0x1000000, 0, 0x100000 };
        for (int k = 0; k < 4; k++)
            assert_int_equal(fdt_appendprop_u32(fdt, mem, "reg", cell[k]), 0);
    }
}

static void test_limits(void **state)
{
    void *fdt = load_dtb("qemu-virt", 4096, NULL);
    add_cpus(fdt, PLAT_MAX_CPUS + 2);
    add_banks(fdt, PLAT_MAX_MEM + 2);
    for (int i = 0; i < PLAT_MAX_RSV + 2; i++)
        assert_int_equal(fdt_add_mem_rsv(fdt, 0x48000000 + (uint64_t)i * 0x1000, 0x1000), 0);
    if (probe_blob(fdt) != 0)
        fail_msg("%s", err);
    free(fdt);
    assert_int_equal(plat.ncpus, PLAT_MAX_CPUS);
    uint32_t seen = 0;      /* eight different CPUs of the fourteen */
    for (unsigned int i = 0; i < PLAT_MAX_CPUS; i++) {
        assert_in_range(plat.cpus[i].mpidr, 0, PLAT_MAX_CPUS + 5);
        seen |= 1u << plat.cpus[i].mpidr;
    }
    assert_int_equal(__builtin_popcount(seen), PLAT_MAX_CPUS);
    assert_int_equal(plat.nmem, PLAT_MAX_MEM);
    assert_range(plat.mem[PLAT_MAX_MEM - 1], 0x47000000, 0x100000);
    assert_int_equal(plat.nrsv, PLAT_MAX_RSV);
    assert_range(plat.rsv[PLAT_MAX_RSV - 1], 0x4800f000, 0x1000);
}

/* ---- incomplete or wrong trees ---- */

static void test_no_memory(void **state)
{
    assert_probe_fails("virt-no-memory", "no memory", "/memory");
}

static void test_no_cpus(void **state)
{
    assert_probe_fails("virt-no-cpus", "no CPUs", "/cpus");
}

static void test_no_uart(void **state)
{
    assert_probe_fails("virt-no-uart", "no console UART", "no /aliases/serial0");
    assert_int_equal(plat.uart.kind, UART_NONE);
}

/* GICH/GICV a SoC's DT omits, from its documented layout (gic_quirks.c) */
static void test_gic_regions_from_the_soc_layout(void **state)
{
    probe_ok("stm32mp157-gic");
    assert_range(plat.gic.gicd, 0xa0021000, 0x1000);
    assert_range(plat.gic.gicc, 0xa0022000, 0x2000);
    assert_range(plat.gic.gich, 0xa0024000, 0x2000);
    assert_range(plat.gic.gicv, 0xa0026000, 0x2000);
    assert_int_equal(plat.gic.maint_irq, 25);
    assert_non_null(plat.gic.quirk);
    assert_non_null(strstr(plat.gic.quirk, "RM0436"));
    probe_ok("qemu-virt");
    assert_null(plat.gic.quirk);        /* a DT that gives them is taken as it is */
}

/* never for a SoC the table does not name */
static void test_gic_regions_not_guessed(void **state)
{
    assert_probe_fails("stm32mp135-gic", "no virtualization extensions", "GICH");
}

/* without stdout-path: serial0, as Linux's earlycon and serial core take it */
static void test_console_by_serial0_alias(void **state)
{
    probe_ok("virt-serial0-alias");
    assert_string_equal(plat.uart.path, "/serial@9100000");
    assert_string_equal(plat.uart.found_by, "/aliases/serial0");
    assert_int_equal(plat.uart.kind, UART_NS16550);
    assert_int_equal(plat.uart.reg_shift, 2);
    assert_int_equal(plat.uart.irq, 48);
}

/* then the first enabled UART with a driver, in tree order */
static void test_console_first_uart(void **state)
{
    probe_ok("virt-first-uart");
    assert_string_equal(plat.uart.path, "/serial@8f10000");
    assert_string_equal(plat.uart.found_by, "the first UART with a driver");
    assert_int_equal(plat.uart.kind, UART_NS16550);
    assert_int_equal(plat.uart.reg_shift, 2);       /* OMAP: 4 bytes apart */
}

/* stdout-path, where there is one, wins */
static void test_console_by_stdout_path(void **state)
{
    probe_ok("qemu-virt");
    assert_string_equal(plat.uart.found_by, "stdout-path");
    assert_string_equal(plat.uart.path, "/pl011@9000000");
}

/* the callers use the console when kind says PL011, even after an error */
static void test_uart_without_reg(void **state)
{
    assert_probe_fails("virt-uart-noreg", "/pl011@9000000", "reg");
    assert_int_equal(plat.uart.kind, UART_NONE);
}

/*
 * The console UART of real boards: QEMU virt with the stdout-path moved to
 * an added UART node (compatible list, reg, optional reg-shift and
 * reg-io-width), as on the board DTs Debian ships.
 */
static void probe_with_uart(const char *compat, size_t compat_len, int shift, int width)
{
    size_t size;
    void *fdt = load_dtb("qemu-virt", 1024, &size);
    int n = fdt_add_subnode(fdt, 0, "serial@1c28000");
    assert_true(n >= 0);
    assert_int_equal(fdt_setprop(fdt, n, "compatible", compat, (int)compat_len), 0);
    fdt32_t reg[4] = { 0, cpu_to_fdt32(0x01c28000), 0, cpu_to_fdt32(0x400) };
    assert_int_equal(fdt_setprop(fdt, n, "reg", reg, sizeof(reg)), 0);
    fdt32_t irq[3] = { 0, cpu_to_fdt32(0), cpu_to_fdt32(4) };
    assert_int_equal(fdt_setprop(fdt, n, "interrupts", irq, sizeof(irq)), 0);
    if (shift >= 0)
        assert_int_equal(fdt_setprop_u32(fdt, n, "reg-shift", (uint32_t)shift), 0);
    if (width >= 0)
        assert_int_equal(fdt_setprop_u32(fdt, n, "reg-io-width", (uint32_t)width), 0);
    assert_int_equal(fdt_setprop_string(fdt, node(fdt, "/chosen"), "stdout-path",
                                        "/serial@1c28000:115200n8"), 0);
    int rc = probe_blob(fdt);
    free(fdt);
    if (rc != 0)
        fail_msg("%s: platform_probe failed: %s", compat, err);
    assert_string_equal(plat.uart.path, "/serial@1c28000");
    assert_range(plat.uart.reg, 0x01c28000, 0x400);
    assert_int_equal(plat.uart.irq, 32);
}

#define UART_CASE(compat, shift, width) \
    probe_with_uart(compat, sizeof(compat), shift, width)

static void test_uart_16550_kinds(void **state)
{
    /* Allwinner/Rockchip: DesignWare with reg-shift 2, 32-bit accesses */
    UART_CASE("snps,dw-apb-uart", 2, 4);
    assert_int_equal(plat.uart.kind, UART_NS16550);
    assert_int_equal(plat.uart.reg_shift, 2);
    assert_int_equal(plat.uart.io_width, 4);
    assert_string_equal(platform_uart_kind_name(plat.uart.kind), "ns16550");
    /* Tegra124: its own name first, tegra20 second; reg-shift in the DT */
    UART_CASE("nvidia,tegra124-uart\0nvidia,tegra20-uart", 2, -1);
    assert_int_equal(plat.uart.kind, UART_NS16550);
    assert_int_equal(plat.uart.reg_shift, 2);
    assert_int_equal(plat.uart.io_width, 1);
    /* OMAP5/DRA7: no reg-shift in the DT, the OMAP layout says 2 */
    UART_CASE("ti,dra742-uart\0ti,omap4-uart", -1, -1);
    assert_int_equal(plat.uart.kind, UART_NS16550);
    assert_int_equal(plat.uart.reg_shift, 2);
    assert_int_equal(plat.uart.io_width, 1);
    /* a plain ns16550a: byte registers, byte apart */
    UART_CASE("ns16550a", -1, -1);
    assert_int_equal(plat.uart.kind, UART_NS16550);
    assert_int_equal(plat.uart.reg_shift, 0);
    assert_int_equal(plat.uart.io_width, 1);
}

static void test_uart_imx(void **state)
{
    UART_CASE("fsl,imx6ul-uart\0fsl,imx6q-uart\0fsl,imx21-uart", -1, -1);
    assert_int_equal(plat.uart.kind, UART_IMX);
    assert_int_equal(plat.uart.io_width, 4);
    assert_string_equal(platform_uart_kind_name(plat.uart.kind), "imx");
}

static void test_uart_samsung(void **state)
{
    UART_CASE("samsung,exynos4210-uart", -1, -1);
    assert_int_equal(plat.uart.kind, UART_SAMSUNG);
    assert_int_equal(plat.uart.io_width, 4);
    assert_string_equal(platform_uart_kind_name(plat.uart.kind), "samsung");
}

/* a UART Partita has no driver for: probed, named, kind none */
static void test_uart_without_driver(void **state)
{
    UART_CASE("st,stm32-uart", -1, -1);     /* STM32F4's USART: another layout */
    assert_int_equal(plat.uart.kind, UART_NONE);
    assert_string_equal(plat.uart.compatible, "st,stm32-uart");
    assert_string_equal(platform_uart_kind_name(plat.uart.kind), "none");
    UART_CASE("st,stm32h7-uart", -1, -1);   /* STM32MP15x, STM32H7 */
    assert_int_equal(plat.uart.kind, UART_STM32);
    assert_int_equal(plat.uart.io_width, 4);
    assert_string_equal(platform_uart_kind_name(plat.uart.kind), "stm32");
}

static void test_uart_bad_layout(void **state)
{
    size_t size;
    void *fdt = load_dtb("qemu-virt", 64, &size);
    assert_int_equal(fdt_setprop_u32(fdt, node(fdt, "/pl011@9000000"), "reg-io-width", 3), 0);
    assert_int_equal(probe_blob(fdt), -1);
    free(fdt);
    assert_contains(err, "/pl011@9000000");
    assert_contains(err, "reg-io-width 3");
}

static void test_timer_three_ppis(void **state)
{
    assert_probe_fails("virt-timer-3irqs", "timer: interrupt 3", "hypervisor");
}

static void test_gic_two_cells(void **state)
{
    assert_probe_fails("virt-gic-2cells", "intc@8000000", "#interrupt-cells is not 3");
}

static void test_gic_no_maintenance_irq(void **state)
{
    assert_probe_fails("virt-gic-no-maint", "intc@8000000", "maintenance interrupt");
}

static void test_psci_0_1(void **state)
{
    probe_ok("virt-psci-0.1");
    assert_string_equal(plat.psci.compatible, "arm,psci");
    assert_int_equal(plat.psci.conduit, PSCI_CONDUIT_HVC);
    assert_int_equal(plat.psci.fn_cpu_on, 0x95c1ba60);
    for (unsigned int i = 0; i < plat.ncpus; i++)
        assert_int_equal(plat.cpus[i].method, CPU_METHOD_PSCI);
}

static void test_psci_0_1_without_cpu_on(void **state)
{
    probe_ok("virt-psci-0.1-no-cpu-on");
    assert_int_equal(plat.psci.conduit, PSCI_CONDUIT_NONE);
    assert_int_equal(plat.ncpus, 4);
    for (unsigned int i = 0; i < plat.ncpus; i++)
        assert_int_equal(plat.cpus[i].method, CPU_METHOD_NONE);
}

static void test_spin_table(void **state)
{
    static const uint64_t release[] = { 0x4000fff8, 0x4000fff8, 0x10000fff0, 0x4000fff0 };
    probe_ok("virt-spin-table");
    assert_int_equal(plat.psci.conduit, PSCI_CONDUIT_NONE);
    assert_int_equal(plat.ncpus, 4);
    for (unsigned int i = 0; i < 4; i++) {
        assert_int_equal(plat.cpus[i].mpidr, i);
        assert_int_equal(plat.cpus[i].method, CPU_METHOD_SPIN_TABLE);
        assert_int_equal(plat.cpus[i].release_addr, release[i]);
        assert_int_equal(plat.cpus[i].release_size, i == 3 ? 4 : 8);
    }
    assert_string_equal(platform_cpu_method_name(plat.cpus[0].method), "spin-table");
}

static void test_spin_table_without_release_addr(void **state)
{
    assert_probe_fails("virt-spin-table-noaddr", "cpu@2", "spin-table CPU without cpu-release-addr");
}

/* the error is cut to the caller's buffer, still terminated */
static void test_short_error_buffer(void **state)
{
    char small[8];
    void *fdt = load_dtb("qemu-virt-novirt", 0, NULL);
    memset(small, 'x', sizeof(small));
    assert_int_equal(platform_probe(fdt, &plat, small, sizeof(small)), -1);
    assert_string_equal(small, "intc@80");
    free(fdt);
}

/* ---- blobs that are not device trees ---- */

static uint32_t rng_state = 0x2545f491;

static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static void put_hdr(void *fdt, size_t field, uint32_t v)
{
    fdt32_st((char *)fdt + field, v);
}

#define HDR(f) offsetof(struct fdt_header, f)

/* random bytes, then random bytes behind more and more of a sane header */
static void fill_random(uint8_t *buf, size_t n, int level)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)rnd();
    if (level >= 1)
        put_hdr(buf, HDR(magic), FDT_MAGIC);
    if (level >= 2) {
        put_hdr(buf, HDR(totalsize), (uint32_t)n);
        put_hdr(buf, HDR(version), 17);
        put_hdr(buf, HDR(last_comp_version), 16);
    }
    if (level >= 3) {
        put_hdr(buf, HDR(off_mem_rsvmap), 40 + (rnd() % (uint32_t)(n - 56) & ~7u));
        put_hdr(buf, HDR(off_dt_struct), 40 + (rnd() % (uint32_t)(n - 48) & ~3u));
        put_hdr(buf, HDR(size_dt_struct), rnd() % 64);
        put_hdr(buf, HDR(off_dt_strings), 40 + rnd() % (uint32_t)(n - 48));
        put_hdr(buf, HDR(size_dt_strings), rnd() % 8);
    }
}

static void test_garbage_random(void **state)
{
    for (int i = 0; i < 400; i++) {
        size_t n = 64 + rnd() % 4096;
        uint8_t *buf = malloc(n);
        assert_non_null(buf);
        fill_random(buf, n, i % 4);
        assert_invalid_dt(buf);
        free(buf);
    }
}

/* the first len bytes of a valid blob, the header saying so */
static void check_truncated(const uint8_t *dtb, size_t len)
{
    size_t n = len < 64 ? 64 : len;     /* the header itself stays readable */
    uint8_t *buf = calloc(1, n);
    assert_non_null(buf);
    memcpy(buf, dtb, len);
    put_hdr(buf, HDR(totalsize), (uint32_t)len);
    assert_invalid_dt(buf);
    free(buf);
}

static void test_garbage_truncated(void **state)
{
    size_t size;
    uint8_t *dtb = load_dtb("qemu-virt", 0, &size);
    for (size_t len = 0; len < size; len += 7)
        check_truncated(dtb, len);
    check_truncated(dtb, fdt_off_dt_strings(dtb));
    check_truncated(dtb, fdt_off_dt_struct(dtb) + fdt_size_dt_struct(dtb) - 4);
    check_truncated(dtb, size - 1);
    free(dtb);
}

static const struct hdr_case {
    size_t field;
    uint32_t value;     /* or, with rel, added to the blob size */
    int rel;
    const char *why;
} hdr_cases[] = {
    { HDR(magic), 0xd00dfeee, 0, "FDT_ERR_BADMAGIC" },
    { HDR(magic), 0xedfe0dd0, 0, "FDT_ERR_BADMAGIC" },     /* byte-swapped */
    { HDR(version), 1, 0, "FDT_ERR_BADVERSION" },
    { HDR(last_comp_version), 18, 0, "FDT_ERR_BADVERSION" },
    { HDR(totalsize), 16, 0, "FDT_ERR_" },
    { HDR(totalsize), (uint32_t)-1, 1, "FDT_ERR_" },
    { HDR(off_dt_struct), 0, 1, "FDT_ERR_" },
    { HDR(size_dt_struct), 0x7ffffff0, 0, "FDT_ERR_" },
    { HDR(off_dt_strings), 0xfffffff0, 0, "FDT_ERR_" },
    { HDR(off_mem_rsvmap), 0, 1, "FDT_ERR_" },
};

/*
 * fdt_check_full of libfdt 1.6.1 dereferences NULL for a blob of version
 * below 16 that claims compatibility with it (found by tests/unit/fuzz.sh):
 * the probe must refuse such blobs before it gets there.
 */
static void test_old_version_refused(void **state)
{
    size_t size;
    for (uint32_t v = 2; v < 16; v++) {
        uint8_t *buf = load_dtb("qemu-virt", 0, &size);
        put_hdr(buf, HDR(version), v);
        put_hdr(buf, HDR(last_comp_version), 2);
        assert_invalid_dt(buf);
        assert_contains(err, "FDT_ERR_BADVERSION");
        free(buf);
    }
}

static void test_garbage_header(void **state)
{
    size_t size;
    for (size_t i = 0; i < sizeof(hdr_cases) / sizeof(hdr_cases[0]); i++) {
        const struct hdr_case *c = &hdr_cases[i];
        uint8_t *buf = load_dtb("qemu-virt", 0, &size);
        put_hdr(buf, c->field, c->rel ? (uint32_t)size + c->value : c->value);
        assert_invalid_dt(buf);
        assert_contains(err, c->why);
        free(buf);
    }
}

static void put_be32(uint8_t *p, uint32_t v)
{
    fdt32_st(p, v);
}

/*
 * A header that checks out over a structure block that is cut short: the
 * root's "model" = "abcd" (no NUL) is the last thing in the buffer, with no
 * FDT_END_NODE / FDT_END after it.
 *   0 header | 40 rsvmap end | 56 strings "model" | 64 struct ... | 88 end
 */
static uint8_t *cut_structure_blob(void)
{
    uint8_t *b = calloc(1, 88);
    assert_non_null(b);
    put_hdr(b, HDR(magic), FDT_MAGIC);
    put_hdr(b, HDR(totalsize), 88);
    put_hdr(b, HDR(off_dt_struct), 64);
    put_hdr(b, HDR(off_dt_strings), 56);
    put_hdr(b, HDR(off_mem_rsvmap), 40);
    put_hdr(b, HDR(version), 17);
    put_hdr(b, HDR(last_comp_version), 16);
    put_hdr(b, HDR(size_dt_strings), 6);
    put_hdr(b, HDR(size_dt_struct), 24);
    memcpy(b + 56, "model", 6);
    put_be32(b + 64, FDT_BEGIN_NODE);   /* name "" and padding at 68 */
    put_be32(b + 72, FDT_PROP);
    put_be32(b + 76, 4);                /* len */
    put_be32(b + 80, 0);                /* nameoff: "model" */
    memcpy(b + 84, "abcd", 4);
    return b;
}

static void test_garbage_cut_structure(void **state)
{
    uint8_t *b = cut_structure_blob();
    assert_int_equal(fdt_check_header(b), 0);     /* the header is fine */
    assert_invalid_dt(b);
    free(b);
}

/* bytes flipped anywhere past the header of a valid blob: never a crash,
 * and a blob libfdt's full check rejects is an invalid device tree */
static void test_garbage_flipped_bytes(void **state)
{
    size_t size;
    uint8_t *dtb = load_dtb("qemu-virt", 0, &size);
    uint8_t *buf = malloc(size);
    assert_non_null(buf);
    for (int i = 0; i < 500; i++) {
        memcpy(buf, dtb, size);
        for (int k = 1 + i % 4; k > 0; k--)
            buf[40 + rnd() % (size - 40)] ^= (uint8_t)(1u << (rnd() % 8));
        int rc = probe_blob(buf);
        assert_true(rc == 0 || rc == -1);
        if (fdt_check_full(buf, size) != 0)
            assert_invalid_dt(buf);
    }
    free(buf);
    free(dtb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qemu_virt_memory),
        cmocka_unit_test(test_qemu_virt_cpus),
        cmocka_unit_test(test_qemu_virt_gic),
        cmocka_unit_test(test_qemu_virt_timer),
        cmocka_unit_test(test_qemu_virt_uart),
        cmocka_unit_test(test_qemu_virt_psci),
        cmocka_unit_test(test_qemu_virt_secure),
        cmocka_unit_test(test_qemu_virt_a7_up),
        cmocka_unit_test(test_qemu_virt_without_virtualization),
        cmocka_unit_test(test_vexpress_uart_translated),
        cmocka_unit_test(test_vexpress_cpus),
        cmocka_unit_test(test_vexpress_memory_reserved),
        cmocka_unit_test(test_vexpress_gic_timer),
        cmocka_unit_test(test_console_selection),
        cmocka_unit_test(test_debug_uart),
        cmocka_unit_test(test_debug_uart_errors),
        cmocka_unit_test(test_debug_uart_node_errors),
        cmocka_unit_test(test_node_reg_translation),
        cmocka_unit_test(test_node_irq_interrupt_map),
        cmocka_unit_test(test_node_irq_parent_cycle),
        cmocka_unit_test(test_node_irq_stacked_controller),
        cmocka_unit_test(test_node_irq_deep_nesting),
        cmocka_unit_test(test_node_reg_errors),
        cmocka_unit_test(test_node_irq),
        cmocka_unit_test(test_conduit_names),
        cmocka_unit_test(test_cpu_reg_affinity),
        cmocka_unit_test(test_memory_banks),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_no_memory),
        cmocka_unit_test(test_no_cpus),
        cmocka_unit_test(test_no_uart),
        cmocka_unit_test(test_console_by_serial0_alias),
        cmocka_unit_test(test_gic_regions_from_the_soc_layout),
        cmocka_unit_test(test_gic_regions_not_guessed),
        cmocka_unit_test(test_console_first_uart),
        cmocka_unit_test(test_console_by_stdout_path),
        cmocka_unit_test(test_uart_without_reg),
        cmocka_unit_test(test_timer_three_ppis),
        cmocka_unit_test(test_gic_two_cells),
        cmocka_unit_test(test_gic_no_maintenance_irq),
        cmocka_unit_test(test_psci_0_1),
        cmocka_unit_test(test_psci_0_1_without_cpu_on),
        cmocka_unit_test(test_spin_table),
        cmocka_unit_test(test_spin_table_without_release_addr),
        cmocka_unit_test(test_short_error_buffer),
        cmocka_unit_test(test_garbage_random),
        cmocka_unit_test(test_uart_16550_kinds),
        cmocka_unit_test(test_uart_samsung),
        cmocka_unit_test(test_uart_imx),
        cmocka_unit_test(test_uart_without_driver),
        cmocka_unit_test(test_uart_bad_layout),
        cmocka_unit_test(test_garbage_truncated),
        cmocka_unit_test(test_garbage_header),
        cmocka_unit_test(test_old_version_refused),
        cmocka_unit_test(test_garbage_cut_structure),
        cmocka_unit_test(test_garbage_flipped_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
