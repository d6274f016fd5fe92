/*
 * Console guest: answers every line typed at it with "<name> got: <line>",
 * reading its PL011 by interrupt (RX and receive-timeout, SPI 1 = INTID 33).
 * "exit" powers it off, "reset" asks for a system reset.  Given a channel
 * (bootargs "channel=IPA,SIZE,DOORBELL"), it also answers every message on
 * it, as guests/test/chanpeer.c does (the demo's Linux talks to it).
 */
#include <string.h>
#include "chan.h"

#define GICD_CTLR      (GICD_BASE + 0x000)
#define GICD_ISENABLER (GICD_BASE + 0x100)
#define GICD_ITARGETSR (GICD_BASE + 0x800)
#define GICC_CTLR      (GICC_BASE + 0x000)
#define GICC_PMR       (GICC_BASE + 0x004)
#define GICC_IAR       (GICC_BASE + 0x00c)
#define GICC_EOIR      (GICC_BASE + 0x010)
#define UART_FR        (VUART_BASE + 0x18)
#define UART_IMSC      (VUART_BASE + 0x38)
#define UART_ICR       (VUART_BASE + 0x44)

static char line[128];
static volatile unsigned int len, lines_ready;
static char ready[128];
static unsigned int rx_irqs;
static struct chan ch;
static bool chan_on;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) == 33) {
        rx_irqs++;
        while (!(mmio_read32(UART_FR) & (1 << 4))) {
            char c = (char)(mmio_read32(VUART_BASE) & 0xff);
            if (c == '\r' || c == '\n') {
                if (len && !lines_ready) {
                    memcpy(ready, line, len);
                    ready[len] = 0;
                    lines_ready = 1;
                }
                len = 0;
            } else if (len < sizeof(line) - 1) {
                line[len++] = c;
            }
        }
        mmio_write32(UART_ICR, 0x7ff);
    }
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

void guest_main(uint32_t dtb)
{
    const char *name = (const char *)"echo";
    struct smc_ret info = hvc_call(PARTITA_GUEST_INFO, 0, 0, 0);
    mmio_write32(GICD_CTLR, 1);
    *(volatile uint8_t *)(GICD_ITARGETSR + 33) = 1;
    mmio_write32(GICD_ISENABLER + 4, 1u << 1);
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
    mmio_write32(UART_IMSC, (1 << 4) | (1 << 6));
    chan_on = chan_setup(&ch);
    gprintf("%s %lu ready\n", name, (unsigned long)info.r0);
    if (chan_on)
        gprintf("%s: answering on channel %u\n", name, ch.id);
    for (;;) {
        /* IRQs masked from the checks to the WFI: an interrupt after them
         * still ends the WFI (B1.8.12), then is taken */
        __asm__ volatile("cpsid i" ::: "memory");
        if (chan_on)
            chan_answer(&ch, name);
        if (!lines_ready)
            __asm__ volatile("wfi" ::: "memory");
        __asm__ volatile("cpsie i" ::: "memory");
        if (!lines_ready)
            continue;
        gprintf("%s %lu got: %s (rx irqs %u)\n", name, (unsigned long)info.r0, ready, rx_irqs);
        if (strcmp(ready, "exit") == 0)
            return;
        if (strcmp(ready, "reset") == 0)
            hvc_call(PSCI_SYSTEM_RESET, 0, 0, 0);
        lines_ready = 0;
    }
}
