/* The next instruction for gdb's single step (hyp/arch/arm_next.c):
 * encodings from GNU as (arm-none-eabi, linked at 0x1000), conditions
 * from the flags and the IT block, loads of the PC from a memory model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <arch/sysregs.h>
#include "hyp/arch/arm_next.h"

#define BASE  0x1000u
#define SIZE  0x1000u
#define FLAG_Z (1u << 30)
#define FLAG_N (1u << 31)

static uint8_t mem[SIZE];

static bool rd(void *arg, uint32_t addr, uint32_t n, uint32_t *val)
{
    (void)arg;
    if (addr < BASE || addr + n > BASE + SIZE)
        return false;
    *val = 0;
    for (uint32_t i = 0; i < n; i++)
        *val |= (uint32_t)mem[addr - BASE + i] << (8 * i);
    return true;
}

static void put32(uint32_t addr, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        mem[addr - BASE + i] = (uint8_t)(v >> (8 * i));
}

static void put16(uint32_t addr, uint32_t v)
{
    mem[addr - BASE] = (uint8_t)v;
    mem[addr - BASE + 1] = (uint8_t)(v >> 8);
}

/* a Thumb instruction, one or two halfwords */
static void putt(uint32_t addr, uint32_t hw1, uint32_t hw2)
{
    put16(addr, hw1);
    if (hw2)
        put16(addr + 2, hw2);
}

static struct arm_next_ctx ctx(uint32_t pc, uint32_t cpsr)
{
    struct arm_next_ctx c = { .cpsr = cpsr, .read = rd };
    c.r[15] = pc;
    c.r[13] = 0x1800;
    return c;
}

static uint32_t next_of(struct arm_next_ctx *c)
{
    uint32_t n = 0xdeadbeef;
    assert_true(arm_next(c, &n));
    return n;
}

/* ITSTATE into a CPSR (A2.5.2): IT[7:2] at [15:10], IT[1:0] at [26:25] */
static uint32_t it_cpsr(uint32_t it, uint32_t flags)
{
    return PSR_T | PSR_MODE_SVC | flags | (it & 3) << 25 | (it >> 2) << 10;
}

static void test_arm_conditions_and_branches(void **s)
{
    put32(0x1000, 0x12811001);          /* addne r1, r1, #1 */
    put32(0x1004, 0x0a000002);          /* beq 0x1014 */
    struct arm_next_ctx c = ctx(0x1000, PSR_MODE_SVC | FLAG_Z);
    assert_int_equal(next_of(&c), 0x1004);      /* NE fails: the next one */
    c = ctx(0x1000, PSR_MODE_SVC);
    assert_int_equal(next_of(&c), 0x1004);      /* passes, no PC write */
    c = ctx(0x1004, PSR_MODE_SVC | FLAG_Z);
    assert_int_equal(next_of(&c), 0x1014);      /* taken */
    c = ctx(0x1004, PSR_MODE_SVC);
    assert_int_equal(next_of(&c), 0x1008);      /* not taken */
    put32(0x101c, 0xfb00003e);          /* blx 0x111e: Thumb, H bit */
    c = ctx(0x101c, PSR_MODE_SVC);
    assert_int_equal(next_of(&c), 0x111e | 1);
}

static void test_arm_pc_writes(void **s)
{
    put32(0x1008, 0xe12fff1e);          /* bx lr */
    struct arm_next_ctx c = ctx(0x1008, PSR_MODE_SVC);
    c.r[14] = 0x1235;
    assert_int_equal(next_of(&c), 0x1235);      /* to Thumb */
    put32(0x100c, 0xe49df004);          /* ldr pc, [sp], #4 */
    put32(0x1800, 0x1400);
    c = ctx(0x100c, PSR_MODE_SVC);
    assert_int_equal(next_of(&c), 0x1400);
    put32(0x1010, 0xe8bd8010);          /* pop {r4, pc} */
    put32(0x1804, 0x1500);
    c = ctx(0x1010, PSR_MODE_SVC);
    assert_int_equal(next_of(&c), 0x1500);
    put32(0x1014, 0xe1a0f00e);          /* mov pc, lr */
    c = ctx(0x1014, PSR_MODE_SVC);
    c.r[14] = 0x1600;
    assert_int_equal(next_of(&c), 0x1600);
    put32(0x1020, 0xe08ff102);          /* add pc, pc, r2, lsl #2 */
    c = ctx(0x1020, PSR_MODE_SVC);
    c.r[2] = 3;
    assert_int_equal(next_of(&c), 0x1028 + 12);
    put32(0x1024, 0xe9908006);          /* ldmib r0, {r1, r2, pc} */
    put32(0x1900 + 12, 0x1700);
    c = ctx(0x1024, PSR_MODE_SVC);
    c.r[0] = 0x1900;
    assert_int_equal(next_of(&c), 0x1700);
}

static void test_arm_exception_return_refused(void **s)
{
    put32(0x1018, 0xe25ef004);          /* subs pc, lr, #4 */
    struct arm_next_ctx c = ctx(0x1018, PSR_MODE_SVC);
    uint32_t n;
    assert_false(arm_next(&c, &n));
    c = ctx(0x2000 + SIZE, PSR_MODE_SVC);  /* unreadable */
    assert_false(arm_next(&c, &n));
}

