/*
 * The direct-interrupts guest (docs/direct-interrupts.md): its GIC CPU
 * interface is the physical one, its virtual timer's PPI 27 and its
 * passthrough PL031's SPI come to its IRQ vector without an exit to the
 * hypervisor.  It checks both (Partita's own counter of IRQ exits must not
 * move), feeds its watchdog meanwhile, then does what a guest can to shut
 * the hypervisor out - interrupts masked, its CPU interface disabled and
 * its priority mask at the strictest value the non-secure view allows - and
 * spins without feeding: stop, restart and the watchdog must still take
 * the CPU back.  bootargs: rtc=<PA of the PL031> (optional); crash=1: end
 * with a fault it cannot get out of instead (its vectors point at an
 * unmapped IPA), for the hypervisor's crash handling.  With two vCPUs,
 * vCPU 0 first plays SGI ping-pong with vCPU 1 (their SGIs are physical
 * ones between the CPUs they own: no exit on the receiving side).
 */
#include "guest.h"

#define GICD_CTLR      (GICD_BASE + 0x000)
#define GICD_ISENABLER (GICD_BASE + 0x100)
#define GICD_ISPENDR   (GICD_BASE + 0x200)
#define GICD_ICPENDR   (GICD_BASE + 0x280)
#define GICD_IPRIORITY (GICD_BASE + 0x400)
#define GICD_ITARGETS  (GICD_BASE + 0x800)
#define GICD_SGIR      (GICD_BASE + 0xf00)
#define PINGS          50
#define GICC_CTLR      (GICC_BASE + 0x000)
#define GICC_PMR       (GICC_BASE + 0x004)
#define GICC_IAR       (GICC_BASE + 0x00c)
#define GICC_EOIR      (GICC_BASE + 0x010)
#define RTCDR          0x000
#define RTCMR          0x004
#define RTCIMSC        0x010
#define RTCICR         0x01c
#define RTC_IRQ        34u
#define NOWHERE        0x7f000000u  /* no memory or device of the guest */
#define VTIMER_IRQ     27u
#define HZ             1000
#define NTICKS         200
#define PARTITA_WATCHDOG 0x86000003u
#define TRAP_IRQ_CAUSE 9           /* enum trap_cause: TRAP_IRQ */
#define SGI_WAKE       3           /* vCPU 0 to vCPU 1: leave your WFI */
#define SEC_TICKS      5
#define SEC_TICK_WAIT  5u          /* seconds */
#define PSCI_AFFINITY_OFF 1

static volatile uint32_t ticks, rtc_irqs, others, pings, pongs, online;
static volatile uint32_t sec_lives, sec_ticks, sec_leave, sec_done;
static uint64_t deadline;
static uint32_t period, rtc;
static volatile uint64_t worst;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    uint32_t id = iar & 0x3ff;
    if (id == VTIMER_IRQ && cpu_id() != 0) {
        sec_ticks++;                /* vCPU 1's own timer */
        vtimer_off();
    } else if (id == VTIMER_IRQ) {
        uint64_t late = cntvct() - deadline;
        if (late > worst)
            worst = late;
        if (++ticks < NTICKS) {
            deadline += period;
            vtimer_arm(deadline);
        } else {
            vtimer_off();
        }
    } else if (id == 1) {
        pings++;                    /* vCPU 1: answer vCPU 0 */
        mmio_write32(GICD_SGIR, (1u << 16) | 2);
    } else if (id == 2) {
        pongs++;
    } else if (id == SGI_WAKE) {
        /* vCPU 1: its wait looks at sec_leave */
    } else if (id == RTC_IRQ) {
        mmio_write32(rtc + RTCIMSC, 0);
        mmio_write32(rtc + RTCICR, 1);
        rtc_irqs++;
    } else if (id < 1020) {
        others++;
    }
    if (id < 1020)
        mmio_write32(GICC_EOIR, iar);
}

static uint32_t irq_exits(void)
{
    return (uint32_t)partita_stat(PARTITA_STAT_TRAP(TRAP_IRQ_CAUSE));
}

static void enable_irq(uint32_t id)
{
    *(volatile uint8_t *)(GICD_IPRIORITY + id) = 0xa0;
    if (id >= 32)
        *(volatile uint8_t *)(GICD_ITARGETS + id) = 1;
    mmio_write32(GICD_ISENABLER + 4 * (id / 32), 1u << (id % 32));
}

/* WFI until an interrupt, unless *word already moved on from was (the SGI
 * test hung once under a busy host when it tested with IRQs enabled) */
