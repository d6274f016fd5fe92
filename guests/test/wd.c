/*
 * Watchdog guest: feeds Partita's watchdog (hypercall 0x86000003) ten times
 * every 20 ms, says so, then stops feeding and spins.  Partita must log the
 * expiry and restart or stop it, as its configuration says.
 */
#include "guest.h"

#define PARTITA_WATCHDOG 0x86000003u

void guest_main(uint32_t dtb)
{
    uint32_t f = cntfrq();
    int32_t rc = 0;
    for (int i = 0; i < 10; i++) {
        rc |= (int32_t)hvc_call(PARTITA_WATCHDOG, 0, 0, 0).r0;
        uint64_t t0 = cntvct();
        while (cntvct() - t0 < f / 50)
            ;
    }
    gprintf("fed the watchdog 10 times (status %ld), now stopping\n", (long)rc);
    for (;;)
        ;
}
