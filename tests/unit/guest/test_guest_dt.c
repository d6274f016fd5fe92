/*
 * Host unit tests for the guest device-tree writer (hyp/guest/guest_dt.c).
 *
 * Each test writes a guest's DTB and reads it back with libfdt the way a
 * guest kernel would: by path, phandle and property, checking the virtual
 * board of docs/virtual-board.md (QEMU virt's addresses and interrupts).  The
 * passthrough tests use QEMU virt's own tree (fixtures/qemu-virt.dts) as the
 * host's; the runner starts us in build/unit, where the fixtures are.
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
#include "hyp/guest/guest_dt.h"
#include "hyp/config/guest_config.h"
#include "hyp/platform/platform.h"
#include <partita/blk_queue.h>

#define DTB_MAX 0x10000         /* what hyp/guest/guest.c gives the writer */

static void *host_dtb;
static uint8_t *dtb;            /* the last tree written */

/* ---- helpers ---- */

static void *load_dtb(const char *name)
{
    return fixture_load(name, 0, NULL);
}

static struct guest_config make_cfg(const char *name, unsigned int ncpus)
{
    struct guest_config c;
    memset(&c, 0, sizeof(c));
    snprintf(c.name, sizeof(c.name), "%s", name);
    c.ncpus = ncpus;
    for (unsigned int i = 0; i < ncpus; i++)
        c.cpus[i] = ncpus - 1 - i;          /* pinning never shows in the guest */
    c.mem_base = 0x50000000;
    c.mem_size = 0x01000000;
    c.kernel = (const uint8_t *)"k";
    c.kernel_size = 1;
    return c;
}

static struct guest_dt_info make_info(void)
{
    return (struct guest_dt_info){ VBOARD_RAM_IPA, 0, 0, "arm,cortex-a15", NULL, false, false };
}

/* write into a buffer of exactly DTB_MAX bytes and check what comes back */
static int build(const struct guest_config *c, const struct guest_dt_info *info)
{
    free(dtb);
    dtb = malloc(DTB_MAX);
    assert_non_null(dtb);
    int size = guest_dt_build(dtb, DTB_MAX, c, info);
    if (size < 0)
        fail_msg("guest_dt_build: %s", fdt_strerror(size));
    assert_int_equal(size, fdt_totalsize(dtb));
    assert_true(size <= DTB_MAX);
    assert_int_equal(fdt_check_full(dtb, (size_t)size), 0);
    return size;
}

static int node(const char *path)
{
    int off = fdt_path_offset(dtb, path);
    if (off < 0)
        fail_msg("no node %s in the guest's tree", path);
    return off;
}

static const void *prop(int off, const char *name, int *len)
{
    const void *p = fdt_getprop(dtb, off, name, len);
    if (!p)
        fail_msg("%s has no property %s", fdt_get_name(dtb, off, NULL), name);
    return p;
}

static uint32_t u32(int off, const char *name)
{
    int len;
    const fdt32_t *p = prop(off, name, &len);
    assert_int_equal(len, 4);
    return fdt32_to_cpu(*p);
}

/* a property holding exactly these cells */
static void assert_cells(int off, const char *name, const uint32_t *want, int n)
{
    int len;
    const fdt32_t *p = prop(off, name, &len);
    if (len != n * 4)
        fail_msg("%s: %d bytes, expected %d cells", name, len, n);
    for (int i = 0; i < n; i++)
        if (fdt32_to_cpu(p[i]) != want[i])
            fail_msg("%s cell %d: 0x%x, expected 0x%x", name, i, fdt32_to_cpu(p[i]), want[i]);
}

#define CELLS(off, name, ...) do { \
        const uint32_t _w[] = { __VA_ARGS__ }; \
        assert_cells((off), (name), _w, (int)(sizeof(_w) / sizeof(_w[0]))); \
    } while (0)

/* a property holding exactly this list of strings (each with its NUL) */
static void assert_bytes(int off, const char *name, const char *want, int n)
{
    int len;
    const void *p = prop(off, name, &len);
    if (len != n || memcmp(p, want, (size_t)n) != 0)
        fail_msg("%s: %d bytes, not the %d expected", name, len, n);
}

#define STRINGS(off, name, lit) assert_bytes((off), (name), (lit), (int)sizeof(lit))

static int phandle_target(uint32_t ph)
{
    int off = fdt_node_offset_by_phandle(dtb, ph);
    if (off < 0)
        fail_msg("phandle %u points nowhere", ph);
    return off;
}

static int count_subnodes(int parent)
{
    int n = 0, sub;
    fdt_for_each_subnode(sub, dtb, parent)
        n++;
    return n;
}

static int setup(void **state)
{
    host_dtb = load_dtb("qemu-virt");
    return 0;
}

static int teardown(void **state)
{
    free(host_dtb);
    free(dtb);
    dtb = NULL;
    return 0;
}

/* ---- the root and /chosen ---- */

static void test_root(void **state)
{
    struct guest_config c = make_cfg("rtos0", 1);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    STRINGS(0, "compatible", "partita,virt\0linux,dummy-virt");
    assert_string_equal(prop(0, "model", NULL), "Partita guest rtos0");
    assert_int_equal(u32(0, "#address-cells"), 1);
    assert_int_equal(u32(0, "#size-cells"), 1);
    int gic = phandle_target(u32(0, "interrupt-parent"));
    assert_int_equal(gic, node("/intc@8000000"));
    assert_int_equal(fdt_num_mem_rsv(dtb), 0);
}