static void wait_unless_changed(volatile uint32_t *word, uint32_t was)
{
    WFI_WHILE(*word == was);
}

void guest_secondary(unsigned int cpu)
{
    uint32_t life = ++sec_lives;
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
    if (life == 1)
        enable_irq(VTIMER_IRQ);     /* once: its distributor keeps it */
    online = 1;
    __asm__ volatile("cpsie i");
    /* its second life (off and on again): its own timer, SEC_TICKS times;
     * a tick that does not come within SEC_TICK_WAIT seconds ends it */
    for (unsigned int i = 0; life == 2 && i < SEC_TICKS; i++) {
        uint32_t t = sec_ticks;
        vtimer_arm(cntvct() + period);
        uint64_t t0 = cntvct();
        while (sec_ticks == t && cntvct() - t0 < SEC_TICK_WAIT * cntfrq())
            wait_unless_changed(&sec_ticks, t);
        if (sec_ticks == t)
            break;
    }
    if (life == 2)
        sec_done = 1;
    while (!sec_leave)
        wait_unless_changed(&sec_leave, 0);
    sec_leave = 0;
    __asm__ volatile("cpsid i");
}   /* returns: CPU_OFF (guestlib) */

/* PSCI AFFINITY_INFO of vCPU 1 until it reads OFF (1), at most 5 s */
static bool wait_sec_off(void)
{
    uint64_t t0 = cntvct();
    while (cntvct() - t0 < 5ull * cntfrq())
        if (hvc_call(PSCI_AFFINITY_INFO, 1, 0, 0).r0 == PSCI_AFFINITY_OFF)
            return true;
    return false;
}

/*
 * vCPU 1 off (it returns from guest_secondary: CPU_OFF) and on again: its
 * CPU interface comes back reset, with its timer PPI's enable and priority
 * from its distributor (vgic_hw_resync_private), and its timer must reach
 * it SEC_TICKS times, still without an exit.
 */
static void off_on_test(void)
{
    if (guest_dt.ncpus < 2)
        return;
    uint32_t before = irq_exits();
    sec_leave = 1;
    mmio_write32(GICD_SGIR, (2u << 16) | SGI_WAKE);   /* out of its WFI */
    bool off = wait_sec_off();
    if (off)
        hvc_call(PSCI_CPU_ON, 1, (uint32_t)secondary_start, 1);
    uint64_t t0 = cntvct();
    while (off && !sec_done && cntvct() - t0 < (SEC_TICKS * SEC_TICK_WAIT + 5ull) * cntfrq())
        ;
    gprintf("direct: vCPU 1 %s, %lu lives, %lu timer interrupts, %lu IRQ exits\n",
            off ? "off and on" : "not off", (unsigned long)sec_lives,
            (unsigned long)sec_ticks, (unsigned long)(irq_exits() - before));
    sec_leave = 1;      /* off for good: the masked spin below is vCPU 0's */
    mmio_write32(GICD_SGIR, (2u << 16) | SGI_WAKE);
}

/* Wait (at most 5 s) for *word to move on from was, IRQs unmasked: busy,
 * as nothing else would end a WFI if the interrupt never came */
static bool came(volatile uint32_t *word, uint32_t was)
{
    uint64_t t0 = cntvct();
    while (*word == was && cntvct() - t0 < 5ull * cntfrq())
        ;
    return *word != was;
}

/*
 * Its pending state is the hardware's (GICD_ISPENDR/ICPENDR, GICv2 4.3.7
 * and 4.3.8): the RTC's SPI pended by a write reads back pending while IRQs
 * are masked, then is taken through the physical CPU interface; pended and
 * cleared again, it is not taken; an SPI that is not its own reads 0 after
 * a write.  (Not its timer's PPI: QEMU's GIC pends a PPI written to
 * GICD_ISPENDR for the CPUs in its target field, which reads 0 for PPIs in
 * a multiprocessor GIC - it would never come.)
 */
