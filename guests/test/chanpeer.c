/*
 * The bare-metal end of a channel (docs/channels.md): it answers every
 * message from the other member with the same text in capitals and the
 * same sequence number, and rings back (chan_answer in guests/lib/chan.c).
 * The peer of the Linux program partita-chan in
 * tests/system/test_channels.py (tests/system/configs/linuxchan.dts).
 */
#include "chan.h"

#define GICC_IAR  (GICC_BASE + 0x00c)
#define GICC_EOIR (GICC_BASE + 0x010)

static struct chan ch;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

void guest_main(uint32_t dtb)
{
    if (!chan_setup(&ch)) {
        gprintf("chanpeer: no channel= in bootargs\n");
        guest_poweroff();
    }
    gprintf("chanpeer: channel %u member %u of %u at 0x%08lx, doorbell %lu: ready\n", ch.id,
            ch.member, ch.nmembers, (unsigned long)ch.ipa, (unsigned long)ch.irq);
    for (;;) {
        /* with IRQs masked, a doorbell that comes after the drain still
         * ends the WFI (B1.8.12): none is missed */
        __asm__ volatile("cpsid i" ::: "memory");
        chan_answer(&ch, "chanpeer");
        __asm__ volatile("wfi" ::: "memory");
        __asm__ volatile("cpsie i" ::: "memory");
    }
}
