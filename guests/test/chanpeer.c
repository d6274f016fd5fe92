/*
 * The bare-metal end of a channel (README, "Channels"): it answers every
 * message from the other member with the same text in capitals, same
 * sequence number, and rings back.  The peer of the Linux program
 * partita-chan in the demo and in tests/system/test_channels.py.
 *
 * It sleeps in WFI; a doorbell interrupt wakes it, and it drains the ring
 * completely (doorbells coalesce: one interrupt may stand for several
 * messages).  When its reply ring is full it waits for the peer to make
 * room, ringing again so a peer that polls or sleeps learns of the replies.
 */
#include "chan.h"

#define GICC_IAR  (GICC_BASE + 0x00c)
#define GICC_EOIR (GICC_BASE + 0x010)

static struct chan ch;
static volatile uint32_t doorbells;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) == ch.irq)
        doorbells++;
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

static void transform(uint8_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (b[i] >= 'a' && b[i] <= 'z')
            b[i] = (uint8_t)(b[i] - 'a' + 'A');
}

void guest_main(uint32_t dtb)
{
    if (!chan_setup(&ch)) {
        gprintf("chanpeer: no channel= in bootargs\n");
        guest_poweroff();
    }
    gprintf("chanpeer: channel %u member %u of %u at 0x%08lx, doorbell %lu: ready\n", ch.id,
            ch.member, ch.nmembers, (unsigned long)ch.ipa, (unsigned long)ch.irq);
    uint32_t answered = 0;
    for (;;) {
        __asm__ volatile("cpsid i" ::: "memory");
        uint8_t buf[CHAN_MSG_BYTES];
        uint32_t len, seq;
        bool any = false;
        while (chan_get(ch.rx, buf, &len, &seq)) {
            transform(buf, len);
            while (!chan_put(ch.tx, buf, len, seq)) {
                chan_ring_mmio(&ch);        /* full: make sure the peer knows */
                delay_ms(1);
            }
            any = true;
            if (++answered <= 4 || answered % 1000 == 0)
                gprintf("chanpeer: answered %lu (seq %lu, %lu bytes)\n",
                        (unsigned long)answered, (unsigned long)seq, (unsigned long)len);
        }
        if (any)
            chan_ring_mmio(&ch);
        /* WFI with IRQs masked still wakes on a pending one (B1.8.12): no
         * doorbell arriving between the drain and the WFI is missed */
        __asm__ volatile("wfi" ::: "memory");
        __asm__ volatile("cpsie i" ::: "memory");
    }
}
