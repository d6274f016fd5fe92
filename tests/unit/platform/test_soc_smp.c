/*
 * Host unit tests for the SoC start methods (hyp/platform/soc_smp*.c): the
 * platform probe on real board DTs (Debian's, decompiled unmodified into
 * fixtures/board-*.dts) picks each family's method and reads its registers
 * from the DT; each CPU's plan is then run by soc_smp_run against a model
 * of the SoC's registers and of what its boot ROM (or bootloader pen) does
 * with them, as the Linux port the method follows expects.  The test
 * asserts where the modelled CPU would jump, not the steps themselves.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "hyp/platform/platform.h"
#include "hyp/platform/soc_smp.h"

#define ENTRY 0x80212340u

static struct platform plat;

/* a part of the probe failed: only /memory may (U-Boot fills it in on sunxi) */
static void probe_failed(void *ctx, enum plat_part part, const char *err)
{
    if (part != PLAT_PART_MEMORY)
        fail_msg("%s: %s", (const char *)ctx, err);
}

static void probe_fdt(void *fdt, const char *name)
{
    platform_probe_all(fdt, &plat, probe_failed, (void *)name);
    free(fdt);
}

static void probe_board(const char *name)
{
    probe_fdt(fixture_load(name, 0, NULL), name);
}

/* ---- a register model: a few registers, a write log, a clock ---- */

#define MODEL_REGS 16
#define MODEL_LOG 32
struct model {
    struct { uint64_t pa; uint32_t v; } reg[MODEL_REGS];
    unsigned int nreg;
    struct { uint64_t pa; uint32_t v; } log[MODEL_LOG];
    unsigned int nlog;
    uint64_t now_us;
    void (*on_write)(struct model *m, uint64_t pa, uint32_t v);
    uint32_t (*on_read)(struct model *m, uint64_t pa, uint32_t v);
    uint64_t pmu;               /* Rockchip: the PMU base */
    uint64_t ack_at_us;         /* Rockchip: when PWRDN_ST follows PWRDN_CON */
    bool pmu_dead;              /* Rockchip: PWRDN_ST never follows */
};

static uint32_t *model_reg(struct model *m, uint64_t pa)
{
    for (unsigned int i = 0; i < m->nreg; i++)
        if (m->reg[i].pa == pa)
            return &m->reg[i].v;
    assert_true(m->nreg < MODEL_REGS);
    m->reg[m->nreg].pa = pa;
    m->reg[m->nreg].v = 0;
    return &m->reg[m->nreg++].v;
}

static uint32_t model_read32(void *ctx, uint64_t pa)
{
    struct model *m = ctx;
    uint32_t v = *model_reg(m, pa);
    return m->on_read ? m->on_read(m, pa, v) : v;
}

static void model_write32(void *ctx, uint64_t pa, uint32_t v)
{
    struct model *m = ctx;
    assert_true(m->nlog < MODEL_LOG);
    m->log[m->nlog].pa = pa;
    m->log[m->nlog++].v = v;
    if (m->on_write)
        m->on_write(m, pa, v);
    else
        *model_reg(m, pa) = v;
}

static void model_delay(void *ctx, uint32_t us)
{
    ((struct model *)ctx)->now_us += us;
}

/* run CPU i's plan on the model; returns soc_smp_run's result */
static int run_cpu(struct model *m, unsigned int i)
{
    struct soc_step st[SOC_MAX_STEPS];
    struct soc_io io = { model_read32, model_write32, model_delay, m };
    unsigned int n = soc_smp_plan(&plat, &plat.cpus[i], ENTRY, st);
    assert_true(n > 0 && n <= SOC_MAX_STEPS);
    return soc_smp_run(st, n, &io);
}

/* the index in the write log of the last write of v to pa, or -1 */
static int logged(const struct model *m, uint64_t pa, uint32_t v)
{
    for (int i = (int)m->nlog - 1; i >= 0; i--)
        if (m->log[i].pa == pa && m->log[i].v == v)
            return i;
    return -1;
}

/* ---- TI OMAP5 / DRA7 ---- */

#define WUGEN 0x48281000u

