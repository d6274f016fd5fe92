/* gdb's comparators (hyp/gdb/debug_gdb.c) and the DBGDSCR merge of a
 * guest's write (debug_dscr_merge). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <arch/sysregs.h>
#include "hyp/gdb/debug_gdb.h"

#define CTRL (DBGxCR_E | DBGxCR_PL_MASK | DBGxCR_SSC_NS)

/* the highest-numbered first; Thumb halfwords by BAS; E01 when all are held */
static void test_breakpoints_from_the_top(void **s)
{
    struct debug_gdb g = { 0 };
    assert_int_equal(debug_gdb_bp_add(&g, 6, 0x8000, 4), 5);
    assert_int_equal(g.bvr[5], 0x8000);
    assert_int_equal(g.bcr[5], CTRL | DBGBCR_BAS_ARM);
    assert_int_equal(debug_gdb_bp_add(&g, 6, 0x8006, 2), 4);
    assert_int_equal(g.bvr[4], 0x8004);
    assert_int_equal(g.bcr[4], CTRL | DBGBCR_BAS_THUMB_HI);
    assert_int_equal(debug_gdb_bp_add(&g, 6, 0x8000, 4), 5);      /* again: the same one */
    assert_int_equal(debug_gdb_bp_match(&g, 0x8006), 4);
    assert_int_equal(debug_gdb_bp_match(&g, 0x8004), -1);         /* the other halfword */
    assert_int_equal(debug_gdb_bp_match(&g, 0x8000), 5);
    assert_int_equal(debug_gdb_bp_add(&g, 6, 0x8002, 4), -1);     /* misaligned ARM */
    assert_true(debug_gdb_bp_del(&g, 0x8000));
    assert_int_equal(debug_gdb_bp_match(&g, 0x8000), -1);
    assert_int_equal(g.bheld, 1u << 4);
    struct debug_gdb full = { 0 };
    for (int i = 0; i < 2; i++)
        assert_int_equal(debug_gdb_bp_add(&full, 2, 0x9000 + 4 * i, 4), 1 - i);
    assert_int_equal(debug_gdb_bp_add(&full, 2, 0x9100, 4), -1);
}

static void test_watchpoints(void **s)
{
    struct debug_gdb g = { 0 };
    assert_int_equal(debug_gdb_wp_add(&g, 4, 0x4000b3c8, 4, DEBUG_WATCH_WRITE), 3);
    assert_int_equal(g.wvr[3], 0x4000b3c8);
    assert_int_equal(g.wcr[3], CTRL | DBGWCR_LSC_STORE | 0xfu << DBGWCR_BAS_SHIFT);
    assert_int_equal(debug_gdb_wp_add(&g, 4, 0x4000b3c9, 2, DEBUG_WATCH_READ), 2);
    assert_int_equal(g.wcr[2], CTRL | DBGWCR_LSC_LOAD | 0x6u << DBGWCR_BAS_SHIFT);
    assert_int_equal(debug_gdb_wp_add(&g, 4, 0x100, 1, DEBUG_WATCH_ACCESS), 1);
    assert_int_equal(debug_gdb_wp_type(&g, 1), DEBUG_WATCH_ACCESS);
    assert_int_equal(debug_gdb_wp_type(&g, 2), DEBUG_WATCH_READ);
    assert_int_equal(debug_gdb_wp_add(&g, 4, 0x103, 2, DEBUG_WATCH_WRITE), -1);  /* 2 words */
    assert_int_equal(debug_gdb_wp_add(&g, 4, 0x100, 8, DEBUG_WATCH_WRITE), -1);
    assert_int_equal(debug_gdb_wp_match(&g, 0x4000b3ca), 2);      /* both: the lower-numbered */
    assert_int_equal(debug_gdb_wp_match(&g, 0x100), 1);
    assert_int_equal(debug_gdb_wp_match(&g, 0x104), -1);
    assert_int_equal(g.waddr[2], 0x4000b3c9);
    assert_false(debug_gdb_wp_del(&g, 0x4000b3c8, 4, DEBUG_WATCH_READ));   /* not that type */
    assert_true(debug_gdb_wp_del(&g, 0x4000b3c8, 4, DEBUG_WATCH_WRITE));
    /* byte 3 is no longer watched, but a wider access from it reports
     * its lowest address: the watchpoint on that word */
    assert_int_equal(debug_gdb_wp_match(&g, 0x4000b3cb), 2);
    assert_int_equal(g.wheld, (1u << 2) | (1u << 1));
}

/* a guest's DBGDSCRext write: its MDBGen and UDCCdis, never the MOE the
 * hardware recorded (hyp/arch/debug.c c0_access cleared it before) */
static void test_dscr_guest_write_keeps_moe(void **s)
{
    uint32_t guest = DBGDSCR_MDBGEN | DBGDSCR_UDCCDIS;
    uint32_t hw = DBGDSCR_MOE_WATCH_SYNC | (1u << 1) /* RESTARTED */;
    uint32_t out = debug_dscr_merge(hw, DBGDSCR_MDBGEN | DBGDSCR_MOE_MASK, guest);
    assert_int_equal(out & DBGDSCR_MOE_MASK, DBGDSCR_MOE_WATCH_SYNC);
    assert_int_equal(out & guest, DBGDSCR_MDBGEN);
    assert_int_equal(out & (1u << 1), 1u << 1);
    /* loading a vCPU's saved MOE writes it (mask includes MOE) */
    out = debug_dscr_merge(hw, DBGDSCR_MOE_BKPT, guest | DBGDSCR_MOE_MASK);
    assert_int_equal(out & DBGDSCR_MOE_MASK, DBGDSCR_MOE_BKPT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_breakpoints_from_the_top),
        cmocka_unit_test(test_watchpoints),
        cmocka_unit_test(test_dscr_guest_write_keeps_moe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
