/*
 * The guest gdb debugs in tests/system/test_gdb.py: a loop
 * that calls gdb_tick() every 200 ms and prints gdb_value, so that a
 * breakpoint, a changed variable and a watchpoint show on its console.
 * Its MMU is on, with its RAM also seen at GDB_ALIAS (a section of its own
 * stage 1), so reads through a virtual address that is not the IPA are
 * tested too.  `spin` in bootargs: spin in gdb_spin() instead, for Ctrl-C.
 * A second vCPU, where the configuration gives one, counts in
 * gdb_second() (gdb's thread 2).
 */
#include "guest.h"

#define GDB_ALIAS 0x90000000u

volatile uint32_t gdb_value = 7;
volatile uint32_t gdb_rounds;
volatile uint32_t gdb_watched;
volatile uint32_t gdb_second_count;
volatile uint32_t gdb_steps;
volatile uint64_t gdb_d8;       /* d8 each round: what gdb wrote there */

/* The VFP on, d7 = d8 = pi (the guest is soft-float: nothing else of its
 * code touches them), for test_gdb_vfp */
static void vfp_setup(void)
{
    uint32_t cpacr;
    __asm__ volatile("mrc p15, 0, %0, c1, c0, 2" : "=r"(cpacr));
    __asm__ volatile("mcr p15, 0, %0, c1, c0, 2\n isb" : : "r"(cpacr | (0xfu << 20)));
    __asm__ volatile(".fpu neon-vfpv4\n vmsr fpexc, %0\n isb\n vmov d7, %1, %2\n"
                     " vmov d8, %1, %2" : : "r"(1u << 30), "r"(0x54442d18u), "r"(0x400921fbu));
}

static void vfp_sample(void)
{
    uint32_t lo, hi;
    __asm__ volatile(".fpu neon-vfpv4\n vmov %0, %1, d8" : "=r"(lo), "=r"(hi));
    gdb_d8 = (uint64_t)hi << 32 | lo;
}

/*
 * Single-stepped by test_gdb_single_step: conditional ARM instructions
 * (a skipped ADD, a branch not taken, one taken) and a Thumb IT block (a
 * skipped and an executed ADD, a branch made conditional by IT).  Both
 * return 0 + 2: r1 counts what ran.
 */
uint32_t gdb_cond(uint32_t x);
uint32_t gdb_it(uint32_t x);
__asm__(
    "   .text\n"
    "   .syntax unified\n"
    "   .arm\n"
    "   .global gdb_cond\n"
    "   .type gdb_cond, %function\n"
    "gdb_cond:\n"
    "   mov r1, #0\n"
    "   cmp r0, r0\n"
    "   addne r1, r1, #1\n"
    "   bne 1f\n"
    "   beq 2f\n"
    "1: add r1, r1, #4\n"
    "2: addeq r0, r1, #2\n"
    "   bx lr\n"
    "   .size gdb_cond, . - gdb_cond\n"
    "   .thumb\n"
    "   .global gdb_it\n"
    "   .type gdb_it, %function\n"
    "   .thumb_func\n"
    "gdb_it:\n"
    "   movs r1, #0\n"
    "   cmp r0, r0\n"
    "   ite ne\n"
    "   addne r1, r1, #1\n"
    "   addeq r1, r1, #2\n"
    "   it eq\n"
    "   beq 3f\n"
    "   adds r1, r1, #8\n"
    "3: mov r0, r1\n"
    "   bx lr\n"
    "   .size gdb_it, . - gdb_it\n"
    "   .arm\n");

uint32_t __attribute__((noinline)) gdb_tick(uint32_t round)
{
    gdb_rounds = round;
    if (round % 5 == 4)
        gdb_watched++;
    return gdb_value + round;
}

void __attribute__((noinline)) gdb_spin(void)
{
    for (;;)
        gdb_rounds++;
}

void __attribute__((noinline)) gdb_second(void)
{
    for (;;) {
        gdb_second_count++;
        delay_ms(10);
    }
}

void guest_secondary(unsigned int cpu)
{
    gdb_second();
}

void guest_main(uint32_t dtb)
{
    if (guest_dt.ncpus > 1)
        hvc_call(PSCI_CPU_ON, 1, (uint32_t)secondary_start, 1);
    mmu_enable();
    mmu_map_section(GDB_ALIAS, guest_dt.mem_base | SECT_NORMAL);
    vfp_setup();
    uint32_t spin = 0;
    bootarg_u32("spin", &spin);
    gprintf("gdbtarget: ready, gdb_value at 0x%08lx (alias 0x%08lx)\n",
            (unsigned long)&gdb_value,
            (unsigned long)((uint32_t)&gdb_value - guest_dt.mem_base + GDB_ALIAS));
    if (spin)
        gdb_spin();
    for (uint32_t round = 0;; round++) {
        uint32_t r = gdb_tick(round);
        gdb_steps = gdb_cond(round) + gdb_it(round);
        vfp_sample();
        gprintf("gdbtarget: round %lu value %lu sum %lu\n", (unsigned long)round,
                (unsigned long)gdb_value, (unsigned long)r);
        delay_ms(200);
    }
}