static void test_longest_name(void **state)
{
    struct guest_config c = make_cfg("abcdefghijklmnopqrstuvwxyz01234", 1);
    struct guest_dt_info info = make_info();
    assert_int_equal(strlen(c.name), GUEST_NAME_MAX - 1);
    build(&c, &info);
    assert_string_equal(prop(0, "model", NULL),
                        "Partita guest abcdefghijklmnopqrstuvwxyz01234");
}

static void test_chosen_stdout_is_the_uart(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    int chosen = node("/chosen");
    const char *path = prop(chosen, "stdout-path", NULL);
    assert_string_equal(path, "/pl011@9000000");
    int uart = fdt_path_offset(dtb, path);
    assert_true(uart >= 0);
    assert_int_equal(fdt_node_check_compatible(dtb, uart, "arm,pl011"), 0);
    /* no bootargs, no initrd: none of their properties */
    assert_null(fdt_getprop(dtb, chosen, "bootargs", NULL));
    assert_null(fdt_getprop(dtb, chosen, "linux,initrd-start", NULL));
    assert_null(fdt_getprop(dtb, chosen, "linux,initrd-end", NULL));
}

static void test_chosen_bootargs(void **state)
{
    struct guest_config c = make_cfg("linux0", 2);
    snprintf(c.bootargs, sizeof(c.bootargs), "console=ttyAMA0 earlycon root=/dev/ram0 rw");
    struct guest_dt_info info = make_info();
    build(&c, &info);
    int len;
    const char *ba = prop(node("/chosen"), "bootargs", &len);
    assert_string_equal(ba, "console=ttyAMA0 earlycon root=/dev/ram0 rw");
    assert_int_equal(len, (int)strlen(ba) + 1);
}

static void test_chosen_longest_bootargs(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    memset(c.bootargs, 'x', GUEST_BOOTARGS_MAX - 1);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    int len;
    prop(node("/chosen"), "bootargs", &len);
    assert_int_equal(len, GUEST_BOOTARGS_MAX);
}

static void test_chosen_initrd(void **state)
{
    struct guest_config c = make_cfg("linux0", 1);
    struct guest_dt_info info = make_info();
    info.initrd_ipa = 0x40f00000;
    info.initrd_size = 0x2345;
    build(&c, &info);
    int chosen = node("/chosen");
    assert_int_equal(u32(chosen, "linux,initrd-start"), 0x40f00000);
    assert_int_equal(u32(chosen, "linux,initrd-end"), 0x40f02345);    /* exclusive */
}

/* ---- memory ---- */

static void test_memory_at_virtual_ram(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    c.mem_size = 0x08000000;
    struct guest_dt_info info = make_info();
    build(&c, &info);
    int mem = node("/memory@40000000");
    assert_string_equal(prop(mem, "device_type", NULL), "memory");
    CELLS(mem, "reg", 0x40000000, 0x08000000);
    /* the only memory node */
    int n = 0;
    for (int off = fdt_node_offset_by_prop_value(dtb, -1, "device_type", "memory", 7);
         off >= 0; off = fdt_node_offset_by_prop_value(dtb, off, "device_type", "memory", 7))
        n++;
    assert_int_equal(n, 1);
}

static void test_memory_identity_mapped(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    c.identity = true;
    c.mem_base = 0x5a000000;
    c.mem_size = 0x80000000;                /* 2 GiB */
    struct guest_dt_info info = make_info();
    info.ram_ipa = (uint32_t)guest_ram_ipa(&c);
    build(&c, &info);
    CELLS(node("/memory@5a000000"), "reg", 0x5a000000, 0x80000000);
    assert_true(fdt_path_offset(dtb, "/memory@40000000") < 0);
}

/* ---- CPUs and PSCI ---- */

static void check_cpus(unsigned int n, const char *compat)
{
    int cpus = node("/cpus");
    assert_int_equal(u32(cpus, "#address-cells"), 1);
    assert_int_equal(u32(cpus, "#size-cells"), 0);
    assert_int_equal(count_subnodes(cpus), (int)n);
    for (unsigned int i = 0; i < n; i++) {
        char path[32];
        snprintf(path, sizeof(path), "/cpus/cpu@%u", i);
        int cpu = node(path);
        assert_string_equal(prop(cpu, "device_type", NULL), "cpu");
        assert_string_equal(prop(cpu, "compatible", NULL), compat);
        assert_int_equal(u32(cpu, "reg"), i);       /* MPIDR of vCPU i */
        assert_string_equal(prop(cpu, "enable-method", NULL), "psci");
    }
}

static void test_cpus_one(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    check_cpus(1, "arm,cortex-a15");
}

static void test_cpus_four(void **state)
{
    struct guest_config c = make_cfg("g", 4);
    struct guest_dt_info info = make_info();
    info.cpu_compatible = "arm,cortex-a7";
    build(&c, &info);
    check_cpus(4, "arm,cortex-a7");
}

static void test_cpus_most(void **state)
{
    struct guest_config c = make_cfg("g", GUEST_MAX_VCPUS);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    check_cpus(GUEST_MAX_VCPUS, "arm,cortex-a15");
}

