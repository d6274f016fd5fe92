/*
 * The host console UART, whichever driver the device tree's stdout-path
 * calls for (hyp/platform/platform_uart.c decides the kind): PL011, 16550-compatible,
 * Samsung or i.MX.  Used by the hypervisor (boot/main.c) and the pre-HYP code.
 */
#ifndef HYP_HOST_UART_H
#define HYP_HOST_UART_H

#include "hyp/platform/platform.h"
#include "uart_driver.h"
#include "hyp/lib/console.h"

struct host_uart {
    const struct uart_driver *drv;  /* NULL: no UART Partita can drive */
    struct uart_port port;
};

/* Set up the driver for p at base (already mapped); 0, or -1 for UART_NONE. */
int host_uart_init(struct host_uart *u, const struct plat_uart *p, volatile void *base);
void host_uart_rx_irq_enable(struct host_uart *u);
/* u's interrupt: what it received goes to rx, one character a call */
void host_uart_irq(struct host_uart *u, void (*rx)(char c));
/* console_ops for u: the driver's own putc/getc, called without a detour
 * (each console byte goes through them) */
struct console_ops host_uart_console_ops(struct host_uart *u);

#endif
