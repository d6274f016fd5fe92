/*
 * A host device passed through by its DT path: the
 * PL031 real-time clock (ARM DDI 0224) at bootargs rtc=<PA>, which must be
 * the real device - its PrimeCell identification, and a seconds counter
 * that runs - with its page mapped into this guest and no other.
 *
 * Then its interrupt, checked as a GIC would behave with
 * the device wired to it natively (the checks of kvm-unit-tests' arm/pl031
 * test, written anew): the SPI's pending state as GICD_ISPENDR shows it is
 * the RTC's line, whether the guest has the SPI enabled or not; enabling it
 * delivers it at once; after the handler has cleared the device and ended
 * it, it is no longer pending.  And what a GIC does with a level interrupt
 * that is no longer asserted or no longer enabled before it is taken: it
 * is not taken.  The guest has one vCPU, so its distributor is a
 * uniprocessor one: every SPI targets that CPU (GICv2 4.3.12) and the
 * test never writes GICD_ITARGETSR.
 */
#include "guest.h"

#define RTCDR        0x000      /* data: seconds */
#define RTCMR        0x004      /* match: the interrupt when RTCDR reaches it */
#define RTCIMSC      0x010      /* interrupt mask set/clear: 1 lets it out */
#define RTCRIS       0x014      /* raw interrupt status */
#define RTCMIS       0x018      /* masked interrupt status: the line */
#define RTCICR       0x01c      /* interrupt clear */
#define RTC_PERIPHID 0xfe0      /* PeriphID0..3, then PCellID0..3 (DDI 0224 3.3) */

/* QEMU virt's PL031 is wired to SPI 2 */
#define RTC_IRQ      34u
#define SPI_BIT      (1u << (RTC_IRQ % 32))
#define SPI_WORD     (4 * (RTC_IRQ / 32))

#define GICD_CTLR      (GICD_BASE + 0x000)
#define GICD_ISENABLER (GICD_BASE + 0x100)
#define GICD_ICENABLER (GICD_BASE + 0x180)
#define GICD_ISPENDR   (GICD_BASE + 0x200)
#define GICD_ICPENDR   (GICD_BASE + 0x280)
#define GICD_ISACTIVER (GICD_BASE + 0x300)
#define GICD_IPRIORITY (GICD_BASE + 0x400)
#define GICC_CTLR      (GICC_BASE + 0x000)
#define GICC_PMR       (GICC_BASE + 0x004)
#define GICC_IAR       (GICC_BASE + 0x00c)
#define GICC_EOIR      (GICC_BASE + 0x010)
#define GIC_SPURIOUS   1023u

/* the longest a match interrupt may take to come: one RTC second, and a
 * busy host's share of it */
#define MATCH_WAIT_S 5u

static const uint8_t pl031_id[8] = { 0x31, 0x10, 0x04, 0x00, 0x0d, 0xf0, 0x05, 0xb1 };

static uint32_t rtc;
static volatile uint32_t rtc_irqs, others, ris_in_handler, ris_after_clear;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    uint32_t id = iar & 0x3ff;
    if (id == GIC_SPURIOUS)
        return;
    if (id == RTC_IRQ) {
        /* what a handler of a level interrupt does: the device first,
         * then the end of the interrupt (Linux's fasteoi order) */
        ris_in_handler = mmio_read32(rtc + RTCRIS);
        mmio_write32(rtc + RTCICR, 1);
        ris_after_clear = mmio_read32(rtc + RTCRIS);
        rtc_irqs++;
    } else {
        others++;
    }
    mmio_write32(GICC_EOIR, iar);
}

static bool spi_pending(void)
{
    return (mmio_read32(GICD_ISPENDR + SPI_WORD) & SPI_BIT) != 0;
}

static bool spi_active(void)
{
    return (mmio_read32(GICD_ISACTIVER + SPI_WORD) & SPI_BIT) != 0;
}

static inline void irqs_on(void)
{
    __asm__ volatile("cpsie i\n\tisb" ::: "memory");
}

static inline void irqs_off(void)
{
    __asm__ volatile("cpsid i" ::: "memory");
}

