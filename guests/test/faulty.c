/*
 * A partition that goes wrong as its bootargs say, for the health monitor
 * (tests/system/test_health.py, docs/temporal-isolation.md):
 *   fault=crash     crashes (its vectors point at nothing, then it aborts)
 *   fault=aborts    takes data aborts in a loop, each at a new address (so
 *                   none is the repeated fault that marks it crashed)
 *   fault=deadline  reports a missed deadline every 100 ms, numbered
 *   fault=flood     reports missed deadlines as fast as it can
 * It first says which, and how its deadline-miss call was answered.
 * With delay=MS it first runs MS ms of its virtual counter (in each life):
 * its fault comes after a partition beside it has settled.
 * (A watchdog miss is guests/test/wd.c's, a budget overrun
 * guests/test/membudget.c's.)
 */
#include <string.h>
#include "guest.h"

#define NOWHERE         0x7f000000u     /* nothing of its virtual board */
#define ABORT_SPREAD    0xfffu          /* addresses apart it aborts at, in words */
#define DEADLINE_MS     100u
#define FLOOD_REPORT    (1u << 16)      /* calls between two lines of the flood */

static uint32_t miss(uint32_t tag)
{
    return hvc_call(PARTITA_HC_DEADLINE_MISS, tag, 0, 0).r0;
}

void guest_main(uint32_t dtb)
{
    const char *fault = strstr(guest_dt.bootargs, "fault=");
    fault = fault ? fault + 6 : "none";
    gprintf("faulty: %s\n", fault);
    uint32_t delay = 0;
    if (bootarg_u32("delay", &delay)) {
        uint64_t t0 = cntvct();
        while (cntvct() - t0 < ms_to_ticks(delay))
            ;
    }
    if (strncmp(fault, "crash", 5) == 0) {
        uint32_t v;
        __asm__ volatile("mcr p15, 0, %0, c12, c0, 0\n isb" : : "r"(NOWHERE));
        try_read32(NOWHERE, &v);
    } else if (strncmp(fault, "aborts", 6) == 0) {
        uint32_t v;
        for (uint32_t i = 0;; i++)
            try_read32(NOWHERE + ((i & ABORT_SPREAD) << 2), &v);
    } else if (strncmp(fault, "deadline", 8) == 0) {
        for (uint32_t i = 1;; i++) {
            gprintf("faulty: deadline %lu missed: %ld\n", (unsigned long)i, (long)(int32_t)miss(i));
            uint64_t t0 = cntvct();
            while (cntvct() - t0 < ms_to_ticks(DEADLINE_MS))
                ;
        }
    } else if (strncmp(fault, "flood", 5) == 0) {
        for (uint32_t i = 1;; i++)
            if ((int32_t)miss(i) != 0 || !(i % FLOOD_REPORT))
                gprintf("faulty: %lu misses reported\n", (unsigned long)i);
    }
    gprintf("faulty: still running\n");
    for (;;)
        __asm__ volatile("wfi");
}