/*
 * The ROM sends the woken CPU 1 to AUX_CORE_BOOT_1; Linux's (and so any
 * HYP-entry) path then holds it until AUX_CORE_BOOT_0 >> 5 is its number.
 */
static uint32_t omap_cpu1_goes_to(struct model *m)
{
    uint32_t boot0 = *model_reg(m, WUGEN + 0x800), boot1 = *model_reg(m, WUGEN + 0x804);
    return (boot0 >> 5) == 1 ? boot1 : 0;
}

static void check_omap(const char *board, const char *key)
{
    probe_board(board);
    assert_non_null(plat.soc_smp.method);
    assert_string_equal(plat.soc_smp.method->key, key);
    assert_int_equal(plat.soc_smp.reg[0], WUGEN);      /* from ti,omap4-wugen-mpu */
    assert_int_equal(plat.soc_smp.method->hyp_entry_smc, 0x102);   /* API_HYP_ENTRY */
    assert_int_equal(plat.soc_smp.method->cntfrq_smc, 0x109);
    assert_int_equal(plat.ncpus, 2);
    assert_int_equal(plat.cpus[1].method, CPU_METHOD_SOC);
    struct model m = { 0 };
    assert_int_equal(run_cpu(&m, 1), 0);
    assert_int_equal(omap_cpu1_goes_to(&m), ENTRY);
    /* the address before the release, as omap4_smp_prepare_cpus/boot_secondary */
    assert_true(logged(&m, WUGEN + 0x804, ENTRY) < logged(&m, WUGEN + 0x800, 0x20));
    /* the boot CPU has no plan: the ROM only ever releases CPU 1 */
    struct soc_step st[SOC_MAX_STEPS];
    assert_int_equal(soc_smp_plan(&plat, &plat.cpus[0], ENTRY, st), 0);
}

static void test_dra7_beagle_x15(void **state)
{
    check_omap("board-am57xx-beagle-x15", "ti,dra7");
    assert_int_equal(plat.gic.maint_irq, 25);
}

static void test_omap5_uevm(void **state)
{
    check_omap("board-omap5-uevm", "ti,omap5");
    /* omap5.dtsi has no maintenance interrupt: the quirk table's PPI 9 */
    assert_int_equal(plat.gic.maint_irq, 25);
    assert_non_null(plat.gic.quirk);
    assert_int_equal(plat.gic.gich.base, 0x48214000);
}

/* a DT without the wakeup generator: no method, and the reason */
static void test_omap_without_wugen(void **state)
{
    char err[160];
    void *fdt = fixture_load("board-omap5-uevm", 0, NULL);
    int node = fdt_node_offset_by_compatible(fdt, -1, "ti,omap4-wugen-mpu");
    assert_true(node >= 0);
    assert_int_equal(fdt_nop_node(fdt, node), 0);
    assert_int_equal(platform_probe(fdt, &plat, err, sizeof(err)), 0);
    free(fdt);
    assert_null(plat.soc_smp.method);
    assert_int_equal(plat.cpus[1].method, CPU_METHOD_NONE);
    assert_non_null(strstr(plat.soc_smp.err, "ti,omap4-wugen-mpu"));
}

/* ---- Rockchip RK3288 / RK3036 ---- */

#define RK_SRAM 0xff700000u
#define RK_PMU 0xff730000u
#define RK_SOFTRST 0xff7601b8u

/* the PMU: PWRDN_ST follows PWRDN_CON 20 us later; the CRU's write mask */
static void rk_write(struct model *m, uint64_t pa, uint32_t v)
{
    if (pa >= RK_SOFTRST && pa < RK_SOFTRST + 12 * 4) {
        uint32_t *r = model_reg(m, pa), mask = v >> 16;
        *r = (*r & ~mask) | (v & mask);
        return;
    }
    *model_reg(m, pa) = v;
    if (pa == m->pmu + 0x08)
        m->ack_at_us = m->now_us + 20;
}

