#include "host_uart.h"
#include "ns16550.h"
#include "samsung_uart.h"
#include "imx_uart.h"

int host_uart_init(struct host_uart *u, const struct plat_uart *p, volatile void *base)
{
    u->kind = p->kind;
    u->port = (struct uart_port){ base, p->reg_shift, p->io_width };
    switch (u->kind) {
    case UART_PL011:
        pl011_init(&u->pl011, base);
        return 0;
    case UART_NS16550:
        ns16550_init(&u->port);
        return 0;
    case UART_SAMSUNG:
        samsung_uart_init(&u->port);
        return 0;
    case UART_IMX:
        imx_uart_init(&u->port);
        return 0;
    default:
        return -1;
    }
}

void host_uart_rx_irq_enable(struct host_uart *u)
{
    switch (u->kind) {
    case UART_PL011:   pl011_rx_irq_enable(&u->pl011); break;
    case UART_NS16550: ns16550_rx_irq_enable(&u->port); break;
    case UART_SAMSUNG: samsung_uart_rx_irq_enable(&u->port); break;
    case UART_IMX:     imx_uart_rx_irq_enable(&u->port); break;
    default: break;
    }
}

void host_uart_irq(struct host_uart *u)
{
    switch (u->kind) {
    case UART_PL011:   pl011_irq(&u->pl011); break;
    case UART_NS16550: ns16550_irq(&u->port); break;
    case UART_SAMSUNG: samsung_uart_irq(&u->port); break;
    case UART_IMX:     imx_uart_irq(&u->port); break;
    default: break;
    }
}

static void none_putc(void *ctx, char c)
{
}

static int none_getc(void *ctx)
{
    return -1;
}

struct console_ops host_uart_console_ops(struct host_uart *u)
{
    switch (u->kind) {
    case UART_PL011:   return (struct console_ops){ pl011_putc, pl011_getc, &u->pl011 };
    case UART_NS16550: return (struct console_ops){ ns16550_putc, ns16550_getc, &u->port };
    case UART_SAMSUNG: return (struct console_ops){ samsung_uart_putc, samsung_uart_getc, &u->port };
    case UART_IMX:     return (struct console_ops){ imx_uart_putc, imx_uart_getc, &u->port };
    default:           return (struct console_ops){ none_putc, none_getc, u };
    }
}
