/*
 * Host unit tests for what a guest's breakpoint and watchpoint controls
 * become in the hardware (hyp/arch/debug_filter.c), and for the debug ID
 * registers a guest reads.
 *
 * The expected matching is computed here from the ARM ARM's table of
 * HMC:SSC:PxC (C3.8.1, Table C3-9; the same for watchpoints, C3.9.3),
 * written out row by row as the set of modes each combination matches, so
 * the test does not reuse the filter's own rule: whatever a guest writes,
 * the hardware value must match only Non-secure PL0/PL1, and exactly the
 * part of what the guest asked for that lies there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <arch/sysregs.h>
#include "hyp/arch/debug.h"

/* the modes a comparator can match in */
enum { NS_PL0 = 1, NS_PL1 = 2, NS_HYP = 4, S_PL0 = 8, S_PL1 = 16, RESERVED = 32 };
#define GUEST_MODES (NS_PL0 | NS_PL1)

/* Table C3-9: HMC, SSC, PxC -> modes; RESERVED for the other rows */
static unsigned int modes(uint32_t ctrl)
{
    if (!(ctrl & DBGxCR_E))
        return 0;
    unsigned int hmc = (ctrl >> 13) & 1, ssc = (ctrl >> 14) & 3, pxc = (ctrl >> 1) & 3;
    switch (hmc << 4 | ssc << 2 | pxc) {
    case 0x01: return S_PL1 | NS_PL1;
    case 0x02: return S_PL0 | NS_PL0;
    case 0x03: return S_PL0 | S_PL1 | NS_PL0 | NS_PL1;
    case 0x05: return NS_PL1;
    case 0x06: return NS_PL0;
    case 0x07: return NS_PL0 | NS_PL1;
    case 0x09: return S_PL1;
    case 0x0a: return S_PL0;
    case 0x0b: return S_PL0 | S_PL1;
    case 0x11: return NS_HYP | S_PL1 | NS_PL1;
    case 0x13: return NS_HYP | S_PL0 | S_PL1 | NS_PL0 | NS_PL1;
    case 0x15: return NS_HYP | NS_PL1;
    case 0x17: return NS_HYP | NS_PL0 | NS_PL1;
    case 0x1c: return NS_HYP;
    default: return RESERVED;
    }
}

/* every value of E, PxC, HMC and SSC, with the other fields set to a
 * pattern that must come through unchanged */
static void check_ctrl(uint32_t (*hw_of)(uint32_t), uint32_t others, bool bcr)
{
    const uint32_t where = DBGxCR_E | DBGxCR_PL_MASK | DBGxCR_HMC | DBGxCR_SSC_MASK;
    for (uint32_t w = 0; w < 64; w++) {
        uint32_t guest = others | (w & 7) | ((w >> 3 & 1) << 13) | ((w >> 4 & 3) << 14);
        uint32_t hw = hw_of(guest);
        unsigned int got = modes(hw), asked = modes(guest);
        assert_int_equal(hw & ~where & ~DBGxCR_E, guest & ~where & ~DBGxCR_E);
        assert_false(got & (RESERVED | NS_HYP | S_PL0 | S_PL1));
        if (!(asked & RESERVED)) {
            unsigned int want = bcr && (guest & DBGBCR_BT_VMID) ? 0 : asked & GUEST_MODES;
            assert_int_equal(got, want);
        }
    }
}

static void test_breakpoint_never_hyp_or_secure(void **state)
{
    (void)state;
    /* BAS 0xf, LBN 3, MASK 0 and 7, every breakpoint type (BT) */
    for (uint32_t bt = 0; bt < 16; bt++) {
        check_ctrl(debug_bcr_hw, (0xfu << 5) | (3u << 16) | (bt << 20), true);
        check_ctrl(debug_bcr_hw, (0xfu << 5) | (bt << 20) | (7u << 24), true);
    }
}

static void test_watchpoint_never_hyp_or_secure(void **state)
{
    (void)state;
    /* every LSC with BAS 0xff, linked (WT) to 2, MASK 31 (all of memory) */
    for (uint32_t lsc = 0; lsc < 4; lsc++) {
        check_ctrl(debug_wcr_hw, (lsc << 3) | (0xffu << 5), false);
        check_ctrl(debug_wcr_hw, (lsc << 3) | (0xffu << 5) | (2u << 16) | (1u << 20) | (31u << 24),
                   false);
    }
}

/* the values Linux's hw_breakpoint writes (arch/arm/include/asm/
 * hw_breakpoint.h: privilege user 2 / priv 1 / all 3, no HMC or SSC) and a
 * disabled control come through unchanged but for SSC = Non-secure */
static void test_linux_values_unchanged(void **state)
{
    (void)state;
    for (uint32_t priv = 1; priv <= 3; priv++) {
        uint32_t bp = (0xfu << 5) | (priv << 1) | DBGxCR_E;
        uint32_t mismatch = bp | (4u << 20);
        uint32_t wp = (0xfu << 5) | (2u << 3) | (priv << 1) | DBGxCR_E;
        assert_int_equal(debug_bcr_hw(bp), bp | DBGxCR_SSC_NS);
        assert_int_equal(debug_bcr_hw(mismatch), mismatch | DBGxCR_SSC_NS);
        assert_int_equal(debug_wcr_hw(wp), wp | DBGxCR_SSC_NS);
    }
    assert_int_equal(debug_bcr_hw(0) & DBGxCR_E, 0);
    assert_int_equal(debug_wcr_hw(0) & DBGxCR_E, 0);
}

static void test_id_registers(void **state)
{
    (void)state;
    /* Cortex-A15 (DDI 0438): DBGDIDR 0x3515f021 with PCSR_imp set here */
    uint32_t didr = 0x3515f021u | DBGDIDR_PCSR_IMP;
    uint32_t g = debug_didr_guest(didr);
    assert_int_equal(g, didr & ~(1u << 13));
    assert_int_equal(DBGDIDR_BRPS(g), 6);
    assert_int_equal(DBGDIDR_WRPS(g), 4);
    assert_int_equal(DBGDIDR_VERSION(g), 5);
    assert_int_equal(debug_devid_guest(0x00110f13u), 0x00110f10u);
    /* ID_DFR0 0x02010555: CP14 debug v7.1, secure debug, memory-mapped
     * debug v7.1, memory-mapped trace, PMUv2 */
    assert_int_equal(debug_dfr0_guest(0x02010555u, true), 0x02000055u);
    assert_int_equal(debug_dfr0_guest(0x02010555u, false), 0x00000055u);
    assert_int_equal(debug_dfr0_guest(0x0201f555u, true), 0x02000055u);   /* CP14 trace too */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_breakpoint_never_hyp_or_secure),
        cmocka_unit_test(test_watchpoint_never_hyp_or_secure),
        cmocka_unit_test(test_linux_values_unchanged),
        cmocka_unit_test(test_id_registers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
