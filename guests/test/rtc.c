/*
 * A host device passed through by its DT path (issue 15 item 3): the
 * PL031 real-time clock (ARM DDI 0224) at bootargs rtc=<PA>, which must be
 * the real device - its PrimeCell identification, and a seconds counter
 * that runs - with its page mapped into this guest and no other.
 */
#include "guest.h"

#define RTCDR        0x000      /* data: seconds */
#define RTC_PERIPHID 0xfe0      /* PeriphID0..3, then PCellID0..3 (DDI 0224 3.3) */

static const uint8_t pl031_id[8] = { 0x31, 0x10, 0x04, 0x00, 0x0d, 0xf0, 0x05, 0xb1 };

void guest_main(uint32_t dtb)
{
    uint32_t rtc = 0, v = 0;
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
    tests_finish();
}
