/*
 * A guest that fails on purpose, once per life, in the way its bootargs
 * say ("fail=reset|abort|watchdog"), after using the interrupt machinery:
 * it takes virtual-timer interrupts and SGIs, and leaves one timer
 * interrupt acknowledged but never ended (active, hardware-linked) and an
 * SGI pending when it goes.  Partita restarts it every time (on-crash or
 * watchdog-action "restart"); each new life must find the timer and SGIs
 * working again, or it hangs and the test sees its lines stop
 * (tests/system/configs/crashloop.dts, tests/system/test_crashloop.py).
 */
#include <string.h>
#include "guest.h"

#define GICD_CTLR      (GICD_BASE + 0x000)
#define GICD_ISENABLER (GICD_BASE + 0x100)
#define GICD_SGIR      (GICD_BASE + 0xf00)
#define GICC_CTLR      (GICC_BASE + 0x000)
#define GICC_PMR       (GICC_BASE + 0x004)
#define GICC_IAR       (GICC_BASE + 0x00c)
#define GICC_EOIR      (GICC_BASE + 0x010)
#define NOWHERE        0x7f000000u

static void vtimer_in_us(uint32_t us)
{
    uint64_t at = cntvct() + (uint64_t)cntfrq() * us / 1000000;
    vtimer_arm(at);
}

/*
 * Wait (polling, IRQs masked) for interrupt id, up to 100 ms; end it
 * unless keep.  The counter follows the host's clock, and a host that
 * stops this vCPU's thread for a while (a loaded machine) moves it on
 * meanwhile: a step of more than STALL_MS between two looks at the GIC is
 * time this vCPU did not run, and is not counted - only an interrupt that
 * does not come while it runs is lost.  (A vCPU never run 5 ms in a row
 * would wait on: its lines stop, which the test sees too.)
 */
#define STALL_MS 5
static bool take(unsigned int id, bool keep)
{
    uint64_t waited = 0, last = cntvct();
    const uint64_t stall = ms_to_ticks(STALL_MS), limit = ms_to_ticks(100);
    for (;;) {
        uint64_t now = cntvct(), step = now - last;
        last = now;
        if (step < stall)
            waited += step;
        if (waited >= limit)
            return false;
        uint32_t iar = mmio_read32(GICC_IAR);
        if ((iar & 0x3ff) >= 1020)
            continue;
        if ((iar & 0x3ff) == 27)
            __asm__ volatile("mcr p15, 0, %0, c14, c3, 1\n isb" : : "r"(0u));
        if ((iar & 0x3ff) == id && keep)
            return true;
        mmio_write32(GICC_EOIR, iar);
        if ((iar & 0x3ff) == id)
            return true;
    }
}

void guest_main(uint32_t dtb)
{
    const char *fail = strstr(guest_dt.bootargs, "fail=");
    fail = fail ? fail + 5 : "reset";
    if (strncmp(fail, "watchdog", 8) == 0)
        hvc_call(PARTITA_HC_WATCHDOG, 0, 0, 0);     /* armed: now it must be fed */
    mmio_write32(GICD_CTLR, 1);
    mmio_write32(GICD_ISENABLER, (1u << 27) | 0xffff);
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
    bool ok = true;
    for (int i = 0; i < 3; i++) {
        vtimer_in_us(200);
        ok &= take(27, false);
        mmio_write32(GICD_SGIR, (2u << 24) | (unsigned int)i);
        ok &= take((unsigned int)i, false);
    }
    /* what it leaves behind: an active timer interrupt, a pending SGI */
    vtimer_in_us(100);
    ok &= take(27, true);
    mmio_write32(GICD_SGIR, (2u << 24) | 5);
    gprintf("crashloop: %s, timer and SGIs %s\n", fail, ok ? "ok" : "LOST");
    if (strncmp(fail, "abort", 5) == 0) {
        /* an abort it cannot get out of, one of two kinds as the counter
         * falls: its vectors point at nothing, or it takes the same abort
         * at the same instruction over and over */
        uint32_t v;
        if ((cntpct() >> 4) & 1) {
            __asm__ volatile("mcr p15, 0, %0, c12, c0, 0\n isb" : : "r"(NOWHERE));
            try_read32(NOWHERE + 0x100000, &v);
        } else {
            for (;;)
                try_read32(NOWHERE, &v);
        }
    } else if (strncmp(fail, "watchdog", 8) == 0) {
        for (;;)
            ;                                       /* no more feeding */
    }
    hvc_call(PSCI_SYSTEM_RESET, 0, 0, 0);
    gprintf("crashloop: still running after SYSTEM_RESET\n");
    for (;;)
        ;
}