/* PWRDN_ST keeps the old state until the PMU has acted on PWRDN_CON */
static uint32_t rk_read(struct model *m, uint64_t pa, uint32_t v)
{
    if (pa == m->pmu + 0x0c && !m->pmu_dead && m->now_us >= m->ack_at_us)
        *model_reg(m, pa) = *model_reg(m, m->pmu + 0x08);
    return *model_reg(m, pa);
}

static void test_rk3288_firefly(void **state)
{
    probe_board("board-rk3288-firefly");
    assert_non_null(plat.soc_smp.method);
    assert_string_equal(plat.soc_smp.method->key, "rockchip,rk3066-smp");   /* /cpus */
    assert_int_equal(plat.soc_smp.reg[0], RK_SRAM);     /* through the SRAM's ranges */
    assert_int_equal(plat.soc_smp.reg[1], RK_PMU);      /* /cpus rockchip,pmu */
    assert_int_equal(plat.soc_smp.reg[2], RK_SOFTRST);
    assert_int_equal(plat.ncpus, 4);
    for (unsigned int i = 1; i < 4; i++) {
        struct model m = { .on_write = rk_write, .on_read = rk_read, .pmu = RK_PMU };
        uint32_t rbit = 1u << plat.cpus[i].soc_reset, pd = 1u << i;
        assert_int_equal(plat.cpus[i].soc_reset, (int)i);   /* resets = <&cru SRST_COREi> */
        *model_reg(&m, RK_SRAM + 4) = 0;
        assert_int_equal(run_cpu(&m, i), 0);
        /* powered, out of reset, the other cores untouched */
        assert_int_equal(*model_reg(&m, RK_PMU + 0x08), 0);
        assert_int_equal(*model_reg(&m, RK_SOFTRST) & 0xffff, 0);
        /* it went through off (in reset), then on */
        int off = logged(&m, RK_PMU + 0x08, pd), on = logged(&m, RK_PMU + 0x08, 0);
        int held = logged(&m, RK_SOFTRST, rbit | rbit << 16);
        assert_true(held >= 0 && held < off && off < on);
        assert_true(on < logged(&m, RK_SOFTRST, rbit << 16));
        /* the ROM had 1 ms to reach its WFE before the mailbox was written */
        assert_true(m.now_us >= 1000 + 40);
        /* the ROM's mailbox: the entry, then the magic it wakes up to */
        assert_int_equal(*model_reg(&m, RK_SRAM + 8), ENTRY);
        assert_int_equal(*model_reg(&m, RK_SRAM + 4), 0xdeadbeaf);
        assert_true(logged(&m, RK_SRAM + 8, ENTRY) < logged(&m, RK_SRAM + 4, 0xdeadbeaf));
    }
}

static void test_rk3288_pmu_timeout(void **state)
{
    probe_board("board-rk3288-firefly");
    struct model m = { .on_write = rk_write, .on_read = rk_read, .pmu = RK_PMU,
                       .pmu_dead = true };
    int rc = run_cpu(&m, 1);
    assert_int_equal(rc, 3);                /* the poll for "off" gives up */
    assert_true(m.now_us >= SOC_POLL_TIMEOUT_US);
    assert_int_equal(logged(&m, RK_SRAM + 4, 0xdeadbeaf), -1);  /* never released */
}

static void test_rk3288_cpu_without_reset(void **state)
{
    char err[160];
    void *fdt = fixture_load("board-rk3288-firefly", 0, NULL);
    int node = fdt_path_offset(fdt, "/cpus/cpu@502");
    assert_true(node >= 0);
    assert_int_equal(fdt_nop_property(fdt, node, "resets"), 0);
    assert_int_equal(platform_probe(fdt, &plat, err, sizeof(err)), 0);
    free(fdt);
    assert_null(plat.soc_smp.method);
    assert_non_null(strstr(plat.soc_smp.err, "reset"));
    assert_int_equal(plat.cpus[2].method, CPU_METHOD_NONE);
}

