/*
 * The guest gdb debugs in tests/system/test_gdb.py (issue 19): a loop
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
    uint32_t spin = 0;
    bootarg_u32("spin", &spin);
    gprintf("gdbtarget: ready, gdb_value at 0x%08lx (alias 0x%08lx)\n",
            (unsigned long)&gdb_value,
            (unsigned long)((uint32_t)&gdb_value - guest_dt.mem_base + GDB_ALIAS));
    if (spin)
        gdb_spin();
    for (uint32_t round = 0;; round++) {
        uint32_t r = gdb_tick(round);
        gprintf("gdbtarget: round %lu value %lu sum %lu\n", (unsigned long)round,
                (unsigned long)gdb_value, (unsigned long)r);
        delay_ms(200);
    }
}
