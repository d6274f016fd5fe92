/*
 * The "real-time" demo guest: a periodic virtual-timer interrupt at 1 kHz,
 * and once a second a line with the tick count and the measured jitter
 * (latest and worst lateness of the handler against its deadline).
 */
#include "guest.h"

#define GICD_CTLR      (GICD_BASE + 0x000)
#define GICD_ISENABLER (GICD_BASE + 0x100)
#define GICC_CTLR      (GICC_BASE + 0x000)
#define GICC_PMR       (GICC_BASE + 0x004)
#define GICC_IAR       (GICC_BASE + 0x00c)
#define GICC_EOIR      (GICC_BASE + 0x010)
#define HZ 1000

static volatile uint32_t ticks;
static uint64_t deadline;
static uint32_t period;
static volatile uint64_t worst, sum_late;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) == 27) {
        uint64_t late = cntvct() - deadline;
        if (late > worst)
            worst = late;
        sum_late += late;
        ticks++;
        deadline += period;
        vtimer_arm(deadline);
    }
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

void guest_main(uint32_t dtb)
{
    uint32_t f = cntfrq();
    period = f / HZ;
    mmio_write32(GICD_CTLR, 1);
    mmio_write32(GICD_ISENABLER, 1u << 27);
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
    deadline = cntvct() + period;
    vtimer_arm(deadline);
    __asm__ volatile("cpsie i");
    uint32_t next = HZ;
    for (;;) {
        while (ticks < next)
            __asm__ volatile("wfi");
        /* The line names the second it closes (tick `next`), not a fresh
         * read of `ticks`: when the guest runs late, the re-armed deadline is
         * already past and the next tick's handler runs before this line, so
         * `ticks` may be next + 1 here. */
        uint64_t w = worst, avg = sum_late / ticks;
        gprintf("tick %lu: jitter avg %lu us, worst %lu us\n", (unsigned long)next,
                (unsigned long)(avg * 1000000 / f), (unsigned long)(w * 1000000 / f));
        worst = 0;
        next += HZ;
    }
}
