/*
 * A guest that floods the console for a few seconds ("mode=polite|rude
 * seconds=N"): polite waits while its UART reports the transmit FIFO full
 * (as any PL011 driver does), rude writes regardless.  Partita's console
 * budget per guest (hyp/guest/guest.h GUEST_TX_*) must hold both to its rate:
 * polite by making it wait, rude by dropping what it writes too fast
 * (tests/system/configs/flood.dts, tests/system/test_flood.py).
 */
#include <string.h>
#include "guest.h"

#define UART_DR  (VUART_BASE + 0x00)
#define UART_FR  (VUART_BASE + 0x18)
#define FR_TXFF  (1u << 5)

static const char text[] = "the quick brown fox jumps over the lazy dog 0123456789 "
                           "THE QUICK BROWN FOX\n";

void guest_main(uint32_t dtb)
{
    bool rude = strstr(guest_dt.bootargs, "mode=rude") != NULL;
    uint32_t seconds = 3, lines = 0, full = 0;
    bootarg_u32("seconds", &seconds);
    uint64_t end = cntvct() + ms_to_ticks(seconds * 1000);
    while (cntvct() < end) {
        for (const char *p = text; *p; p++) {
            if (!rude) {
                if (mmio_read32(UART_FR) & FR_TXFF) {
                    full++;
                    while ((mmio_read32(UART_FR) & FR_TXFF) && cntvct() < end)
                        ;
                }
            }
            mmio_write32(UART_DR, (uint8_t)*p);
        }
        lines++;
    }
    /* the report waits for the line to be free again, rude or not, and
     * starts a line of its own (the last one may have lost its end) */
    while (mmio_read32(UART_FR) & FR_TXFF)
        ;
    gprintf("\nflood: done, %s, %lu lines of %u characters, transmit FIFO full %lu times\n",
            rude ? "rude" : "polite", (unsigned long)lines, (unsigned int)sizeof(text) - 1,
            (unsigned long)full);
}
