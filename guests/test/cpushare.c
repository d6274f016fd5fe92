/*
 * The CPU time a guest gets (tests/system/test_manage_share.py): a loop
 * counted in windows of 100 ms of its virtual counter, one line a window,
 * `cpushare: window N: COUNT`.  Under -icount the count is the share of
 * the CPU the guest had in that window, exactly: whatever else the CPU
 * did (the hypervisor's work for others) is missing from it.
 */
#include "guest.h"

#define WINDOW_MS 100u

void guest_main(uint32_t dtb)
{
    uint64_t window = ms_to_ticks(WINDOW_MS), end = cntvct() + window;
    for (uint32_t n = 0;; n++) {
        uint32_t count = 0;
        while (cntvct() < end)
            count++;
        gprintf("cpushare: window %lu: %lu\n", (unsigned long)n, (unsigned long)count);
        end += window;
    }
}
