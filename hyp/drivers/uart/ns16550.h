/*
 * 16550-compatible UART driver for the host console: ns16550a, the
 * Synopsys DesignWare APB UART (Allwinner, Rockchip), Tegra and OMAP
 * UARTs.  Registers as in the National Semiconductor PC16550D data sheet;
 * the DesignWare additions (USR, busy detect) from its databook.
 */
#ifndef HYP_NS16550_H
#define HYP_NS16550_H

#include "uart_port.h"

/* register numbers (byte offsets before reg-shift) */
#define UART_RBR    0   /* read: receive buffer (DLAB = 0) */
#define UART_THR    0   /* write: transmit holding */
#define UART_IER    1
#define UART_IIR    2   /* read: interrupt identification */
#define UART_FCR    2   /* write: FIFO control */
#define UART_LCR    3
#define UART_MCR    4
#define UART_LSR    5
#define UART_USR    31  /* DesignWare: UART status (reading clears busy detect) */

#define UART_IER_RDI    ((unsigned int)1u << 0)    /* received data available */
#define UART_IIR_NO_INT ((unsigned int)1u << 0)
#define UART_IIR_ID     0x0fu
#define UART_IIR_BUSY   0x07u       /* DesignWare: LCR written while busy */
#define UART_LCR_DLAB   ((unsigned int)1u << 7)
#define UART_MCR_OUT2   ((unsigned int)1u << 3)    /* gates the IRQ line on PC-style parts */
#define UART_LSR_DR     ((unsigned int)1u << 0)    /* data ready */
#define UART_LSR_THRE   ((unsigned int)1u << 5)    /* transmit holding register empty */

/* console_ops putc/getc: ctx is the struct uart_port */
/* the UART's IRQ handler: acknowledge, drain into the console ring */

#endif