static void test_rk3036_kylin(void **state)
{
    probe_board("board-rk3036-kylin");
    assert_non_null(plat.soc_smp.method);
    assert_string_equal(plat.soc_smp.method->key, "rockchip,rk3036-smp");
    assert_int_equal(plat.soc_smp.reg[0], 0x10080000);
    struct model m = { 0 };
    assert_int_equal(run_cpu(&m, 1), 0);
    assert_int_equal(*model_reg(&m, 0x10080008), ENTRY);
    assert_int_equal(*model_reg(&m, 0x10080004), 0xdeadbeaf);
    assert_int_equal(m.nlog, 2);            /* no PMU on the RK3036 */
    assert_true(m.now_us >= 1000);
}

/* ---- ASPEED AST2600 ---- */

#define AST_MBOX 0x1e6e2180u

/* U-Boot's pen: CPU n leaves when BOOT_SIG is 0xABBAAB00 | n, for BOOT_ADDR */
static uint32_t ast_cpu_goes_to(struct model *m, uint32_t cpu)
{
    return *model_reg(m, AST_MBOX + 4) == (0xabbaab00u | cpu) ? *model_reg(m, AST_MBOX) : 0;
}

static void test_ast2600_evb(void **state)
{
    probe_board("board-aspeed-ast2600-evb");
    assert_non_null(plat.soc_smp.method);
    assert_string_equal(plat.soc_smp.method->key, "aspeed,ast2600-smp");
    assert_int_equal(plat.soc_smp.reg[0], AST_MBOX);    /* SCU + 0x180 */
    assert_int_equal(plat.ncpus, 2);
    struct model m = { 0 };
    *model_reg(&m, AST_MBOX + 4) = 0xabbaab01u;         /* a stale go from before */
    *model_reg(&m, AST_MBOX) = 0x12345678u;
    assert_int_equal(run_cpu(&m, 1), 0);
    assert_int_equal(ast_cpu_goes_to(&m, 1), ENTRY);
    assert_int_equal(ast_cpu_goes_to(&m, 0), 0);
    /* never "go" with a stale address: the signature is reset first */
    assert_true(logged(&m, AST_MBOX + 4, 0xbadababa) < logged(&m, AST_MBOX, ENTRY));
}

/* ---- Samsung Exynos5250 ---- */

#define EXY_PMU 0x10040000u
#define EXY_SYSRAM 0x02020000u

/* the PMU: ARM_CORE_STATUS(n) follows ARM_CORE_CONFIGURATION(n) 100 us later */
static void exy_write(struct model *m, uint64_t pa, uint32_t v)
{
    *model_reg(m, pa) = v;
    if (pa >= EXY_PMU + 0x2000 && pa < EXY_PMU + 0x2400 && (pa & 0x7f) == 0)
        m->ack_at_us = m->now_us + 100;
}

static uint32_t exy_read(struct model *m, uint64_t pa, uint32_t v)
{
    if (pa >= EXY_PMU + 0x2000 && (pa & 0x7f) == 4 && m->now_us >= m->ack_at_us)
        *model_reg(m, pa) = *model_reg(m, pa - 4);
    return *model_reg(m, pa);
}

static void test_exynos5250_arndale(void **state)
{
    probe_board("board-exynos5250-arndale");
    assert_non_null(plat.soc_smp.method);
    assert_string_equal(plat.soc_smp.method->key, "samsung,exynos5250");
    assert_int_equal(plat.soc_smp.reg[0], EXY_PMU);
    assert_int_equal(plat.soc_smp.reg[1], EXY_SYSRAM);  /* through the SRAM's ranges */
    assert_int_equal(plat.cpus[1].method, CPU_METHOD_SOC);
    /* a core that is off: powered, then its entry in the boot register */
    struct model m = { .on_write = exy_write, .on_read = exy_read };
    assert_int_equal(run_cpu(&m, 1), 0);
    assert_int_equal(*model_reg(&m, EXY_PMU + 0x2080) & 3, 3);
    assert_int_equal(*model_reg(&m, EXY_PMU + 0x2084) & 3, 3);
    assert_true(m.now_us >= 100);
    assert_int_equal(*model_reg(&m, EXY_SYSRAM), ENTRY);   /* the iROM's pen jumps here */
    assert_true(logged(&m, EXY_PMU + 0x2080, 3) < logged(&m, EXY_SYSRAM, ENTRY));
    /* a core that is on keeps its other configuration bits */
    struct model on = { .on_write = exy_write, .on_read = exy_read };
    *model_reg(&on, EXY_PMU + 0x2080) = 0x80000003u;
    *model_reg(&on, EXY_PMU + 0x2084) = 3;
    assert_int_equal(run_cpu(&on, 1), 0);
    assert_int_equal(*model_reg(&on, EXY_PMU + 0x2080), 0x80000003u);
}