static void test_psci(void **state)
{
    struct guest_config c = make_cfg("g", 2);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    int psci = node("/psci");
    STRINGS(psci, "compatible", "arm,psci-1.0\0arm,psci-0.2");
    assert_string_equal(prop(psci, "method", NULL), "hvc");
}

/* ---- GIC, timer, UART ---- */

static void test_gic(void **state)
{
    struct guest_config c = make_cfg("g", 2);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    int gic = node("/intc@8000000");
    assert_int_equal(fdt_node_check_compatible(dtb, gic, "arm,cortex-a15-gic"), 0);
    CELLS(gic, "reg", 0x08000000, 0x1000, 0x08010000, 0x2000);
    assert_int_equal(u32(gic, "#interrupt-cells"), 3);
    int len;
    prop(gic, "interrupt-controller", &len);
    assert_int_equal(len, 0);
    assert_true(fdt_get_phandle(dtb, gic) != 0);
    assert_int_equal(fdt_get_phandle(dtb, gic), u32(0, "interrupt-parent"));
    /* what the platform parser makes of it: the regions and no more */
    struct plat_range r;
    assert_int_equal(dt_node_reg(dtb, gic, 0, &r), 0);
    assert_int_equal(r.base, VBOARD_GICD_IPA);
    assert_int_equal(dt_node_reg(dtb, gic, 1, &r), 0);
    assert_int_equal(r.base, VBOARD_GICC_IPA);
    assert_int_equal(r.size, VBOARD_GICC_SIZE);
    assert_true(dt_node_reg(dtb, gic, 2, &r) < 0);
}

static void check_timer(unsigned int ncpus)
{
    uint32_t f = (((1u << ncpus) - 1) << 8) | 4;    /* CPU mask, level high */
    int timer = fdt_node_offset_by_compatible(dtb, -1, "arm,armv7-timer");
    assert_true(timer >= 0);
    uint32_t want[] = { 1, 13, f, 1, 14, f, 1, 11, f, 1, 10, f };
    assert_cells(timer, "interrupts", want, 12);
    /* secure phys, non-secure phys, virtual, hypervisor: PPIs 13, 14, 11, 10 */
    assert_int_equal(dt_node_irq(dtb, timer, 0), 29);
    assert_int_equal(dt_node_irq(dtb, timer, 1), 30);
    assert_int_equal(dt_node_irq(dtb, timer, 2), VBOARD_VTIMER_IRQ);
    assert_int_equal(dt_node_irq(dtb, timer, 3), 26);
}

static void test_timer_one_cpu(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    check_timer(1);
}

static void test_timer_four_cpus(void **state)
{
    struct guest_config c = make_cfg("g", 4);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    check_timer(4);
    /* the same flags as QEMU virt writes for its 4 CPUs */
    int host_timer = fdt_node_offset_by_compatible(host_dtb, -1, "arm,armv7-timer");
    int len;
    const fdt32_t *h = fdt_getprop(host_dtb, host_timer, "interrupts", &len);
    assert_int_equal(len, 48);
    assert_int_equal(fdt32_to_cpu(h[2]), 0xf04);
}

static void test_timer_eight_cpus(void **state)
{
    struct guest_config c = make_cfg("g", GUEST_MAX_VCPUS);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    check_timer(GUEST_MAX_VCPUS);
}

static void test_uart(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    int uart = node("/pl011@9000000");
    STRINGS(uart, "compatible", "arm,pl011\0arm,primecell");
    CELLS(uart, "reg", 0x09000000, 0x1000);
    CELLS(uart, "interrupts", 0, 1, 4);                 /* SPI 1, level high */
    assert_int_equal(dt_node_irq(dtb, uart, 0), VBOARD_UART_IRQ);
    STRINGS(uart, "clock-names", "uartclk\0apb_pclk");
    int len;
    const fdt32_t *clk = prop(uart, "clocks", &len);
    assert_int_equal(len, 8);
    for (int i = 0; i < 2; i++) {
        int fc = phandle_target(fdt32_to_cpu(clk[i]));
        assert_int_equal(fdt_node_check_compatible(dtb, fc, "fixed-clock"), 0);
        assert_int_equal(u32(fc, "#clock-cells"), 0);
        assert_int_equal(u32(fc, "clock-frequency"), 24000000);
    }
    /* the platform parser finds it as the console, as a guest's would */
    struct plat_range r;
    assert_int_equal(dt_node_reg(dtb, uart, 0, &r), 0);
    assert_int_equal(r.base, VBOARD_UART_IPA);
    assert_int_equal(r.size, 0x1000);
}

/* A direct guest (docs/direct-interrupts.md): its GIC CPU interface at the
 * same address (the physical one is mapped there), its UART with no
 * interrupt (none virtual can reach it) */
static void test_direct_guest(void **state)
{
    struct guest_config c = make_cfg("rt", 1);
    c.irq_mode = IRQ_DIRECT;
    struct guest_dt_info info = make_info();
    build(&c, &info);
    int gic = node("/intc@8000000");
    CELLS(gic, "reg", VBOARD_GICD_IPA, 0x1000, VBOARD_GICC_IPA, VBOARD_GICC_SIZE);
    int uart = node("/pl011@9000000");
    CELLS(uart, "reg", 0x09000000, 0x1000);
    assert_null(fdt_getprop(dtb, uart, "interrupts", NULL));
    int timer = node("/timer");
    CELLS(timer, "interrupts", 1, 13, 0x104, 1, 14, 0x104, 1, 11, 0x104, 1, 10, 0x104);
}

