/*
 * The gdb stub's register writes (hyp/gdb/gdb_regs.c, with the
 * CPSR check of hyp/arch/psr.c) on a vCPU of the test's own: every register
 * number with boundary values, every CPSR mode number 0..0x1f, the CPSR's
 * other fields, and G packets that are refused whole - nothing of the vCPU
 * changes when a write is refused.  Before these checks P 25 and G took the
 * reserved modes 0x14, 0x15, 0x18, 0x19, 0x1c-0x1e, and a G refused for its
 * CPSR had already written r0-r15.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <arch/sysregs.h>
#include "hyp/gdb/gdb_regs.h"
#include "hyp/arch/psr.h"

static const uint32_t boundary[] = { 0, 1, 2, 3, 0x7fffffffu, 0x80000000u, 0xfffffffeu,
                                     0xffffffffu, 0x12345678u };
#define N_BOUNDARY (sizeof(boundary) / sizeof(boundary[0]))

/* the seven modes of a guest (ARM ARM B1.3.1, Table B1-1) */
static bool guest_mode(uint32_t m)
{
    return m == PSR_MODE_USR || m == PSR_MODE_FIQ || m == PSR_MODE_IRQ ||
           m == PSR_MODE_SVC || m == PSR_MODE_ABT || m == PSR_MODE_UND || m == PSR_MODE_SYS;
}

/* a vCPU with every saved register distinct, in mode */
static void fill(struct vcpu *v, uint32_t mode)
{
    memset(v, 0, sizeof(*v));
    uint32_t *w = (uint32_t *)&v->regs;
    for (size_t i = 0; i < sizeof(v->regs) / 4; i++)
        w[i] = 0x10000000u + (uint32_t)i;
    w = (uint32_t *)&v->banked;
    for (size_t i = 0; i < sizeof(v->banked) / 4; i++)
        w[i] = 0x20000000u + (uint32_t)i;
    v->regs.cpsr = mode | PSR_A | PSR_I | PSR_F;
}

static void hex32(char *out, uint32_t v)
{
    sprintf(out, "%02x%02x%02x%02x", v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >> 24);
}

/* a G packet's data: r0-r15 = base + i, then cpsr (nregs values) */
static size_t g_packet(char *out, uint32_t base, uint32_t cpsr, unsigned int nregs)
{
    for (unsigned int i = 0; i < nregs; i++)
        hex32(out + 8 * i, i < GDB_NCORE ? base + i : cpsr);
    return 8 * (size_t)nregs;
}

/* P 25 with every mode number, from every guest mode: the seven taken,
 * the other 25 (Hyp, Monitor, the reserved and 26-bit ones) refused with
 * the vCPU as it was */
static void test_cpsr_every_mode(void **state)
{
    for (uint32_t from = 0; from < 32; from++) {
        if (!guest_mode(from))
            continue;
        for (uint32_t m = 0; m < 32; m++) {
            struct vcpu v, before;
            fill(&v, from);
            before = v;
            uint32_t val = PSR_NZCVQ | PSR_GE_MASK | PSR_E | PSR_A | PSR_I | PSR_F | m;
            bool ok = gdb_reg_write(&v, GDB_REG_CPSR, val);
            if (ok != guest_mode(m))
                fail_msg("mode 0x%02x from 0x%02x: %s", m, from, ok ? "taken" : "refused");
            assert_int_equal(psr_guest_mode(m), guest_mode(m));
            if (ok) {
                assert_int_equal(v.regs.cpsr, val);
                v.regs.cpsr = before.regs.cpsr;
            }
            assert_memory_equal(&v, &before, sizeof(v));
        }
    }
}

/* the other fields: J only where the vCPU is in ThumbEE state already,
 * [23:20] zero or preserved, ITSTATE zero in ARM state and one an IT
 * instruction can make in Thumb state */
