#include <stdbool.h>
#include "samsung_uart.h"
#include "uart_driver.h"

/* offsets are byte offsets already: a Samsung UART has no reg-shift */
static inline uint32_t rd(struct uart_port *u, unsigned int off)
{
    return uart_port_mmio_read(u->base + off, 4);
}

static inline void wr(struct uart_port *u, unsigned int off, uint32_t v)
{
    uart_port_mmio_write(u->base + off, 4, v);
}

static bool fifo_on(struct uart_port *u)
{
    return rd(u, S3C_UFCON) & S3C_UFCON_FIFO_EN;
}

static void samsung_uart_init(struct uart_port *u)
{
    /* keep the bootloader's line settings; no interrupts until asked */
    wr(u, S3C_UINTM, S3C_UINT_ALL);
    wr(u, S3C_UINTP, S3C_UINT_ALL);
}

static void samsung_uart_putc(void *ctx, char c)
{
    struct uart_port *u = ctx;
    if (fifo_on(u)) {
        while ((rd(u, S3C_UFSTAT) & S3C_UFSTAT_TXFULL) != 0u) {
            ;
        }
    } else {
        while (!(rd(u, S3C_UTRSTAT) & S3C_UTRSTAT_TXE)) {
            ;
        }
    }
    wr(u, S3C_UTXH, (uint8_t)c);
}

static int samsung_uart_getc(void *ctx)
{
    struct uart_port *u = ctx;
    bool ready = fifo_on(u)
        ? (rd(u, S3C_UFSTAT) & (S3C_UFSTAT_RXCNT | S3C_UFSTAT_RXFULL)) != 0u
        : (rd(u, S3C_UTRSTAT) & S3C_UTRSTAT_RXDR) != 0u;
    if (!ready) {
        return -1;
    }
    uint32_t byte = rd(u, S3C_URXH) & 0xffu;
    return (int)byte;
}

static void samsung_uart_rx_irq_enable(struct uart_port *u)
{
    /* receive by interrupt, also for fewer bytes than the FIFO trigger */
    uint32_t ucon = rd(u, S3C_UCON) & ~S3C_UCON_RXMODE_MASK;
    wr(u, S3C_UCON, ucon | S3C_UCON_RXMODE_IRQ | S3C_UCON_RXTIMEOUT);
    wr(u, S3C_UINTP, S3C_UINT_ALL);
    wr(u, S3C_UINTM, S3C_UINT_ALL & ~S3C_UINT_RXD);
}

static void samsung_uart_irq(struct uart_port *u, void (*rx)(char c))
{
    /* clear first, then drain (as for the PL011): a byte arriving after
     * the last read raises the interrupt again */
    wr(u, S3C_UINTP, S3C_UINT_RXD | S3C_UINT_ERROR);
    int c;
    while ((c = samsung_uart_getc(u)) >= 0) {
        rx((char)c);
    }
}

const struct uart_driver samsung_uart_driver = {
    "samsung", samsung_uart_init, samsung_uart_putc, samsung_uart_getc, samsung_uart_rx_irq_enable, samsung_uart_irq,
};