/* phandles are unique: no two nodes share one */
static void test_phandles_unique(void **state)
{
    struct guest_config c = make_cfg("g", 4);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    uint32_t seen[16];
    int n = 0;
    for (int off = fdt_next_node(dtb, -1, NULL); off >= 0; off = fdt_next_node(dtb, off, NULL)) {
        uint32_t ph = fdt_get_phandle(dtb, off);
        if (!ph)
            continue;
        for (int i = 0; i < n; i++)
            assert_int_not_equal(seen[i], ph);
        assert_true(n < 16);
        seen[n++] = ph;
    }
    assert_int_equal(n, 2);                 /* the GIC and the clock */
}

/* the writer keeps no state: the same config gives the same bytes */
static void test_deterministic(void **state)
{
    struct guest_config c = make_cfg("g", 3);
    snprintf(c.bootargs, sizeof(c.bootargs), "quiet");
    struct guest_dt_info info = make_info();
    info.host_dt = host_dtb;
    c.npt_regs = 1;
    c.pt_regs[0] = (struct plat_range){ 0x09010000, 0x1000 };
    int size = build(&c, &info);
    uint8_t *first = malloc((size_t)size);
    assert_non_null(first);
    memcpy(first, dtb, (size_t)size);
    assert_int_equal(build(&c, &info), size);
    assert_memory_equal(first, dtb, (size_t)size);
    free(first);
}

/* ---- the PMU ---- */

static void test_pmu_node(void **state)
{
    struct guest_config c = make_cfg("rt", 2);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    assert_true(fdt_path_offset(dtb, "/pmu") < 0);      /* a guest without it: none */
    info.pmu = true;
    info.cpu_compatible = "arm,cortex-a7";
    build(&c, &info);
    int pmu = node("/pmu");
    STRINGS(pmu, "compatible", "arm,cortex-a7-pmu");
    assert_null(fdt_getprop(dtb, pmu, "interrupts", NULL));     /* no interrupt known */
    info.pmu_irq = true;
    build(&c, &info);
    pmu = node("/pmu");
    CELLS(pmu, "interrupts", 1, 7, 0x304);      /* PPI 7, vCPUs 0-1, level-high */
    assert_int_equal(dt_node_irq(dtb, pmu, 0), VBOARD_PMU_IRQ);
}

/* ---- passthrough ---- */

static void test_no_passthrough_nodes(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    info.host_dt = host_dtb;
    build(&c, &info);
    /* root: chosen, memory, cpus, psci, intc, timer, apb-pclk, pl011 */
    assert_int_equal(count_subnodes(0), 8);
}

static void test_passthrough_copies_host_node(void **state)
{
    struct guest_config c = make_cfg("linux0", 2);
    c.identity = true;
    c.mem_size = 0x10000000;
    c.npt_regs = 2;
    c.pt_regs[0] = (struct plat_range){ 0x09010000, 0x1000 };   /* pl031 */
    c.pt_regs[1] = (struct plat_range){ 0x09030000, 0x1000 };   /* pl061 */
    c.npt_irqs = 2;
    c.pt_irqs[0] = 34;
    c.pt_irqs[1] = 39;
    struct guest_dt_info info = make_info();
    info.ram_ipa = (uint32_t)guest_ram_ipa(&c);
    info.host_dt = host_dtb;
    build(&c, &info);
    CELLS(node("/memory@50000000"), "reg", 0x50000000, 0x10000000);

    int rtc = node("/passthrough@9010000");
    STRINGS(rtc, "compatible", "arm,pl031\0arm,primecell");
    CELLS(rtc, "reg", 0x09010000, 0x1000);              /* IPA = PA */
    CELLS(rtc, "interrupts", 0, 2, 4);
    assert_int_equal(dt_node_irq(dtb, rtc, 0), 34);
    assert_null(fdt_getprop(dtb, rtc, "dma-coherent", NULL));
    /* a PrimeCell: the AMBA bus wants its apb_pclk, the guest's own clock */
    STRINGS(rtc, "clock-names", "apb_pclk");
    int clk = fdt_node_offset_by_phandle(dtb, fdt32_ld(fdt_getprop(dtb, rtc, "clocks", NULL)));
    assert_true(clk >= 0);
    assert_int_equal(fdt_node_check_compatible(dtb, clk, "fixed-clock"), 0);

    int gpio = node("/passthrough@9030000");
    STRINGS(gpio, "compatible", "arm,pl061\0arm,primecell");
    CELLS(gpio, "reg", 0x09030000, 0x1000);
    CELLS(gpio, "interrupts", 0, 7, 4);
    assert_int_equal(dt_node_irq(dtb, gpio, 0), 39);
    assert_int_equal(count_subnodes(0), 10);
}

static void test_passthrough_dma_coherent(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    c.npt_regs = 1;
    c.pt_regs[0] = (struct plat_range){ 0x0a000000, 0x1000 };   /* virtio_mmio@a000000 */
    struct guest_dt_info info = make_info();
    info.host_dt = host_dtb;
    build(&c, &info);
    int dev = node("/passthrough@a000000");
    STRINGS(dev, "compatible", "virtio,mmio");
    CELLS(dev, "interrupts", 0, 0x10, 1);
    int len;
    prop(dev, "dma-coherent", &len);
    assert_int_equal(len, 0);
}