static void test_cpsr_other_fields(void **state)
{
    const uint32_t svc = PSR_MODE_SVC, t = PSR_T | PSR_MODE_SVC;
    /* J: Jazelle never, ThumbEE only kept */
    assert_false(psr_debugger_may_write(svc, svc | PSR_J));
    assert_false(psr_debugger_may_write(t, t | PSR_J));
    assert_false(psr_debugger_may_write(t | PSR_J, svc | PSR_J));      /* to Jazelle */
    assert_true(psr_debugger_may_write(t | PSR_J, t | PSR_J));
    assert_true(psr_debugger_may_write(t | PSR_J, t));                 /* out of it */
    assert_false(psr_debugger_may_write(svc | PSR_J, svc | PSR_J));    /* not even kept */
    /* reserved [23:20], bit by bit */
    for (uint32_t b = 20; b < 24; b++) {
        assert_false(psr_debugger_may_write(svc, svc | 1u << b));
        assert_true(psr_debugger_may_write(svc | 1u << b, svc | 1u << b));
        assert_true(psr_debugger_may_write(svc | 1u << b, svc));
    }
    /* ITSTATE: every value in ARM and in Thumb state */
    for (uint32_t it = 0; it < 256; it++) {
        uint32_t bits = (it & 3) << PSR_IT_LO_SHIFT | (it >> 2) << PSR_IT_HI_SHIFT;
        uint32_t mask = it & 0xf, base = it >> 5;
        bool thumb_ok = mask ? (base != 7 || (!(it & 0x10) && !(mask & (mask - 1)))) : it == 0;
        if (psr_debugger_may_write(svc, svc | bits) != (it == 0))
            fail_msg("ARM state, ITSTATE 0x%02x", it);
        if (psr_debugger_may_write(t, t | bits) != thumb_ok)
            fail_msg("Thumb state, ITSTATE 0x%02x", it);
    }
    /* an ITTE EQ (0x06), an ITTTT GT (0xc1), an IT AL (0xe8), ITTT AL (0xe2) */
    assert_true(psr_debugger_may_write(t, t | 0x02000000u | 0x0400));
    assert_true(psr_debugger_may_write(t, t | 0x02000000u | 0xc000));
    assert_true(psr_debugger_may_write(t, t | 0xe8u << 8));
    assert_true(psr_debugger_may_write(t, t | 0xe0u << 8 | 0x02000000u));
    /* what a guest sets itself: flags, GE, E, A, I, F, T */
    assert_true(psr_debugger_may_write(svc, (0xf80f03ffu & ~(uint32_t)PSR_MODE_MASK) | PSR_MODE_USR));
}

/* every register number with boundary values: r0-r15 take any value, in
 * the bank of the vCPU's mode; numbers that are no core register change
 * nothing */
static void test_every_register(void **state)
{
    static const uint32_t modes[] = { PSR_MODE_USR, PSR_MODE_FIQ, PSR_MODE_IRQ, PSR_MODE_SVC,
                                      PSR_MODE_ABT, PSR_MODE_UND, PSR_MODE_SYS };
    for (size_t mi = 0; mi < sizeof(modes) / sizeof(modes[0]); mi++)
        for (uint32_t n = 0; n < 64; n++)
            for (size_t b = 0; b < N_BOUNDARY; b++) {
                struct vcpu v, before;
                fill(&v, modes[mi]);
                before = v;
                uint32_t val = boundary[b];
                bool ok = gdb_reg_write(&v, n, val);
                if (n < GDB_NCORE) {
                    assert_true(ok);
                    assert_int_equal(*vcpu_saved_reg(&v, n), val);
                    *vcpu_saved_reg(&v, n) = *vcpu_saved_reg(&before, n);
                } else if (n == GDB_REG_CPSR) {
                    assert_false(ok);   /* no boundary value has a guest mode */
                } else {
                    assert_false(ok);
                    assert_null(gdb_reg_at(&v, n));
                }
                assert_memory_equal(&v, &before, sizeof(v));
            }
    /* far numbers */
    struct vcpu v, before;
    fill(&v, PSR_MODE_SVC);
    before = v;
    assert_false(gdb_reg_write(&v, 0xffffffffu, 0));
    assert_false(gdb_reg_write(&v, 0x80000019u, PSR_MODE_SVC));
    assert_memory_equal(&v, &before, sizeof(v));
    /* banks: r13/r14 of IRQ mode, r8-r12 of FIQ mode */
    fill(&v, PSR_MODE_IRQ);
    assert_true(gdb_reg_write(&v, 13, 0xaaaa0013u));
    assert_true(gdb_reg_write(&v, 14, 0xaaaa0014u));
    assert_int_equal(v.banked.sp_irq, 0xaaaa0013u);
    assert_int_equal(v.banked.lr_irq, 0xaaaa0014u);
    fill(&v, PSR_MODE_FIQ);
    assert_true(gdb_reg_write(&v, 8, 0xbbbb0008u));
    assert_int_equal(v.banked.r8_fiq, 0xbbbb0008u);
    assert_int_equal(v.regs.r[8], 0x10000008u);
}

