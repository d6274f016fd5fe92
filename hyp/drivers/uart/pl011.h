/* ARM PrimeCell PL011 UART (DDI 0183): its registers. */
#ifndef HYP_PL011_H
#define HYP_PL011_H

#include <stdint.h>

#define PL011_DR     0x000
#define PL011_RSR    0x004
#define PL011_FR     0x018
#define PL011_IBRD   0x024
#define PL011_FBRD   0x028
#define PL011_LCR_H  0x02c
#define PL011_CR     0x030
#define PL011_IFLS   0x034
#define PL011_IMSC   0x038
#define PL011_RIS    0x03c
#define PL011_MIS    0x040
#define PL011_ICR    0x044

#define PL011_FR_RXFE  ((unsigned int)1u << 4)
#define PL011_FR_TXFF  ((unsigned int)1u << 5)
#define PL011_CR_UARTEN ((unsigned int)1u << 0)
#define PL011_CR_TXE   ((unsigned int)1u << 8)
#define PL011_CR_RXE   ((unsigned int)1u << 9)
#define PL011_INT_RX   ((unsigned int)1u << 4)
#define PL011_INT_RT   ((unsigned int)1u << 6)

/* the driver: pl011_driver (uart_driver.h); the registers above are the
 * guest's virtual UART's too (hyp/vdev/vuart.c) */

#endif