/* The RTC raises its raw interrupt when RTCDR reaches RTCMR; wait for it
 * (interrupt masked in the device: the line stays low) */
static bool raise_raw(void)
{
    mmio_write32(rtc + RTCIMSC, 0);
    mmio_write32(rtc + RTCICR, 1);
    mmio_write32(rtc + RTCMR, mmio_read32(rtc + RTCDR) + 1);
    uint64_t t0 = cntvct();
    while (!(mmio_read32(rtc + RTCRIS) & 1) && cntvct() - t0 < MATCH_WAIT_S * (uint64_t)cntfrq())
        delay_ms(10);
    return (mmio_read32(rtc + RTCRIS) & 1) != 0;
}

static void gic_on(void)
{
    mmio_write32(GICD_ICENABLER + SPI_WORD, SPI_BIT);
    *(volatile uint8_t *)(GICD_IPRIORITY + RTC_IRQ) = 0xa0;
    mmio_write32(GICD_CTLR, 1);
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
}

/* kvm-unit-tests' sequence: asserted while the SPI is disabled, then
 * enabled and taken at once, then gone */
static void irq_test(void)
{
    irqs_off();
    gic_on();
    test_begin("rtc_irq_not_pending_yet");
    mmio_write32(rtc + RTCIMSC, 0);
    mmio_write32(rtc + RTCICR, 1);
    CHECK(!spi_pending(), "SPI %u reads pending with the RTC quiet", RTC_IRQ);
    test_end();

    test_begin("rtc_irq_masked_in_device_not_pending");
    bool raised = raise_raw();
    CHECK(raised, "RTCRIS still 0 %u s after the match was set", MATCH_WAIT_S);
    CHECK(!spi_pending(), "pending with RTCIMSC 0 (the line is low)");
    test_end();

    test_begin("rtc_irq_pending_while_disabled");
    mmio_write32(rtc + RTCIMSC, 1);     /* the line goes high */
    CHECK(mmio_read32(rtc + RTCMIS) & 1, "RTCMIS 0 after RTCIMSC 1");
    CHECK(spi_pending(), "GICD_ISPENDR bit %u is 0 with the line high (SPI disabled)",
          RTC_IRQ % 32);
    CHECK(!spi_active(), "active before anyone took it");
    test_end();

    test_begin("rtc_irq_taken_at_once_on_enable");
    mmio_write32(GICD_ISENABLER + SPI_WORD, SPI_BIT);
    irqs_on();
    uint32_t n = rtc_irqs;      /* the very next instruction */
    CHECK(n == 1, "%lu handler runs right after enabling it and unmasking IRQs",
          (unsigned long)n);
    CHECK(ris_in_handler == 1 && ris_after_clear == 0, "RTCRIS %lu in the handler, %lu cleared",
          (unsigned long)ris_in_handler, (unsigned long)ris_after_clear);
    test_end();

    test_begin("rtc_irq_not_pending_after_eoi");
    delay_ms(20);
    CHECK(!spi_pending(), "still pending after the handler cleared the RTC and EOIed");
    CHECK(!spi_active(), "still active after EOI");
    CHECK(rtc_irqs == 1 && others == 0, "%lu RTC interrupts, %lu others",
          (unsigned long)rtc_irqs, (unsigned long)others);
    test_end();
    irqs_off();
}

/* A level interrupt no longer asserted, or disabled, before it is taken is
 * not taken (GICv2 3.2.4, 4.3.5): forwarded to the guest but not yet
 * acknowledged, it follows the line and the enable still */
