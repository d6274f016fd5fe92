/*
 * Host unit tests for trapped-instruction conditions and PC stepping
 * (hyp/arch/insn.c).
 *
 * Expected results are computed here independently: the condition table
 * of ARM ARM A8.3 written out case by case, and IT blocks built from their
 * "T"/"E" pattern by the IT instruction's encoding rule (A8.8.54), not by
 * shifting ITSTATE as ITAdvance() does (A2.5.2).  ITSTATE lives in CPSR
 * bits [15:10] (IT[7:2]) and [26:25] (IT[1:0]) (B1.3.3).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>
#include <arch/sysregs.h>
#include "hyp/arch/insn.h"

/* the bits the tests set by hand (B1.3.3): the flags (ITSTATE: sysregs.h) */
#define PSR_NZCV    0xf0000000u
/* exception classes as unsigned, for shifting into a syndrome */
#define EC_CP15_32  ((uint32_t)HSR_EC_CP15_32)
#define EC_SMC      ((uint32_t)HSR_EC_SMC)

enum { EQ, NE, CS, CC, MI, PL, VS, VC, HI, LS, GE, LT, GT, LE, AL, NV };

/* A8.3, Table A8-1 */
static bool cond_expected(unsigned int cond, unsigned int nzcv)
{
    bool n = nzcv & 8, z = nzcv & 4, c = nzcv & 2, v = nzcv & 1;
    switch (cond) {
    case EQ: return z;
    case NE: return !z;
    case CS: return c;
    case CC: return !c;
    case MI: return n;
    case PL: return !n;
    case VS: return v;
    case VC: return !v;
    case HI: return c && !z;
    case LS: return !c || z;
    case GE: return n == v;
    case LT: return n != v;
    case GT: return !z && n == v;
    case LE: return z || n != v;
    case AL: return true;
    default: return true;       /* 0b1111: the unconditional instructions */
    }
}

/* CPSR bits other than NZCV that must not matter: modes, masks, GE, E, J, Q */
static const uint32_t backgrounds[] = {
    0x00000000, 0x000001d3, 0x0fffffff & ~PSR_IT_MASK & ~PSR_T, 0x080f0210, 0x01000000,
};
#define N_BACKGROUNDS (sizeof(backgrounds) / sizeof(backgrounds[0]))

static uint32_t cpsr_with_it(uint32_t cpsr, uint32_t it)
{
    return (cpsr & ~PSR_IT_MASK) | ((it & 3) << 25) | ((it >> 2) << 10);
}

/* ---- the condition table ---- */

static void test_cond_holds_all(void **state)
{
    for (unsigned int b = 0; b < N_BACKGROUNDS; b++)
        for (unsigned int nzcv = 0; nzcv < 16; nzcv++)
            for (unsigned int cond = 0; cond < 16; cond++) {
                uint32_t cpsr = backgrounds[b] | nzcv << 28;
                if (insn_cond_holds(cond, cpsr) != cond_expected(cond, nzcv))
                    fail_msg("cond %u, NZCV %x, CPSR 0x%08x: got %d", cond, nzcv, cpsr,
                             insn_cond_holds(cond, cpsr));
            }
}

static void test_cond_holds_examples(void **state)
{
    /* a few by hand, so the table above is not checked only against itself */
    assert_true(insn_cond_holds(EQ, 0x40000000));
    assert_false(insn_cond_holds(NE, 0x40000000));
    assert_true(insn_cond_holds(HI, 0x20000000));       /* C set, Z clear */
    assert_false(insn_cond_holds(HI, 0x60000000));
    assert_true(insn_cond_holds(LS, 0x60000000));
    assert_true(insn_cond_holds(GE, 0x90000000));       /* N = V = 1 */
    assert_false(insn_cond_holds(GE, 0x80000000));
    assert_true(insn_cond_holds(LT, 0x10000000));
    assert_false(insn_cond_holds(GT, 0xd0000000));      /* Z set */
    assert_true(insn_cond_holds(LE, 0xd0000000));
    assert_true(insn_cond_holds(GT, 0x00000000));
    assert_true(insn_cond_holds(AL, 0x00000000));
    assert_true(insn_cond_holds(NV, 0xf0000000));
}

/* ---- the condition of a trapped instruction ---- */