static void test_thumb16(void **s)
{
    putt(0x1028, 0xe008, 0);            /* b.n 0x103c */
    struct arm_next_ctx c = ctx(0x1028, PSR_T);
    assert_int_equal(next_of(&c), 0x103c | 1);
    putt(0x102a, 0xd1fa, 0);            /* bne.n 0x1022 */
    c = ctx(0x102a, PSR_T);
    assert_int_equal(next_of(&c), 0x1022 | 1);
    c = ctx(0x102a, PSR_T | FLAG_Z);
    assert_int_equal(next_of(&c), 0x102c | 1);
    putt(0x102c, 0xb143, 0);            /* cbz r3, 0x1040 */
    c = ctx(0x102c, PSR_T);
    assert_int_equal(next_of(&c), 0x1040 | 1);
    c.r[3] = 1;
    assert_int_equal(next_of(&c), 0x102e | 1);
    putt(0x102e, 0xbd30, 0);            /* pop {r4, r5, pc} */
    put32(0x1808, 0x1441);
    c = ctx(0x102e, PSR_T);
    assert_int_equal(next_of(&c), 0x1441);
    putt(0x1048, 0x4697, 0);            /* mov pc, r2: stays Thumb */
    c = ctx(0x1048, PSR_T);
    c.r[2] = 0x1100;
    assert_int_equal(next_of(&c), 0x1101);
    putt(0x1058, 0x449f, 0);            /* add pc, r3 */
    c = ctx(0x1058, PSR_T);
    c.r[3] = 8;
    assert_int_equal(next_of(&c), (0x105c + 8) | 1);
}

static void test_thumb32(void **s)
{
    putt(0x1030, 0xe8df, 0xf001);       /* tbb [pc, r1] */
    mem[0x1034 + 2 - BASE] = 5;
    struct arm_next_ctx c = ctx(0x1030, PSR_T);
    c.r[1] = 2;
    assert_int_equal(next_of(&c), (0x1034 + 10) | 1);
    putt(0x1034, 0xf000, 0xfffe);       /* bl 0x2034 */
    c = ctx(0x1034, PSR_T);
    assert_int_equal(next_of(&c), 0x2034 | 1);
    putt(0x1038, 0xf000, 0xebfe);       /* blx 0x1838: ARM */
    c = ctx(0x1038, PSR_T);
    assert_int_equal(next_of(&c), 0x1838);
    putt(0x103c, 0xf8df, 0xf008);       /* ldr.w pc, [pc, #8] */
    put32(0x1048, 0x1a01);
    c = ctx(0x103c, PSR_T);
    assert_int_equal(next_of(&c), 0x1a01);
    putt(0x1040, 0xf73f, 0xadfe);       /* bgt.w 0xc40 */
    c = ctx(0x1040, PSR_T);
    assert_int_equal(next_of(&c), 0xc40 | 1);
    c = ctx(0x1040, PSR_T | FLAG_Z);
    assert_int_equal(next_of(&c), 0x1044 | 1);
    putt(0x104a, 0xf85d, 0xfb04);       /* ldr.w pc, [sp], #4 */
    put32(0x1800, 0x1301);
    c = ctx(0x104a, PSR_T);
    assert_int_equal(next_of(&c), 0x1301);
    putt(0x1050, 0xe8bd, 0x8ff0);       /* pop.w {r4-r11, pc} */
    put32(0x1800 + 32, 0x1201);
    c = ctx(0x1050, PSR_T);
    assert_int_equal(next_of(&c), 0x1201);
    putt(0x1054, 0xe8d0, 0xf011);       /* tbh [r0, r1, lsl #1] */
    put16(0x1900 + 6, 0x20);
    c = ctx(0x1054, PSR_T);
    c.r[0] = 0x1900;
    c.r[1] = 3;
    assert_int_equal(next_of(&c), (0x1058 + 0x40) | 1);
    putt(0x1044, 0xf3de, 0x8f04);       /* subs pc, lr, #4 */
    c = ctx(0x1044, PSR_T);
    uint32_t n;
    assert_false(arm_next(&c, &n));
}

/* inside an IT block the condition is the block's (CPSR.IT); a skipped
 * instruction, a branch among them, goes on to the next */
static void test_it_block(void **s)
{
    putt(0x1028, 0xe008, 0);            /* b.n 0x103c, as the last of "IT EQ" */
    struct arm_next_ctx c = ctx(0x1028, it_cpsr(0x08, FLAG_Z));  /* EQ, one left */
    assert_int_equal(next_of(&c), 0x103c | 1);
    c = ctx(0x1028, it_cpsr(0x08, 0));
    assert_int_equal(next_of(&c), 0x102a | 1);
    putt(0x1034, 0xf000, 0xfffe);       /* bl, skipped by "IT NE" with Z */
    c = ctx(0x1034, it_cpsr(0x18, FLAG_Z));
    assert_int_equal(next_of(&c), 0x1038 | 1);
    putt(0x104e, 0xbf0c, 0);            /* ite eq: the first of the block next */
    c = ctx(0x104e, PSR_T);
    assert_int_equal(next_of(&c), 0x1050 | 1);
    putt(0x102a, 0xd1fa, 0);            /* B<c> T1 under IT: not its own cond */
    c = ctx(0x102a, it_cpsr(0x08, FLAG_Z | FLAG_N));
    assert_int_equal(next_of(&c), 0x102c | 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arm_conditions_and_branches),
        cmocka_unit_test(test_arm_pc_writes),
        cmocka_unit_test(test_arm_exception_return_refused),
        cmocka_unit_test(test_thumb16),
        cmocka_unit_test(test_thumb32),
        cmocka_unit_test(test_it_block),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
