/*
 * Host unit tests for the release plans of CPUs started through a release
 * address (hyp/platform/cpu_release.c), on the CPUs the platform probe finds in
 * real-shaped device trees: spin-table with one- and two-cell
 * cpu-release-addr, Versatile Express system flags, and PSCI (no plan).
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
#include "hyp/platform/cpu_release.h"

#define ENTRY 0x40212340u

static struct platform plat;

static void probe_fixture(const char *name)
{
    char err[160];
    void *fdt = fixture_load(name, 0, NULL);
    if (platform_probe(fdt, &plat, err, sizeof(err)) != 0)
        fail_msg("%s: %s", name, err);
    free(fdt);
}

static void test_spin_table_two_cells_write_64_bits(void **state)
{
    struct release_write w[RELEASE_MAX_WRITES];
    probe_fixture("virt-spin-table");
    assert_int_equal(cpu_release_plan(&plat.cpus[1], ENTRY, w), 1);
    assert_int_equal(w[0].pa, 0x4000fff8);
    assert_int_equal(w[0].size, 8);         /* no stale upper word */
    assert_int_equal(w[0].value, ENTRY);
    /* above 4 GiB: the address is kept whole (LPAE maps it) */
    assert_int_equal(cpu_release_plan(&plat.cpus[2], ENTRY, w), 1);
    assert_int_equal(w[0].pa, 0x10000fff0ull);
}

static void test_spin_table_one_cell_writes_32_bits(void **state)
{
    struct release_write w[RELEASE_MAX_WRITES];
    probe_fixture("virt-spin-table");
    assert_int_equal(cpu_release_plan(&plat.cpus[3], ENTRY, w), 1);
    assert_int_equal(w[0].pa, 0x4000fff0);
    assert_int_equal(w[0].size, 4);
    assert_int_equal(w[0].value, ENTRY);
}

static void test_vexpress_flags_clear_then_set(void **state)
{
    struct release_write w[RELEASE_MAX_WRITES];
    probe_fixture("vexpress-a15");
    for (unsigned int i = 1; i < plat.ncpus; i++) {
        assert_int_equal(cpu_release_plan(&plat.cpus[i], ENTRY, w), 2);
        assert_int_equal(w[0].pa, 0x1c010034);     /* SYS_FLAGSCLR first */
        assert_int_equal(w[0].size, 4);
        assert_int_equal(w[0].value, 0xffffffffu);
        assert_int_equal(w[1].pa, 0x1c010030);     /* then SYS_FLAGSSET */
        assert_int_equal(w[1].size, 4);
        assert_int_equal(w[1].value, ENTRY);
    }
}

static void test_psci_and_unknown_have_no_plan(void **state)
{
    struct release_write w[RELEASE_MAX_WRITES];
    probe_fixture("qemu-virt");
    assert_int_equal(cpu_release_plan(&plat.cpus[1], ENTRY, w), 0);
    probe_fixture("virt-psci-0.1-no-cpu-on");
    assert_int_equal(plat.cpus[1].method, CPU_METHOD_NONE);
    assert_int_equal(cpu_release_plan(&plat.cpus[1], ENTRY, w), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spin_table_two_cells_write_64_bits),
        cmocka_unit_test(test_spin_table_one_cell_writes_32_bits),
        cmocka_unit_test(test_vexpress_flags_clear_then_set),
        cmocka_unit_test(test_psci_and_unknown_have_no_plan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