/* no host tree, or nothing in it at that address: the range alone */
static void test_passthrough_unknown_device(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    c.npt_regs = 1;
    c.pt_regs[0] = (struct plat_range){ 0x09010000, 0x3000 };
    struct guest_dt_info info = make_info();
    for (int pass = 0; pass < 2; pass++) {
        if (pass)
            c.pt_regs[0].base = 0x0b000000;
        info.host_dt = pass ? host_dtb : NULL;
        build(&c, &info);
        char path[32];
        snprintf(path, sizeof(path), "/passthrough@%x", (unsigned int)c.pt_regs[0].base);
        int dev = node(path);
        CELLS(dev, "reg", (uint32_t)c.pt_regs[0].base, 0x3000);
        assert_null(fdt_getprop(dtb, dev, "compatible", NULL));
        assert_null(fdt_getprop(dtb, dev, "interrupts", NULL));
    }
}

/*
 * A host whose /cpus comes before the device at address 0 (cpu@0 has
 * reg = <0> and no size): the passthrough node must describe the device,
 * not take the CPU's compatible.
 */
static void test_passthrough_ignores_sizeless_nodes(void **state)
{
    static uint8_t host[1024];
    assert_int_equal(fdt_create(host, sizeof(host)), 0);
    assert_int_equal(fdt_finish_reservemap(host), 0);
    assert_int_equal(fdt_begin_node(host, ""), 0);
    assert_int_equal(fdt_property_u32(host, "#address-cells", 1), 0);
    assert_int_equal(fdt_property_u32(host, "#size-cells", 1), 0);
    assert_int_equal(fdt_begin_node(host, "cpus"), 0);
    assert_int_equal(fdt_property_u32(host, "#address-cells", 1), 0);
    assert_int_equal(fdt_property_u32(host, "#size-cells", 0), 0);
    assert_int_equal(fdt_begin_node(host, "cpu@0"), 0);
    assert_int_equal(fdt_property_string(host, "compatible", "arm,cortex-a15"), 0);
    assert_int_equal(fdt_property_u32(host, "reg", 0), 0);
    assert_int_equal(fdt_end_node(host), 0);
    assert_int_equal(fdt_end_node(host), 0);
    assert_int_equal(fdt_begin_node(host, "flash@0"), 0);
    assert_int_equal(fdt_property_string(host, "compatible", "cfi-flash"), 0);
    fdt32_t reg[2] = { 0, cpu_to_fdt32(0x4000000) };
    assert_int_equal(fdt_property(host, "reg", reg, sizeof(reg)), 0);
    assert_int_equal(fdt_end_node(host), 0);
    assert_int_equal(fdt_end_node(host), 0);
    assert_int_equal(fdt_finish(host), 0);

    struct guest_config c = make_cfg("g", 1);
    c.npt_regs = 1;
    c.pt_regs[0] = (struct plat_range){ 0, 0x1000 };
    struct guest_dt_info info = make_info();
    info.host_dt = host;
    build(&c, &info);
    STRINGS(node("/passthrough@0"), "compatible", "cfi-flash");
}

/* every range of GUEST_MAX_PT_REGS gets its node, and it all still fits */
static void test_passthrough_most(void **state)
{
    struct guest_config c = make_cfg("g", GUEST_MAX_VCPUS);
    memset(c.bootargs, 'b', GUEST_BOOTARGS_MAX - 1);
    c.npt_regs = GUEST_MAX_PT_REGS;
    for (unsigned int i = 0; i < GUEST_MAX_PT_REGS; i++)
        c.pt_regs[i] = (struct plat_range){ 0x0a000000 + 0x200 * i, 0x1000 };
    struct guest_dt_info info = make_info();
    info.host_dt = host_dtb;
    info.initrd_ipa = 0x40800000;
    info.initrd_size = 0x1000;
    int size = build(&c, &info);
    assert_int_equal(count_subnodes(0), 8 + GUEST_MAX_PT_REGS);
    assert_true(size < 8192);               /* far below what guest.c gives it */
}

/* ---- a buffer too small ---- */

static void test_buffer_too_small(void **state)
{
    struct guest_config c = make_cfg("g", 4);
    snprintf(c.bootargs, sizeof(c.bootargs), "console=ttyAMA0");
    c.npt_regs = 1;
    c.pt_regs[0] = (struct plat_range){ 0x09010000, 0x1000 };
    struct guest_dt_info info = make_info();
    info.host_dt = host_dtb;
    info.initrd_ipa = 0x40800000;
    info.initrd_size = 0x1000;
    int full = build(&c, &info);
    for (int n = 0; n < full; n++) {
        /* exactly n bytes (ASan), and guard bytes after a second copy */
        uint8_t *buf = malloc(n ? (size_t)n : 1);
        assert_non_null(buf);
        int rc = guest_dt_build(buf, n, &c, &info);
        free(buf);
        if (rc != -FDT_ERR_NOSPACE)
            fail_msg("%d of %d bytes: %d, expected -FDT_ERR_NOSPACE", n, full, rc);
        uint8_t guarded[4096 + 64];
        memset(guarded, 0xa5, sizeof(guarded));
        assert_true(n <= 4096);
        assert_int_equal(guest_dt_build(guarded, n, &c, &info), -FDT_ERR_NOSPACE);
        for (size_t k = (size_t)n; k < sizeof(guarded); k++)
            if (guarded[k] != 0xa5)
                fail_msg("%d-byte buffer: byte %zu written", n, k);
    }
    uint8_t *buf = malloc((size_t)full);
    assert_non_null(buf);
    assert_int_equal(guest_dt_build(buf, full, &c, &info), full);
    assert_memory_equal(buf, dtb, (size_t)full);
    free(buf);
}

