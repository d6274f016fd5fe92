#include "imx_uart.h"
#include "uart_driver.h"

static inline uint32_t rd(struct uart_port *u, unsigned int off)
{
    return uart_port_mmio_read(u->base + off, 4);
}

static inline void wr(struct uart_port *u, unsigned int off, uint32_t v)
{
    uart_port_mmio_write(u->base + off, 4, v);
}

static void imx_uart_init(struct uart_port *u)
{
    /* keep the bootloader's baud rate (UFCR.RFDIV, UBIR/UBMR) and format;
     * no interrupts until asked */
    wr(u, IMX_UCR1, rd(u, IMX_UCR1) & ~(IMX_UCR1_RRDYEN | IMX_UCR1_TRDYEN | IMX_UCR1_TXMPTYEN));
    /* the receiver and transmitter on: a bootloader that only printed may
     * have left the receiver off, and a disabled receiver ignores the line
     * (i.MX 6UL reference manual, UCR2.RXEN; QEMU 10 models it, 7.2 did
     * not).  SRST is active low: writing it 0 would reset the UART, so it
     * is always written 1, whatever a read returned */
    wr(u, IMX_UCR2, (rd(u, IMX_UCR2) & ~IMX_UCR2_ATEN) | IMX_UCR2_SRST | IMX_UCR2_RXEN |
                    IMX_UCR2_TXEN);
}

static void imx_uart_putc(void *ctx, char c)
{
    struct uart_port *u = ctx;
    while ((rd(u, IMX_UTS) & IMX_UTS_TXFULL) != 0u) {
        ;
    }
    wr(u, IMX_UTXD, (uint8_t)c);
}

static int imx_uart_getc(void *ctx)
{
    struct uart_port *u = ctx;
    if (!(rd(u, IMX_USR2) & IMX_USR2_RDR)) {
        return -1;
    }
    uint32_t byte = rd(u, IMX_URXD) & 0xffu;
    return (int)byte;
}

static void imx_uart_rx_irq_enable(struct uart_port *u)
{
    /* an interrupt for every received byte: trigger level 1, so no aging
     * timer is needed for a lone keystroke; UFCR's other fields (the
     * clock divider) stay */
    wr(u, IMX_UFCR, (rd(u, IMX_UFCR) & ~IMX_UFCR_RXTL) | 1u);
    wr(u, IMX_UCR1, rd(u, IMX_UCR1) | IMX_UCR1_RRDYEN);
}

static void imx_uart_irq(struct uart_port *u, void (*rx)(char c))
{
    /* receiver ready clears itself once the FIFO is below the trigger */
    int c;
    while ((c = imx_uart_getc(u)) >= 0) {
        rx((char)c);
    }
    wr(u, IMX_USR1, IMX_USR1_AGTIM);
}

const struct uart_driver imx_uart_driver = {
    "imx", imx_uart_init, imx_uart_putc, imx_uart_getc, imx_uart_rx_irq_enable, imx_uart_irq,
};
