/* The smallest guest: prints, asks Partita who it is, powers off. */
#include "guest.h"

void guest_main(uint32_t dtb)
{
    struct smc_ret v = hvc_call(PARTITA_VERSION, 0, 0, 0);
    struct smc_ret i = hvc_call(PARTITA_GUEST_INFO, 0, 0, 0);
    gprintf("hello from guest %lu (%lu vCPUs), Partita %lu.%lu, DTB at 0x%08lx\n",
            (unsigned long)i.r0, (unsigned long)i.r1, (unsigned long)(v.r0 >> 16),
            (unsigned long)(v.r0 & 0xffff), (unsigned long)dtb);
}