/* with TrustZone firmware the CPU would come back in non-secure SVC: refused */
static void test_exynos_secure_firmware_refused(void **state)
{
    char err[160];
    void *fdt = fixture_load("board-exynos5250-arndale", 256, NULL);
    int fw = fdt_add_subnode(fdt, 0, "firmware@203f000");
    assert_true(fw >= 0);
    assert_int_equal(fdt_setprop_string(fdt, fw, "compatible", "samsung,secure-firmware"), 0);
    assert_int_equal(platform_probe(fdt, &plat, err, sizeof(err)), 0);
    free(fdt);
    assert_null(plat.soc_smp.method);
    assert_int_equal(plat.cpus[1].method, CPU_METHOD_NONE);
    assert_non_null(strstr(plat.soc_smp.err, "non-secure SVC"));
}

/* a second cluster (Exynos5420/5422/5800): Linux starts it by MCPM, not followed */
static void test_exynos_second_cluster_refused(void **state)
{
    void *fdt = fixture_load("board-exynos5250-arndale", 0, NULL);
    int cpu1 = fdt_path_offset(fdt, "/cpus/cpu@1");
    assert_true(cpu1 >= 0);
    assert_int_equal(fdt_setprop_inplace_u32(fdt, cpu1, "reg", 0x100), 0);
    probe_fdt(fdt, "arndale with cpu@1 in cluster 1");
    assert_null(plat.soc_smp.method);
    assert_int_equal(plat.cpus[1].method, CPU_METHOD_NONE);
    assert_non_null(strstr(plat.soc_smp.err, "MCPM"));
}

/* ---- Allwinner A31 / A23 ---- */

#define SUNXI_PRCM 0x01f01400u
#define SUNXI_CPUCFG 0x01f01c00u

/*
 * The core leaves reset (CPU_RST_CTRL = 3) and runs from PRIVATE0 if it was
 * powered (its PWROFF gate clear for 1 ms, on the A31 its clamp fully open
 * for 10 ms before that) and its L1 was reset with it.
 */
struct sunxi_core { uint64_t powered_at; bool l1_reset; uint32_t started_at; };
static struct sunxi_core sunxi_cores[4];
static bool sunxi_a31;

static void sunxi_write(struct model *m, uint64_t pa, uint32_t v)
{
    uint32_t old = *model_reg(m, pa);
    *model_reg(m, pa) = v;
    for (uint32_t cpu = 1; cpu < 4; cpu++) {
        struct sunxi_core *c = &sunxi_cores[cpu];
        if (pa == SUNXI_CPUCFG + 0x184 && (old & (1u << cpu)) && !(v & (1u << cpu)))
            c->l1_reset = true;
        if (pa == SUNXI_PRCM + 0x100 && (old & (1u << cpu)) && !(v & (1u << cpu)))
            c->powered_at = m->now_us;
        if (pa == SUNXI_PRCM + 0x140 + 4 * cpu && v == 0)
            m->ack_at_us = m->now_us;       /* clamp open */
        if (pa == SUNXI_CPUCFG + (cpu + 1) * 0x40 && v == 3 && c->l1_reset &&
            !(*model_reg(m, SUNXI_PRCM + 0x100) & (1u << cpu)) &&
            m->now_us >= c->powered_at + 1000 &&
            (!sunxi_a31 || (*model_reg(m, SUNXI_PRCM + 0x140 + 4 * cpu) == 0 &&
                            c->powered_at >= m->ack_at_us + 10000)))
            c->started_at = *model_reg(m, SUNXI_CPUCFG + 0x1a4);
    }
}

