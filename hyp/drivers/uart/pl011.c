/* ARM PrimeCell PL011 (DDI 0183): registers are 32-bit words at fixed
 * offsets, whatever the DT's reg-shift says. */
#include "pl011.h"
#include "uart_driver.h"

static inline uint32_t rd(struct uart_port *u, uint32_t off)
{
    return *(volatile uint32_t *)(u->base + off);
}

static inline void wr(struct uart_port *u, uint32_t off, uint32_t v)
{
    *(volatile uint32_t *)(u->base + off) = v;
}

static void pl011_init(struct uart_port *u)
{
    /* Keep the bootloader's baud rate and format; make sure it is on. */
    wr(u, PL011_CR, rd(u, PL011_CR) | PL011_CR_UARTEN | PL011_CR_TXE | PL011_CR_RXE);
}

static void pl011_putc(void *ctx, char c)
{
    struct uart_port *u = ctx;
    while ((rd(u, PL011_FR) & PL011_FR_TXFF) != 0u) {
        ;
    }
    wr(u, PL011_DR, (uint8_t)c);
}

static int pl011_getc(void *ctx)
{
    struct uart_port *u = ctx;
    if ((rd(u, PL011_FR) & PL011_FR_RXFE) != 0u) {
        return -1;
    }
    uint32_t byte = rd(u, PL011_DR) & 0xffu;
    return (int)byte;
}

static void pl011_rx_irq_enable(struct uart_port *u)
{
    wr(u, PL011_ICR, 0x7ff);
    wr(u, PL011_IMSC, PL011_INT_RX | PL011_INT_RT);
}

static void pl011_irq(struct uart_port *u, void (*rx)(char c))
{
    /* clear first, then drain: a byte that lands after the last read
     * raises the interrupt again instead of waiting, unseen, in the FIFO */
    wr(u, PL011_ICR, PL011_INT_RX | PL011_INT_RT);
    int c;
    while ((c = pl011_getc(u)) >= 0) {
        rx((char)c);
    }
}

const struct uart_driver pl011_driver = {
    "pl011", pl011_init, pl011_putc, pl011_getc, pl011_rx_irq_enable, pl011_irq,
};
