/*
 * Samsung S3C/S5P/Exynos UART driver for the host console
 * (samsung,exynos4210-uart; Exynos 5250/5420/5422 user manuals, chapter
 * UART).  32-bit registers, FIFO status in UFSTAT.
 */
#ifndef HYP_SAMSUNG_UART_H
#define HYP_SAMSUNG_UART_H

#include "uart_port.h"

/* register offsets (reg-shift 0, 32-bit accesses) */
#define S3C_ULCON     0x00
#define S3C_UCON      0x04
#define S3C_UFCON     0x08
#define S3C_UTRSTAT   0x10
#define S3C_UFSTAT    0x18
#define S3C_UTXH      0x20
#define S3C_URXH      0x24
#define S3C_UINTP     0x30    /* pending: write 1 to clear */
#define S3C_UINTM     0x38    /* mask: 1 = masked */

#define S3C_UCON_RXMODE_MASK  ((unsigned int)3u << 0)
#define S3C_UCON_RXMODE_IRQ   ((unsigned int)1u << 0)      /* interrupt request or polling */
#define S3C_UCON_RXTIMEOUT    ((unsigned int)1u << 7)      /* interrupt on a quiet, non-empty FIFO */
#define S3C_UFCON_FIFO_EN     ((unsigned int)1u << 0)
#define S3C_UTRSTAT_RXDR      ((unsigned int)1u << 0)      /* receive buffer has data */
#define S3C_UTRSTAT_TXE       ((unsigned int)1u << 1)      /* transmit buffer empty */
/* Exynos4210 FIFO status: RX count [7:0], RX full 8, TX count [23:16], TX full 24 */
#define S3C_UFSTAT_RXCNT      0xffu
#define S3C_UFSTAT_RXFULL     ((unsigned int)1u << 8)
#define S3C_UFSTAT_TXFULL     ((unsigned int)1u << 24)
#define S3C_UINT_RXD          ((unsigned int)1u << 0)
#define S3C_UINT_ERROR        ((unsigned int)1u << 1)
#define S3C_UINT_ALL          0xfu

/* console_ops putc/getc: ctx is the struct uart_port */

#endif
