/* The smallest guest: prints, asks Partita who it is, shows the first line
 * of its initrd if it was given one, powers off. */
#include "guest.h"

void guest_main(uint32_t dtb)
{
    struct smc_ret v = hvc_call(PARTITA_VERSION, 0, 0, 0);
    struct smc_ret i = hvc_call(PARTITA_GUEST_INFO, 0, 0, 0);
    gprintf("hello from guest %lu (%lu vCPUs), Partita %lu.%lu, DTB at 0x%08lx\n",
            (unsigned long)i.r0, (unsigned long)i.r1, (unsigned long)(v.r0 >> 16),
            (unsigned long)(v.r0 & 0xffff), (unsigned long)dtb);
    uint32_t s = guest_dt.initrd_start, e = guest_dt.initrd_end;
    if (s && e > s) {
        char line[64];
        unsigned int n = 0;
        for (const char *p = (const char *)s; p < (const char *)e && *p != '\n' &&
                                              n < sizeof(line) - 1; p++)
            line[n++] = *p >= ' ' && *p < 0x7f ? *p : '?';
        line[n] = '\0';
        gprintf("initrd: %lu bytes at 0x%08lx: %s\n", (unsigned long)(e - s),
                (unsigned long)s, line);
    }
}