static void test_condition_cv1(void **state)
{
    /* CV = 1: HSR.COND decides, in ARM state and in Thumb, even inside an
     * IT block whose own condition says otherwise */
    static const uint32_t ecs[] = { EC_CP15_32, EC_SMC };
    for (unsigned int e = 0; e < 2; e++)
        for (unsigned int thumb = 0; thumb < 3; thumb++)
            for (unsigned int nzcv = 0; nzcv < 16; nzcv++)
                for (unsigned int cond = 0; cond < 16; cond++) {
                    uint32_t cpsr = 0x000001d3 | nzcv << 28;
                    if (thumb)
                        cpsr |= PSR_T;
                    if (thumb == 2)     /* IT block: IT[7:4] the opposite condition */
                        cpsr = cpsr_with_it(cpsr, ((cond ^ 1) << 4) | 0x8);
                    uint32_t hsr = ecs[e] << 26 | HSR_IL | HSR_CV | cond << 20 | 0x3c1e1;
                    if (insn_condition_passed(cpsr, hsr) != cond_expected(cond, nzcv))
                        fail_msg("CV=1 cond %u NZCV %x CPSR 0x%08x: got %d", cond, nzcv,
                                 cpsr, insn_condition_passed(cpsr, hsr));
                }
}

static void test_condition_cv0_arm(void **state)
{
    /* CV = 0 in ARM state: the instruction is unconditional; COND is UNKNOWN */
    for (unsigned int nzcv = 0; nzcv < 16; nzcv++)
        for (unsigned int cond = 0; cond < 16; cond++) {
            uint32_t hsr = EC_CP15_32 << HSR_EC_SHIFT | HSR_IL | cond << 20;
            assert_true(insn_condition_passed(0x000001d3 | nzcv << 28, hsr));
            /* stale IT bits mean nothing in ARM state */
            assert_true(insn_condition_passed(cpsr_with_it(0x000001d3 | nzcv << 28,
                                                           (cond ^ 1) << 4 | 8), hsr));
        }
}

static void test_condition_cv0_thumb_outside_it(void **state)
{
    for (unsigned int nzcv = 0; nzcv < 16; nzcv++)
        for (unsigned int cond = 0; cond < 16; cond++) {
            uint32_t hsr = EC_CP15_32 << HSR_EC_SHIFT | HSR_IL | cond << 20;
            assert_true(insn_condition_passed(0x000001f3 | nzcv << 28, hsr));
            /* IT[7:4] left over without a mask is no IT block either */
            assert_true(insn_condition_passed(cpsr_with_it(0x000001f3 | nzcv << 28,
                                                           (cond ^ 1) << 4), hsr));
        }
}

/* ---- IT blocks ---- */

/* ITSTATE after IT<pattern> firstcond: pattern of up to three 'T'/'E' */
static uint32_t it_state(unsigned int firstcond, const char *pattern)
{
    unsigned int n = (unsigned int)strlen(pattern), mask = 1u << (3 - n);
    for (unsigned int i = 0; i < n; i++)
        if ((pattern[i] == 'T') == (firstcond & 1))
            mask |= 1u << (3 - i);
    return firstcond << 4 | mask;
}

static void test_it_instruction_encoding(void **state)
{
    /* the rule above against what arm-none-eabi-as makes of IT */
    assert_int_equal(0xbf00 | it_state(EQ, ""), 0xbf08);        /* it eq */
    assert_int_equal(0xbf00 | it_state(EQ, "TE"), 0xbf06);      /* itte eq */
    assert_int_equal(0xbf00 | it_state(NE, "TE"), 0xbf1a);      /* itte ne */
    assert_int_equal(0xbf00 | it_state(GT, "ETE"), 0xbfcb);     /* itete gt */
    assert_int_equal(0xbf00 | it_state(GT, "TTT"), 0xbfc1);     /* itttt gt */
    assert_int_equal(0xbf00 | it_state(LE, "EEE"), 0xbfd1);     /* iteee le */
}

/*
 * Run one IT block: for each instruction, the trapped condition (CV = 0)
 * is the block's, and stepping over it advances the state; after the
 * last one the IT state is gone.  Instructions alternate 16/32-bit.
 */