static void check_sunxi(const char *board, const char *key, bool a31)
{
    probe_board(board);
    assert_non_null(plat.soc_smp.method);
    assert_string_equal(plat.soc_smp.method->key, key);     /* /cpus enable-method */
    assert_int_equal(plat.soc_smp.reg[0], SUNXI_PRCM);
    assert_int_equal(plat.soc_smp.reg[1], SUNXI_CPUCFG);
    assert_int_equal(plat.ncpus, 4);
    for (unsigned int i = 1; i < 4; i++) {
        struct model m = { .on_write = sunxi_write };
        memset(sunxi_cores, 0, sizeof(sunxi_cores));
        sunxi_a31 = a31;
        *model_reg(&m, SUNXI_PRCM + 0x100) = 0xe;           /* cores 1-3 gated off */
        *model_reg(&m, SUNXI_CPUCFG + 0x184) = 0xf;         /* L1s out of reset */
        *model_reg(&m, SUNXI_CPUCFG + 0x1e4) = 0xf;         /* debug on */
        *model_reg(&m, SUNXI_PRCM + 0x140 + 4 * i) = 0xff;  /* clamp closed */
        assert_int_equal(run_cpu(&m, i), 0);
        assert_int_equal(sunxi_cores[i].started_at, ENTRY);
        for (unsigned int k = 1; k < 4; k++)                /* only this core */
            assert_true(k == i || sunxi_cores[k].started_at == 0);
        assert_int_equal(*model_reg(&m, SUNXI_CPUCFG + 0x1e4), 0xf);  /* debug back */
    }
}

static void test_sun6i_a31_hummingbird(void **state)
{
    check_sunxi("board-sun6i-a31-hummingbird", "allwinner,sun6i-a31", true);
}

static void test_sun8i_a33_olinuxino(void **state)
{
    check_sunxi("board-sun8i-a33-olinuxino", "allwinner,sun8i-a23", false);
}

/* U-Boot's /psci, when the DT has it, wins (as in Linux) */
static void test_sunxi_psci_wins(void **state)
{
    void *fdt = fixture_load("board-sun8i-a33-olinuxino", 256, NULL);
    int psci = fdt_add_subnode(fdt, 0, "psci");
    assert_true(psci >= 0);
    assert_int_equal(fdt_setprop_string(fdt, psci, "compatible", "arm,psci-0.2"), 0);
    assert_int_equal(fdt_setprop_string(fdt, psci, "method", "smc"), 0);
    probe_fdt(fdt, "sun8i-a33-olinuxino with /psci");
    assert_int_equal(plat.cpus[1].method, CPU_METHOD_PSCI);
    assert_null(plat.soc_smp.method);
}

/* ---- no method for boards that do not need or match one ---- */

static void test_psci_and_unknown_socs(void **state)
{
    probe_board("qemu-virt");
    assert_null(plat.soc_smp.method);
    assert_int_equal(plat.soc_smp.err[0], '\0');
    assert_int_equal(plat.cpus[1].method, CPU_METHOD_PSCI);
    probe_board("vexpress-a15");
    assert_null(plat.soc_smp.method);
    assert_int_equal(plat.cpus[1].method, CPU_METHOD_SYSFLAGS);
    assert_string_equal(platform_cpu_method_name(CPU_METHOD_SOC), "soc");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dra7_beagle_x15),
        cmocka_unit_test(test_omap5_uevm),
        cmocka_unit_test(test_omap_without_wugen),
        cmocka_unit_test(test_rk3288_firefly),
        cmocka_unit_test(test_rk3288_pmu_timeout),
        cmocka_unit_test(test_rk3288_cpu_without_reset),
        cmocka_unit_test(test_rk3036_kylin),
        cmocka_unit_test(test_ast2600_evb),
        cmocka_unit_test(test_exynos5250_arndale),
        cmocka_unit_test(test_exynos_secure_firmware_refused),
        cmocka_unit_test(test_exynos_second_cluster_refused),
        cmocka_unit_test(test_sun6i_a31_hummingbird),
        cmocka_unit_test(test_sun8i_a33_olinuxino),
        cmocka_unit_test(test_sunxi_psci_wins),
        cmocka_unit_test(test_psci_and_unknown_socs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
