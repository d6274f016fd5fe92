/*
 * Isolation, the other side (beside guests/test/probe.c): a pattern test
 * of all of its RAM, and a watched page that the probe attacks at its
 * physical address; the page must be unchanged when the watch ends.  Also
 * that RAM starts zeroed (the hypervisor scrubs it).
 *
 * bootargs: watch=<IPA of the watched page> hold=<ms to keep watching>
 *           every=<ms>: afterwards, check the page again every <ms> for
 *           good, each time a line (a heartbeat that the page is intact,
 *           for tests that attack it while the guest runs on)
 */
#include "guest.h"

#define WATCH_WORDS 1024

static uint32_t watch_value(uint32_t i)
{
    return 0x5afe0000u ^ (i * 0x01000193u);
}

void guest_main(uint32_t dtb)
{
    uint32_t watch = RAM_BASE + 0x100000, hold = 1500;
    uint32_t ram_end = RAM_BASE + guest_dt.mem_size;
    bootarg_u32("watch", &watch);
    bootarg_u32("hold", &hold);
    volatile uint32_t *w = (volatile uint32_t *)watch;

    /* arm the watch first, then look at what the hypervisor gave us */
    bool watch_ok = watch >= image_end() && watch + 0x1000 <= dtb;
    if (watch_ok)
        for (uint32_t i = 0; i < WATCH_WORDS; i++)
            w[i] = watch_value(i);
    gprintf("victim: watch armed at 0x%08lx for %lu ms, RAM 0x%08lx-0x%08lx\n",
            (unsigned long)watch, (unsigned long)hold, (unsigned long)RAM_BASE,
            (unsigned long)ram_end);

    test_begin("ram_scrubbed");
    uint32_t first = 0, dtb_end = dtb + ((dtb && guest_dt.valid) ?
        ((((const uint8_t *)dtb)[4] << 24) | (((const uint8_t *)dtb)[5] << 16) |
         (((const uint8_t *)dtb)[6] << 8) | ((const uint8_t *)dtb)[7]) : 0);
    dtb_end = (dtb_end + 3) & ~3u;
    uint32_t n = ram_count_nonzero(image_end(), watch, &first);
    n += ram_count_nonzero(watch + 0x1000, dtb, n ? NULL : &first);
    n += ram_count_nonzero(dtb_end, ram_end, n ? NULL : &first);
    CHECK(n == 0, "%lu words of RAM were not zero at boot, the first at 0x%08lx",
          (unsigned long)n, (unsigned long)first);
    test_end();

    test_begin("ram_all_patterns");
    CHECK(watch_ok, "watch page 0x%08lx is not free RAM", (unsigned long)watch);
    uint64_t t0 = cntvct();
    uint32_t bad = ram_test(image_end(), watch, &first);
    bad += ram_test(watch + 0x1000, ram_end, bad ? NULL : &first);
    CHECK(bad == 0, "%lu bad words, the first at 0x%08lx", (unsigned long)bad,
          (unsigned long)first);
    gprintf("ram: 0x%08lx-0x%08lx tested in %lu ms\n", (unsigned long)image_end(),
            (unsigned long)ram_end, (unsigned long)((cntvct() - t0) * 1000 / cntfrq()));
    test_end();

    while (cntvct() < ms_to_ticks(hold))
        ;
    test_begin("watch_page_intact");
    bad = 0;
    for (uint32_t i = 0; i < WATCH_WORDS; i++)
        if (w[i] != watch_value(i) && !bad++)
            first = watch + 4 * i;
    CHECK(bad == 0, "%lu words of the watched page changed, the first at 0x%08lx = 0x%08lx",
          (unsigned long)bad, (unsigned long)first,
          (unsigned long)(bad ? *(volatile uint32_t *)first : 0));
    test_end();
    tests_finish();
    uint32_t every = 0;
    bootarg_u32("every", &every);
    for (uint32_t round = 1; every; round++) {
        uint64_t next = cntvct() + ms_to_ticks(every);
        while (cntvct() < next)
            ;
        bad = 0;
        for (uint32_t i = 0; i < WATCH_WORDS; i++)
            if (w[i] != watch_value(i) && !bad++)
                first = watch + 4 * i;
        if (bad) {
            gprintf("victim: watch page CHANGED, %lu words, the first at 0x%08lx\n",
                    (unsigned long)bad, (unsigned long)first);
            return;
        }
        gprintf("victim: watch page intact, check %lu\n", (unsigned long)round);
    }
}