static void run_it_block(unsigned int firstcond, const char *pattern, uint32_t background,
                         bool first32)
{
    unsigned int n = 1 + (unsigned int)strlen(pattern);
    uint32_t cpsr = cpsr_with_it(background | PSR_T, it_state(firstcond, pattern));
    uint32_t pc = 0x80001000;
    bool is32 = first32;
    for (unsigned int k = 0; k < n; k++, is32 = !is32) {
        unsigned int cond = (k == 0 || pattern[k - 1] == 'T') ? firstcond : firstcond ^ 1;
        assert_int_not_equal(insn_itstate(cpsr) & 0xf, 0);
        for (unsigned int nzcv = 0; nzcv < 16; nzcv++) {
            uint32_t c = (cpsr & ~PSR_NZCV) | nzcv << 28;
            uint32_t hsr = EC_CP15_32 << HSR_EC_SHIFT | (is32 ? HSR_IL : 0) | (nzcv ^ 5) << 20;
            if (insn_condition_passed(c, hsr) != cond_expected(cond, nzcv))
                fail_msg("IT%s %u, instruction %u, NZCV %x: condition %u, got %d", pattern,
                         firstcond, k, nzcv, cond, insn_condition_passed(c, hsr));
        }
        uint32_t before = cpsr, old_pc = pc;
        insn_skip(&pc, &cpsr, is32);
        assert_int_equal(pc, old_pc + (is32 ? 4 : 2));
        if ((cpsr & ~PSR_IT_MASK) != (before & ~PSR_IT_MASK))
            fail_msg("IT%s %u: CPSR 0x%08x -> 0x%08x changed outside ITSTATE", pattern,
                     firstcond, before, cpsr);
    }
    /*
     * After the block: the next instruction is unconditional again.  Its
     * trap (CV = 0, as for an instruction in a block) must pass whatever
     * the flags, and in particular with the flags that fail the block's
     * own conditions - an advance that left any of the block's state
     * behind (the block one instruction too long, the base condition or
     * the mask not cleared) fails here, before the exact CPSR is compared.
     * AL blocks have no failing flags: the exact comparison checks them.
     */
    for (unsigned int nzcv = 0; nzcv < 16; nzcv++) {
        uint32_t c = (cpsr & ~PSR_NZCV) | nzcv << 28;
        uint32_t hsr = EC_CP15_32 << HSR_EC_SHIFT | (is32 ? HSR_IL : 0);
        if (!insn_condition_passed(c, hsr))
            fail_msg("IT%s %u: the instruction after the block is conditional (NZCV %x, "
                     "CPSR 0x%08x)", pattern, firstcond, nzcv, c);
    }
    /* and stepping over it leaves the CPSR alone */
    uint32_t after = cpsr, old_pc = pc;
    insn_skip(&pc, &cpsr, is32);
    assert_int_equal(pc, old_pc + (is32 ? 4 : 2));
    assert_int_equal(cpsr, after);
    assert_int_equal(insn_itstate(cpsr), 0);
    assert_int_equal(cpsr, background | PSR_T);
}

static void test_it_blocks_all(void **state)
{
    static const char *patterns[] = {
        "", "T", "E", "TT", "TE", "ET", "EE",
        "TTT", "TTE", "TET", "TEE", "ETT", "ETE", "EET", "EEE",
    };
    for (unsigned int firstcond = 0; firstcond < 15; firstcond++)
        for (unsigned int p = 0; p < sizeof(patterns) / sizeof(patterns[0]); p++) {
            /* AL only with 'T' (A8.8.54: E with AL is UNPREDICTABLE) */
            if (firstcond == AL && strchr(patterns[p], 'E'))
                continue;
            for (unsigned int b = 0; b < N_BACKGROUNDS; b++) {
                run_it_block(firstcond, patterns[p], backgrounds[b] & ~PSR_NZCV, false);
                run_it_block(firstcond, patterns[p], backgrounds[b] & ~PSR_NZCV, true);
            }
        }
}

static void test_it_block_by_value(void **state)
{
    /* itte eq; three instructions: CPSR IT bits worked out by hand */
    uint32_t pc = 0x1000, cpsr = 0x60000030 | 0x04000400;       /* ITSTATE 0b00000110 */
    assert_int_equal(insn_itstate(cpsr), 0x06);
    insn_skip(&pc, &cpsr, false);
    assert_int_equal(cpsr, 0x60000030 | 0x00000c00);            /* 0b00001100 */
    assert_int_equal(pc, 0x1002);
    insn_skip(&pc, &cpsr, true);
    assert_int_equal(cpsr, 0x60000030 | 0x00001800);            /* 0b00011000: NE */
    assert_int_equal(pc, 0x1006);
    assert_true(insn_condition_passed(0x00000030 | 0x1800, EC_CP15_32 << HSR_EC_SHIFT));
    assert_false(insn_condition_passed(0x40000030 | 0x1800, EC_CP15_32 << HSR_EC_SHIFT));
    insn_skip(&pc, &cpsr, false);
    assert_int_equal(cpsr, 0x60000030);
    assert_int_equal(pc, 0x1008);

    /* itttt gt: ITSTATE 0xc1, IT[1:0] = 01 in CPSR[25] */
    cpsr = cpsr_with_it(0x000001f3, 0xc1);
    assert_int_equal(cpsr, 0x000001f3 | 0x02000000 | 0xc000);
    insn_skip(&pc, &cpsr, true);
    assert_int_equal(insn_itstate(cpsr), 0xc2);
    insn_skip(&pc, &cpsr, true);
    assert_int_equal(insn_itstate(cpsr), 0xc4);
    insn_skip(&pc, &cpsr, true);
    assert_int_equal(insn_itstate(cpsr), 0xc8);
    insn_skip(&pc, &cpsr, true);
    assert_int_equal(cpsr, 0x000001f3);
}