static void withdraw_test(void)
{
    test_begin("rtc_irq_line_dropped_not_taken");
    uint32_t n = rtc_irqs;
    bool raised = raise_raw();
    mmio_write32(rtc + RTCIMSC, 1);     /* asserted, enabled, IRQs masked */
    delay_ms(10);
    bool was = spi_pending();
    mmio_write32(rtc + RTCICR, 1);      /* and dropped again */
    bool is = spi_pending();
    irqs_on();
    delay_ms(20);
    irqs_off();
    CHECK(raised && was, "not pending while asserted (raised %d)", raised);
    CHECK(!is, "still pending after the line dropped");
    CHECK(rtc_irqs == n, "taken %lu times after the line dropped", (unsigned long)(rtc_irqs - n));
    test_end();

    test_begin("rtc_irq_disabled_not_taken");
    n = rtc_irqs;
    raised = raise_raw();
    mmio_write32(rtc + RTCIMSC, 1);
    delay_ms(10);
    mmio_write32(GICD_ICENABLER + SPI_WORD, SPI_BIT);
    was = spi_pending();
    irqs_on();
    delay_ms(20);
    irqs_off();
    CHECK(raised && was, "not pending while asserted and disabled (raised %d)", raised);
    CHECK(rtc_irqs == n, "taken %lu times while disabled", (unsigned long)(rtc_irqs - n));
    mmio_write32(GICD_ISENABLER + SPI_WORD, SPI_BIT);
    irqs_on();
    uint32_t m = rtc_irqs;
    irqs_off();
    CHECK(m == n + 1, "taken %lu times when enabled again", (unsigned long)(m - n));
    CHECK(!spi_pending(), "pending after it was handled");
    test_end();

    test_begin("rtc_irq_set_and_cleared_pending");
    n = rtc_irqs;
    mmio_write32(GICD_ISPENDR + SPI_WORD, SPI_BIT);
    was = spi_pending();
    mmio_write32(GICD_ICPENDR + SPI_WORD, SPI_BIT);
    is = spi_pending();
    irqs_on();
    delay_ms(20);
    irqs_off();
    CHECK(was, "not pending after GICD_ISPENDR");
    CHECK(!is, "pending after GICD_ICPENDR (the line is low)");
    CHECK(rtc_irqs == n, "taken %lu times after GICD_ICPENDR", (unsigned long)(rtc_irqs - n));
    mmio_write32(GICD_ISPENDR + SPI_WORD, SPI_BIT);
    irqs_on();
    m = rtc_irqs;
    irqs_off();
    CHECK(m == n + 1, "a GICD_ISPENDR write taken %lu times", (unsigned long)(m - n));
    CHECK(!spi_pending() && !spi_active(), "pending or active after it was handled");
    test_end();
    mmio_write32(GICD_ICENABLER + SPI_WORD, SPI_BIT);
    mmio_write32(rtc + RTCIMSC, 0);
}

void guest_main(uint32_t dtb)
{
    uint32_t v = 0;
    test_begin("rtc_mapped");
    CHECK(bootarg_u32("rtc", &rtc), "no rtc= in bootargs '%s'", guest_dt.bootargs);
    bool mapped = rtc && !try_read32(rtc + RTCDR, &v);
    CHECK(mapped, "reading 0x%08lx aborted: the device is not this guest's",
          (unsigned long)rtc);
    test_end();
    if (!mapped) {
        tests_finish();
        return;
    }

    test_begin("rtc_is_a_pl031");
    for (unsigned int i = 0; i < 8; i++) {
        uint32_t id = *(volatile uint32_t *)(rtc + RTC_PERIPHID + 4 * i);
        /* PeriphID2's revision (bits 7:4) is the implementation's */
        uint32_t mask = i == 2 ? 0x0f : 0xff;
        CHECK((id & mask) == (pl031_id[i] & mask), "ID register %u is 0x%02lx, not 0x%02x", i,
              (unsigned long)id, pl031_id[i]);
    }
    test_end();

    test_begin("rtc_counts_seconds");
    uint32_t t0 = *(volatile uint32_t *)(rtc + RTCDR);
    delay_ms(2100);
    uint32_t t1 = *(volatile uint32_t *)(rtc + RTCDR);
    /* QEMU starts it at the host's time; a guest's 2.1 s are at least 2 of
     * its seconds (it counts host time: a slow host makes it more) */
    CHECK(t0 > 1000000000u, "RTCDR %lu: not a time of day", (unsigned long)t0);
    CHECK(t1 - t0 >= 2, "RTCDR went from %lu to %lu in 2.1 s", (unsigned long)t0,
          (unsigned long)t1);
    test_end();
    gprintf("rtc: %lu s since 1970\n", (unsigned long)t1);

    irq_test();
    withdraw_test();
    tests_finish();
}