/* G: all or nothing */
static void test_g_packets(void **state)
{
    char hex[8 * (GDB_G_REGS + 1) + 1];
    struct vcpu v, before;
    /* a good one: every register written */
    fill(&v, PSR_MODE_SVC);
    size_t n = g_packet(hex, 0xc0de0000u, PSR_MODE_USR | PSR_T, GDB_G_REGS);
    assert_true(gdb_regs_write(&v, hex, n));
    for (unsigned int i = 0; i < GDB_NCORE; i++)
        if (i != 13 && i != 14)
            assert_int_equal(*vcpu_saved_reg(&v, i), 0xc0de0000u + i);
    assert_int_equal(v.banked.sp_svc, 0xc0de000du);    /* in the mode it was in */
    assert_int_equal(v.banked.lr_svc, 0xc0de000eu);
    assert_int_equal(v.regs.cpsr, PSR_MODE_USR | PSR_T);
    /* every mode number: a bad CPSR changes nothing, r0-r15 included */
    for (uint32_t m = 0; m < 32; m++) {
        fill(&v, PSR_MODE_SVC);
        before = v;
        n = g_packet(hex, 0xbad00000u, PSR_I | m, GDB_G_REGS);
        bool ok = gdb_regs_write(&v, hex, n);
        if (ok != guest_mode(m))
            fail_msg("G with mode 0x%02x: %s", m, ok ? "taken" : "refused");
        if (!ok)
            assert_memory_equal(&v, &before, sizeof(v));
    }
    /* other bad CPSRs: J, reserved, IT in ARM state */
    static const uint32_t bad[] = { PSR_MODE_SVC | PSR_J, PSR_MODE_SVC | PSR_RESERVED,
                                    PSR_MODE_SVC | 0x0400, PSR_MODE_SVC | PSR_T | 0xf0u << 8 };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        fill(&v, PSR_MODE_SVC);
        before = v;
        n = g_packet(hex, 0xbad00000u, bad[i], GDB_G_REGS);
        assert_false(gdb_regs_write(&v, hex, n));
        assert_memory_equal(&v, &before, sizeof(v));
    }
    /* wrong lengths and bad digits: nothing written */
    fill(&v, PSR_MODE_SVC);
    before = v;
    n = g_packet(hex, 0x1000u, PSR_MODE_SVC, GDB_G_REGS + 1);
    assert_false(gdb_regs_write(&v, hex, n));              /* one too many */
    assert_false(gdb_regs_write(&v, hex, 0));
    assert_false(gdb_regs_write(&v, hex, 8 * GDB_G_REGS - 1));
    n = g_packet(hex, 0x1000u, PSR_MODE_SVC, GDB_G_REGS);
    hex[8 * 7 + 3] = 'x';                                  /* r7 not hex */
    assert_false(gdb_regs_write(&v, hex, n));
    assert_memory_equal(&v, &before, sizeof(v));
    /* fewer registers: those only */
    n = g_packet(hex, 0x2000u, 0, 4);
    assert_true(gdb_regs_write(&v, hex, n));
    assert_int_equal(v.regs.r[3], 0x2003u);
    assert_int_equal(v.regs.r[4], before.regs.r[4]);
    assert_int_equal(v.regs.cpsr, before.regs.cpsr);
}

/* g reads back what P and G wrote, in gdb's order */
static void test_g_reads_back(void **state)
{
    struct vcpu v;
    struct rsp_tx tx;
    char hex[8 * GDB_G_REGS + 1];
    fill(&v, PSR_MODE_ABT);
    size_t n = g_packet(hex, 0x55aa0000u, PSR_MODE_ABT | PSR_NZCVQ, GDB_G_REGS);
    assert_true(gdb_regs_write(&v, hex, n));
    rsp_tx_begin(&tx);
    gdb_regs_read(&v, &tx);
    assert_int_equal(tx.len, 1 + n);
    assert_memory_equal(tx.buf + 1, hex, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cpsr_every_mode),
        cmocka_unit_test(test_cpsr_other_fields),
        cmocka_unit_test(test_every_register),
        cmocka_unit_test(test_g_packets),
        cmocka_unit_test(test_g_reads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