/* ---- stepping outside IT blocks ---- */

static void test_skip_arm(void **state)
{
    for (unsigned int b = 0; b < N_BACKGROUNDS; b++) {
        uint32_t pc = 0x40008000, cpsr = backgrounds[b] | 0xa0000000;
        insn_skip(&pc, &cpsr, true);
        assert_int_equal(pc, 0x40008004);
        assert_int_equal(cpsr, backgrounds[b] | 0xa0000000);
    }
    /* IT bits have no meaning in ARM state: left alone */
    uint32_t pc = 0x40008000, cpsr = cpsr_with_it(0x600001d3, 0x1a);
    insn_skip(&pc, &cpsr, true);
    assert_int_equal(pc, 0x40008004);
    assert_int_equal(cpsr, cpsr_with_it(0x600001d3, 0x1a));
}

static void test_skip_thumb(void **state)
{
    for (unsigned int b = 0; b < N_BACKGROUNDS; b++) {
        uint32_t base = backgrounds[b] | PSR_T | 0x50000000;
        uint32_t pc = 0x40008002, cpsr = base;
        insn_skip(&pc, &cpsr, false);
        assert_int_equal(pc, 0x40008004);
        assert_int_equal(cpsr, base);
        insn_skip(&pc, &cpsr, true);
        assert_int_equal(pc, 0x40008008);
        assert_int_equal(cpsr, base);
    }
}

static void test_itstate_bits(void **state)
{
    /* IT[1:0] = CPSR[26:25], IT[7:2] = CPSR[15:10]; nothing else */
    assert_int_equal(insn_itstate(1u << 25), 0x01);
    assert_int_equal(insn_itstate(1u << 26), 0x02);
    for (unsigned int i = 2; i < 8; i++)
        assert_int_equal(insn_itstate(1u << (8 + i)), 1u << i);
    assert_int_equal(insn_itstate(~PSR_IT_MASK), 0);
    assert_int_equal(insn_itstate(0xffffffff), 0xff);
    for (uint32_t it = 0; it < 256; it++)
        assert_int_equal(insn_itstate(cpsr_with_it(0xf80f03ff & ~PSR_IT_MASK, it)), it);
}

/* LDC/STC's ISS (EC 0x06): imm8 [19:12], Rn [8:5], Offset [4], AM [3:1] */
static uint32_t ls_iss(uint32_t imm8, uint32_t rn, bool add, uint32_t am)
{
    return (imm8 << 12) | (rn << 5) | ((add ? 1u : 0u) << 4) | (am << 1);
}

static void test_ls_writeback(void **state)
{
    uint32_t out = 0x5e5e5e5e;
    /* post-indexed (AM 0b001) and pre-indexed (0b011): imm8 words on Rn */
    assert_true(insn_ls_writeback(ls_iss(1, 3, true, 1), 0x40001000, &out));
    assert_int_equal(out, 0x40001004);
    assert_true(insn_ls_writeback(ls_iss(0xff, 3, false, 3), 0x40001000, &out));
    assert_int_equal(out, 0x40001000 - 0x3fc);
    assert_true(insn_ls_writeback(ls_iss(2, 0, false, 1), 0x4, &out));
    assert_int_equal(out, 0xfffffffc);              /* wraps, as the CPU's does */
    /* unindexed (0b000), offset (0b010), the literal forms (0b100, 0b110):
     * the base stays, *rn_out untouched */
    out = 0x5e5e5e5e;
    for (uint32_t am = 0; am < 8; am++) {
        if (am == 1 || am == 3)
            continue;
        assert_false(insn_ls_writeback(ls_iss(4, 3, true, am) | 1u, 0x40001000, &out));
        assert_int_equal(out, 0x5e5e5e5e);
    }
    /* the condition and direction bits play no part */
    assert_true(insn_ls_writeback(ls_iss(1, 3, true, 3) | 1u | (0x1fu << 20), 0x100, &out));
    assert_int_equal(out, 0x104);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cond_holds_all),
        cmocka_unit_test(test_cond_holds_examples),
        cmocka_unit_test(test_condition_cv1),
        cmocka_unit_test(test_condition_cv0_arm),
        cmocka_unit_test(test_condition_cv0_thumb_outside_it),
        cmocka_unit_test(test_it_instruction_encoding),
        cmocka_unit_test(test_it_blocks_all),
        cmocka_unit_test(test_it_block_by_value),
        cmocka_unit_test(test_skip_arm),
        cmocka_unit_test(test_skip_thumb),
        cmocka_unit_test(test_itstate_bits),
        cmocka_unit_test(test_ls_writeback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