/* ---- from the configuration parser to the guest's tree ---- */

static void test_from_parsed_configuration(void **state)
{
    char err[160];
    struct platform plat;
    assert_int_equal(platform_probe(host_dtb, &plat, err, sizeof(err)), 0);
    void *cfg = load_dtb("config-good");
    static struct system_config sys;
    struct config_host h = { &plat, 0x40000000, 0x40800000, host_dtb, 0, false, NULL, 0 };
    assert_int_equal(config_load(cfg, &h, &sys, NULL, NULL), 0);
    assert_int_equal(sys.nguest_cfg, 3);
    for (unsigned int i = 0; i < sys.nguest_cfg; i++) {
        const struct guest_config *g = &sys.guest_cfg[i];
        struct guest_dt_info info = { (uint32_t)guest_ram_ipa(g), 0, 0, "arm,cortex-a15",
                                      host_dtb, false, false };
        build(g, &info);
        check_cpus(g->ncpus, "arm,cortex-a15");
        check_timer(g->ncpus);
        char path[32];
        snprintf(path, sizeof(path), "/memory@%x", (unsigned int)guest_ram_ipa(g));
        CELLS(node(path), "reg", (uint32_t)guest_ram_ipa(g), (uint32_t)g->mem_size);
        assert_int_equal(count_subnodes(0), 8 + (int)g->npt_regs);
    }
    assert_string_equal(prop(0, "model", NULL), "Partita guest bare0");
    free(cfg);
}

/* ---- channels ---- */

static void add_channel(struct guest_config *c, const char *name, unsigned int id,
                        unsigned int member, uint32_t ipa, uint32_t size, uint32_t db, bool ro)
{
    struct guest_channel *gc = &c->channels[c->nchannels++];
    memset(gc, 0, sizeof(*gc));
    snprintf(gc->name, sizeof(gc->name), "%s", name);
    gc->id = id;
    gc->member = member;
    gc->ipa = ipa;
    gc->size = size;
    gc->base = 0x5f000000;
    gc->doorbell = db;
    gc->read_only = ro;
}

static void test_no_channel_nodes(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    assert_true(fdt_path_offset(dtb, "/reserved-memory") < 0);
    assert_true(fdt_node_offset_by_compatible(dtb, -1, "partita,channel") < 0);
    assert_true(fdt_node_offset_by_compatible(dtb, -1, "gpio-keys") < 0);
}

/* a control partition's management page; none for other guests */
static void test_manage_node(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    assert_true(fdt_node_offset_by_compatible(dtb, -1, "partita,manage") < 0);
    c.control = CONTROL_LIST | CONTROL_STOP;
    build(&c, &info);
    int n = node("/partita-manage@90c0000");
    assert_int_equal(fdt_node_check_compatible(dtb, n, "partita,manage"), 0);
    int len;
    const fdt32_t *reg = prop(n, "reg", &len);
    assert_int_equal(len, 8);
    assert_int_equal(fdt32_to_cpu(reg[0]), VBOARD_MANAGE_IPA);
    assert_int_equal(fdt32_to_cpu(reg[1]), VBOARD_MANAGE_SIZE);
    const fdt32_t *rights = prop(n, "partita,rights", &len);
    assert_int_equal(fdt32_to_cpu(rights[0]), CONTROL_LIST | CONTROL_STOP);
}

