#include "ns16550.h"
#include "uart_driver.h"

static void ns16550_init(struct uart_port *u)
{
    /*
     * Keep the bootloader's baud rate and format.  Only make sure the
     * divisor latch is closed (DLAB = 0), or RBR/THR would be the divisor;
     * LCR is written only when needed, since a DesignWare UART ignores
     * the write (and raises busy detect) while it is transmitting.
     */
    uint32_t lcr = uart_port_read(u, UART_LCR);
    if ((lcr & UART_LCR_DLAB) != 0u) {
        uart_port_write(u, UART_LCR, lcr & ~UART_LCR_DLAB);
    }
    uart_port_write(u, UART_IER, 0);
}

static void ns16550_putc(void *ctx, char c)
{
    struct uart_port *u = ctx;
    while (!(uart_port_read(u, UART_LSR) & UART_LSR_THRE)) {
        ;
    }
    uart_port_write(u, UART_THR, (uint8_t)c);
}

static int ns16550_getc(void *ctx)
{
    struct uart_port *u = ctx;
    if (!(uart_port_read(u, UART_LSR) & UART_LSR_DR)) {
        return -1;
    }
    uint32_t byte = uart_port_read(u, UART_RBR) & 0xffu;
    return (int)byte;
}

static void ns16550_rx_irq_enable(struct uart_port *u)
{
    uart_port_write(u, UART_MCR, uart_port_read(u, UART_MCR) | UART_MCR_OUT2);
    uart_port_write(u, UART_IER, UART_IER_RDI);
}

static void ns16550_irq(struct uart_port *u, void (*rx)(char c))
{
    /*
     * The receive interrupt (data available or FIFO timeout) clears when
     * the FIFO is drained; the DesignWare busy-detect interrupt only when
     * USR is read.  A bounded loop: a stuck source must not hold the CPU.
     */
    for (int round = 0; round < 16; round++) {
        uint32_t iir = uart_port_read(u, UART_IIR);
        /* busy detect (0x7) has the "no interrupt" bit set: test it first */
        if ((iir & UART_IIR_ID) == UART_IIR_BUSY) {
            (void)uart_port_read(u, UART_USR);
        } else if ((iir & UART_IIR_NO_INT) != 0u) {
            return;
        } else {
            /* otherwise nothing to do */
        }
        int c;
        while ((c = ns16550_getc(u)) >= 0) {
            rx((char)c);
        }
    }
}

const struct uart_driver ns16550_driver = {
    "ns16550", ns16550_init, ns16550_putc, ns16550_getc, ns16550_rx_irq_enable, ns16550_irq,
};
