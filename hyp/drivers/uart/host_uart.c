/* The host console UART: the driver of the DT's kind, from one table. */
#include "host_uart.h"

static const struct uart_driver *const drivers[] = {
    [UART_PL011] = &pl011_driver,
    [UART_NS16550] = &ns16550_driver,
    [UART_SAMSUNG] = &samsung_uart_driver,
    [UART_IMX] = &imx_uart_driver,
    [UART_STM32] = &stm32_usart_driver,
};

int host_uart_init(struct host_uart *u, const struct plat_uart *p, volatile void *base)
{
    u->port = (struct uart_port){ base, p->reg_shift, p->io_width };
    u->drv = (unsigned int)p->kind < sizeof(drivers) / sizeof(drivers[0]) ? drivers[p->kind]
                                                                          : NULL;
    if (!u->drv) {
        return -1;              /* UART_NONE */
    }
    u->drv->init(&u->port);
    return 0;
}

void host_uart_rx_irq_enable(struct host_uart *u)
{
    if (u->drv != NULL) {
        u->drv->rx_irq_enable(&u->port);
    }
}

void host_uart_irq(struct host_uart *u, void (*rx)(char c))
{
    if (u->drv != NULL) {
        u->drv->irq(&u->port, rx);
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
    if (!u->drv) {
        return (struct console_ops){ none_putc, none_getc, u };
    }
    return (struct console_ops){ u->drv->putc, u->drv->getc, &u->port };
}