static void test_channels(void **state)
{
    struct guest_config c = make_cfg("g", 2);
    struct guest_dt_info info = make_info();
    add_channel(&c, "chan0", 0, 1, 0x70000000, 0x10000, 64, false);
    add_channel(&c, "log", 3, 0, 0x70100000, 0x4000, 40, true);
    build(&c, &info);

    /* reserved-memory: the regions, no-map, outside the guest's RAM */
    int rm = node("/reserved-memory");
    assert_int_equal(u32(rm, "#address-cells"), 1);
    assert_int_equal(u32(rm, "#size-cells"), 1);
    int len;
    prop(rm, "ranges", &len);
    assert_int_equal(len, 0);
    int r0 = node("/reserved-memory/channel@70000000");
    CELLS(r0, "reg", 0x70000000, 0x10000);
    prop(r0, "no-map", &len);
    int r1 = node("/reserved-memory/channel@70100000");
    CELLS(r1, "reg", 0x70100000, 0x4000);

    /* the channel: memory and doorbell page, its SPI, id, member, rights */
    int n0 = node("/channel@70000000");
    STRINGS(n0, "compatible", "partita,channel");
    CELLS(n0, "reg", 0x70000000, 0x10000, 0x70010000, 0x1000);
    STRINGS(n0, "reg-names", "memory\0doorbell");
    CELLS(n0, "interrupts", 0, 64 - 32, 1);
    assert_int_equal(phandle_target(u32(n0, "memory-region")), r0);
    STRINGS(n0, "label", "chan0");
    assert_int_equal(u32(n0, "partita,channel-id"), 0);
    assert_int_equal(u32(n0, "partita,member"), 1);
    assert_null(fdt_getprop(dtb, n0, "partita,read-only", NULL));
    int n1 = node("/channel@70100000");
    CELLS(n1, "reg", 0x70100000, 0x4000, 0x70104000, 0x1000);
    CELLS(n1, "interrupts", 0, 40 - 32, 1);
    assert_int_equal(phandle_target(u32(n1, "memory-region")), r1);
    assert_int_equal(u32(n1, "partita,channel-id"), 3);
    prop(n1, "partita,read-only", &len);
    assert_int_equal(len, 0);

    /* the doorbells as interrupt-only gpio-keys buttons for Linux */
    int k = node("/partita-doorbells");
    STRINGS(k, "compatible", "gpio-keys");
    STRINGS(k, "label", "partita-doorbells");
    assert_int_equal(count_subnodes(k), 2);
    int b0 = node("/partita-doorbells/channel-0");
    assert_int_equal(u32(b0, "linux,code"), CHANNEL_DOORBELL_KEY + 0);
    CELLS(b0, "interrupts", 0, 64 - 32, 1);
    assert_int_equal(u32(b0, "debounce-interval"), 0);
    STRINGS(b0, "label", "chan0");
    int b3 = node("/partita-doorbells/channel-3");
    assert_int_equal(u32(b3, "linux,code"), CHANNEL_DOORBELL_KEY + 3);
    CELLS(b3, "interrupts", 0, 40 - 32, 1);
}

/* ---- a driver partition's disks (docs/disks.md) ---- */

static void add_driven(struct guest_config *c, const char *name, uint32_t q, uint32_t size,
                       uint32_t irq, uint32_t done)
{
    struct guest_driven *v = &c->driven[c->ndriven++];
    memset(v, 0, sizeof(*v));
    snprintf(v->name, sizeof(v->name), "%s", name);
    v->queue_ipa = q;
    v->queue_size = size;
    v->irq = irq;
    v->done_ipa = done;
}

/* the queues are left out of /memory and reserved no-map; each disk is a
 * partita,disk-driver node with its queue and done page; its request
 * interrupt a gpio-keys button beside a channel's doorbell */
static void test_disk_driver(void **state)
{
    struct guest_config c = make_cfg("drv", 1);
    struct guest_dt_info info = make_info();
    c.mem_size = 0x08000000;
    add_channel(&c, "chan0", 2, 0, 0x70000000, 0x10000, 64, false);
    add_driven(&c, "vd", 0x44000000, 0x200000, 60, 0x0a100000);
    add_driven(&c, "bare", 0x40000000, 0x21000, 61, 0);
    build(&c, &info);

    CELLS(node("/memory@40000000"), "reg", 0x40021000, 0x44000000 - 0x40021000,
          0x44200000, 0x48000000 - 0x44200000);
    int r0 = node("/reserved-memory/disk-queue@44000000");
    CELLS(r0, "reg", 0x44000000, 0x200000);
    int len;
    prop(r0, "no-map", &len);
    assert_int_equal(len, 0);
    node("/reserved-memory/channel@70000000");

    int d0 = node("/disk-driver@44000000");
    STRINGS(d0, "compatible", "partita,disk-driver");
    CELLS(d0, "reg", 0x44000000, 0x200000, 0x0a100000, DISK_DONE_SIZE);
    STRINGS(d0, "reg-names", "queue\0done");
    CELLS(d0, "interrupts", 0, 60 - 32, 1);
    assert_int_equal(phandle_target(u32(d0, "memory-region")), r0);
    STRINGS(d0, "label", "vd");
    assert_int_equal(u32(d0, "partita,disk"), 0);
    int d1 = node("/disk-driver@40000000");         /* no done page: the call only */
    CELLS(d1, "reg", 0x40000000, 0x21000);
    STRINGS(d1, "reg-names", "queue");
    assert_int_equal(u32(d1, "partita,disk"), 1);

    int k = node("/partita-doorbells");
    assert_int_equal(count_subnodes(k), 3);
    assert_int_equal(u32(node("/partita-doorbells/channel-2"), "linux,code"),
                     CHANNEL_DOORBELL_KEY + 2);
    int b = node("/partita-doorbells/disk-1");
    assert_int_equal(u32(b, "linux,code"), PARTITA_BLKQ_KEY_BASE + 1);
    CELLS(b, "interrupts", 0, 61 - 32, 1);
    STRINGS(b, "label", "bare");
    assert_int_equal(u32(b, "debounce-interval"), 0);
}

