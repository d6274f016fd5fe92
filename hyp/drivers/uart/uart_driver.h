/*
 * A host UART driver: one table of operations per kind of UART, all on a
 * struct uart_port (its base, register stride and access width).  The
 * console calls putc and getc straight from the table (each console byte
 * goes through them); host_uart.c picks the driver the DT names.
 */
#ifndef HYP_DRIVERS_UART_DRIVER_H
#define HYP_DRIVERS_UART_DRIVER_H

#include "uart_port.h"

struct uart_driver {
    const char *name;
    /* on, keeping the bootloader's baud rate and format */
    void (*init)(struct uart_port *p);
    /* wait for room, send c; ctx is the struct uart_port */
    void (*putc)(void *ctx, char c);
    /* a received character, or -1 if none waits */
    int (*getc)(void *ctx);
    /* raise the interrupt on received data */
    void (*rx_irq_enable)(struct uart_port *p);
    /* the UART's interrupt: hand each received character to rx (the
     * console's input, or the debugger's) */
    void (*irq)(struct uart_port *p, void (*rx)(char c));
};

extern const struct uart_driver pl011_driver, ns16550_driver, samsung_uart_driver,
    imx_uart_driver, stm32_usart_driver;

#endif
