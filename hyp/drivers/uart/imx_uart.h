/*
 * NXP/Freescale i.MX UART driver for the host console (fsl,imx6q-uart,
 * fsl,imx21-uart: i.MX6UL/ULL, i.MX7, i.MX6; i.MX 6UltraLite reference
 * manual, chapter UART).  32-bit registers.
 */
#ifndef HYP_IMX_UART_H
#define HYP_IMX_UART_H

#include "uart_port.h"

#define IMX_URXD   0x00
#define IMX_UTXD   0x40
#define IMX_UCR1   0x80
#define IMX_UCR2   0x84
#define IMX_UFCR   0x90
#define IMX_USR1   0x94
#define IMX_USR2   0x98
#define IMX_UTS    0xb4

#define IMX_URXD_ERR      ((unsigned int)1u << 14)
#define IMX_UCR1_TXMPTYEN ((unsigned int)1u << 6)      /* transmitter empty interrupt */
#define IMX_UCR1_RRDYEN   ((unsigned int)1u << 9)      /* receiver ready interrupt */
#define IMX_UCR1_TRDYEN   ((unsigned int)1u << 13)     /* transmitter ready interrupt */
#define IMX_UCR2_SRST     ((unsigned int)1u << 0)      /* software reset, active low: 0 resets */
#define IMX_UCR2_RXEN     ((unsigned int)1u << 1)      /* receiver enable */
#define IMX_UCR2_TXEN     ((unsigned int)1u << 2)      /* transmitter enable */
#define IMX_UCR2_ATEN     ((unsigned int)1u << 3)      /* aging timer interrupt */
#define IMX_UFCR_RXTL     0x3fu         /* receiver trigger level [5:0] */
#define IMX_USR1_AGTIM    ((unsigned int)1u << 8)      /* aging timer fired, write 1 to clear */
#define IMX_USR2_RDR      ((unsigned int)1u << 0)      /* receive data ready */
#define IMX_UTS_TXFULL    ((unsigned int)1u << 4)

/* console_ops putc/getc: ctx is the struct uart_port */

#endif