/* every member's tree from a parsed configuration */
static void test_channels_from_configuration(void **state)
{
    char err[160];
    struct platform plat;
    assert_int_equal(platform_probe(host_dtb, &plat, err, sizeof(err)), 0);
    void *cfg = load_dtb("config-channels");
    static struct system_config sys;
    struct config_host h = { &plat, 0x40000000, 0x40800000, host_dtb, 0, false, NULL, 0 };
    assert_int_equal(config_load(cfg, &h, &sys, NULL, NULL), 0);
    const struct guest_config *rt = &sys.guest_cfg[1];
    struct guest_dt_info info = { (uint32_t)guest_ram_ipa(rt), 0, 0, "arm,cortex-a15", host_dtb, false, false };
    build(rt, &info);
    CELLS(node("/channel@60000000"), "reg", 0x60000000, 0x10000, 0x60010000, 0x1000);
    CELLS(node("/channel@60100000"), "reg", 0x60100000, 0x4000, 0x60104000, 0x1000);
    assert_int_equal(u32(node("/channel@60100000"), "partita,channel-id"), 1);
    assert_int_equal(count_subnodes(node("/partita-doorbells")), 2);
    free(cfg);
}

/* ---- networks ---- */

static void test_network_devices(void **state)
{
    char err[160];
    struct platform plat;
    assert_int_equal(platform_probe(host_dtb, &plat, err, sizeof(err)), 0);
    void *cfg = load_dtb("config-network");
    static struct system_config sys;
    struct config_host h = { &plat, 0x40000000, 0x40800000, host_dtb, 0, false, NULL, 0 };
    assert_int_equal(config_load(cfg, &h, &sys, NULL, NULL), 0);
    const struct guest_config *rt = &sys.guest_cfg[1];
    struct guest_dt_info info = { (uint32_t)guest_ram_ipa(rt), 0, 0, "arm,cortex-a15", host_dtb,
                                  false, false };
    build(rt, &info);
    /* as QEMU virt describes its virtio-mmio transports */
    int n = node("/virtio_mmio@a000200");
    STRINGS(n, "compatible", "virtio,mmio");
    CELLS(n, "reg", 0x0a000200, VIRTIO_MMIO_SIZE);
    CELLS(n, "interrupts", 0, 49 - 32, 1);
    int len;
    prop(n, "dma-coherent", &len);
    assert_int_equal(len, 0);
    STRINGS(n, "label", "lan");
    assert_int_equal(fdt_node_offset_by_compatible(dtb, n, "virtio,mmio"), -FDT_ERR_NOTFOUND);
    free(cfg);
}

static void test_virtio_console_node(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    c.vcon = true;
    c.vcon_ipa = 0x0a000600;
    c.vcon_irq = 52;
    build(&c, &info);
    int n = node("/virtio_mmio@a000600");
    STRINGS(n, "compatible", "virtio,mmio");
    CELLS(n, "reg", 0x0a000600, VIRTIO_MMIO_SIZE);
    CELLS(n, "interrupts", 0, 52 - 32, 1);
    STRINGS(n, "label", "console");
}

static void test_disk_device_node(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    c.ndisks = 1;
    snprintf(c.disks[0].name, sizeof(c.disks[0].name), "store");
    c.disks[0].ipa = 0x0a000400;
    c.disks[0].irq = 50;
    build(&c, &info);
    int n = node("/virtio_mmio@a000400");
    STRINGS(n, "compatible", "virtio,mmio");
    CELLS(n, "reg", 0x0a000400, VIRTIO_MMIO_SIZE);
    CELLS(n, "interrupts", 0, 50 - 32, 1);
    STRINGS(n, "label", "store");
}

static void test_no_network_devices(void **state)
{
    struct guest_config c = make_cfg("g", 1);
    struct guest_dt_info info = make_info();
    build(&c, &info);
    assert_true(fdt_node_offset_by_compatible(dtb, -1, "virtio,mmio") < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root),
        cmocka_unit_test(test_no_channel_nodes),
        cmocka_unit_test(test_manage_node),
        cmocka_unit_test(test_channels),
        cmocka_unit_test(test_channels_from_configuration),
        cmocka_unit_test(test_disk_driver),
        cmocka_unit_test(test_network_devices),
        cmocka_unit_test(test_no_network_devices),
        cmocka_unit_test(test_virtio_console_node),
        cmocka_unit_test(test_disk_device_node),
        cmocka_unit_test(test_longest_name),
        cmocka_unit_test(test_chosen_stdout_is_the_uart),
        cmocka_unit_test(test_chosen_bootargs),
        cmocka_unit_test(test_chosen_longest_bootargs),
        cmocka_unit_test(test_chosen_initrd),
        cmocka_unit_test(test_memory_at_virtual_ram),
        cmocka_unit_test(test_memory_identity_mapped),
        cmocka_unit_test(test_cpus_one),
        cmocka_unit_test(test_cpus_four),
        cmocka_unit_test(test_cpus_most),
        cmocka_unit_test(test_psci),
        cmocka_unit_test(test_gic),
        cmocka_unit_test(test_timer_one_cpu),
        cmocka_unit_test(test_timer_four_cpus),
        cmocka_unit_test(test_timer_eight_cpus),
        cmocka_unit_test(test_uart),
        cmocka_unit_test(test_direct_guest),
        cmocka_unit_test(test_phandles_unique),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_pmu_node),
        cmocka_unit_test(test_no_passthrough_nodes),
        cmocka_unit_test(test_passthrough_copies_host_node),
        cmocka_unit_test(test_passthrough_dma_coherent),
        cmocka_unit_test(test_passthrough_unknown_device),
        cmocka_unit_test(test_passthrough_ignores_sizeless_nodes),
        cmocka_unit_test(test_passthrough_most),
        cmocka_unit_test(test_buffer_too_small),
        cmocka_unit_test(test_from_parsed_configuration),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