static void pending_test(void)
{
    if (!rtc)
        return;
    uint32_t before = irq_exits(), r = rtc_irqs;
    uint32_t spi = 1u << (RTC_IRQ - 32), other = spi << 1;
    __asm__ volatile("cpsid i" ::: "memory");
    mmio_write32(GICD_ISPENDR + 4, spi | other);
    uint32_t seen = mmio_read32(GICD_ISPENDR + 4) & (spi | other);
    __asm__ volatile("cpsie i" ::: "memory");
    bool taken = came(&rtc_irqs, r);
    __asm__ volatile("cpsid i" ::: "memory");
    r = rtc_irqs;
    mmio_write32(GICD_ISPENDR + 4, spi);
    mmio_write32(GICD_ICPENDR + 4, spi);
    uint32_t left = mmio_read32(GICD_ISPENDR + 4) & spi;
    __asm__ volatile("cpsie i" ::: "memory");
    delay_ms(10);
    gprintf("direct: pending read 0x%lx, taken %s, after ICPENDR 0x%lx and %lu taken, "
            "%lu IRQ exits\n", (unsigned long)seen, taken ? "yes" : "no",
            (unsigned long)left, (unsigned long)(rtc_irqs - r),
            (unsigned long)(irq_exits() - before));
}

/* vCPU 0 sends SGI 1 to vCPU 1 PINGS times; each answers with SGI 2 */
static void sgi_test(void)
{
    if (guest_dt.ncpus < 2)
        return;
    hvc_call(PSCI_CPU_ON, 1, (uint32_t)secondary_start, 1);
    uint64_t t0 = cntvct();
    while (!online && cntvct() - t0 < 5ull * cntfrq())
        ;
    if (!online)
        gprintf("direct: vCPU 1 did not come online\n");
    uint32_t before = irq_exits();
    for (unsigned int i = 0; i < PINGS; i++) {
        uint32_t p = pongs;
        mmio_write32(GICD_SGIR, (2u << 16) | 1);
        uint64_t t0 = cntvct();
        while (pongs == p && cntvct() - t0 < 5ull * cntfrq())
            wait_unless_changed(&pongs, p);
        if (pongs == p)
            gprintf("direct: ping %u unanswered (pings %lu)\n", i, (unsigned long)pings);
    }
    gprintf("direct: SGI %lu pings, %lu pongs, %lu IRQ exits\n", (unsigned long)pings,
            (unsigned long)pongs, (unsigned long)(irq_exits() - before));
}

static void rtc_test(void)
{
    if (!bootarg_u32("rtc", &rtc))
        return;
    enable_irq(RTC_IRQ);
    uint32_t before = irq_exits();
    /* the PL031 raises its interrupt when RTCDR reaches RTCMR (DDI 0224) */
    mmio_write32(rtc + RTCMR, mmio_read32(rtc + RTCDR) + 1);
    mmio_write32(rtc + RTCIMSC, 1);
    uint64_t t0 = cntvct();
    while (!rtc_irqs && cntvct() - t0 < 5ull * cntfrq()) {
        hvc_call(PARTITA_WATCHDOG, 0, 0, 0);
        delay_ms(10);
    }
    gprintf("direct: RTC %lu interrupt(s), %lu IRQ exits\n", (unsigned long)rtc_irqs,
            (unsigned long)(irq_exits() - before));
}

void guest_main(uint32_t dtb)
{
    uint32_t f = cntfrq();
    period = f / HZ;
    gprintf("direct: up\n");
    mmio_write32(GICD_CTLR, 1);
    enable_irq(VTIMER_IRQ);
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
    uint32_t before = irq_exits();
    deadline = cntvct() + period;
    vtimer_arm(deadline);
    __asm__ volatile("cpsie i");
    while (ticks < NTICKS) {
        uint32_t t = ticks;
        if (t % 16 == 0)
            hvc_call(PARTITA_WATCHDOG, 0, 0, 0);
        wait_unless_changed(&ticks, t);     /* the last tick arms nothing more */
    }
    uint32_t exits = irq_exits() - before;
    gprintf("direct: RESULT %lu ticks, %lu IRQ exits, worst %lu us late, %lu others\n",
            (unsigned long)ticks, (unsigned long)exits,
            (unsigned long)(worst * 1000000 / f), (unsigned long)others);
    rtc_test();
    pending_test();
    sgi_test();
    off_on_test();
    /* shut the hypervisor out as far as a guest can */
    __asm__ volatile("cpsid aif");
    mmio_write32(GICC_PMR, 0);
    mmio_write32(GICC_CTLR, 0);
    uint32_t crash = 0, v;
    if (bootarg_u32("crash", &crash) && crash) {
        gprintf("direct: crashing with interrupts masked\n");
        __asm__ volatile("mcr p15, 0, %0, c12, c0, 0\n isb" : : "r"(NOWHERE));
        try_read32(NOWHERE, &v);
    }
    gprintf("direct: spinning with interrupts masked\n");
    for (;;)
        ;
}
