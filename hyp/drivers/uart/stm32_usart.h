/*
 * STM32 USART driver for the host console (st,stm32h7-uart: STM32MP15x
 * and STM32H7; RM0436 Rev 7, chapter USART, register map; Linux's
 * stm32-usart.c, stm32h7_info).  32-bit registers, FIFO mode as the
 * bootloader left it.
 */
#ifndef HYP_STM32_USART_H
#define HYP_STM32_USART_H

#include "uart_port.h"

#define STM32_CR1   0x00
#define STM32_CR3   0x08
#define STM32_ISR   0x1c
#define STM32_ICR   0x20
#define STM32_RDR   0x24
#define STM32_TDR   0x28

#define STM32_CR1_RXNEIE  ((unsigned int)1u << 5)      /* RXFNEIE in FIFO mode: data received */
#define STM32_CR1_TCIE    ((unsigned int)1u << 6)      /* transmission complete */
#define STM32_CR1_TXEIE   ((unsigned int)1u << 7)      /* TXFNFIE: room to transmit */
#define STM32_CR1_IDLEIE  ((unsigned int)1u << 4)
#define STM32_CR1_PEIE    ((unsigned int)1u << 8)
#define STM32_CR3_EIE     ((unsigned int)1u << 0)      /* error interrupt */
#define STM32_CR3_RXFTIE  ((unsigned int)1u << 28)     /* RX FIFO threshold interrupt */
#define STM32_CR3_TXFTIE  ((unsigned int)1u << 23)     /* TX FIFO threshold interrupt */
#define STM32_ISR_ORE     ((unsigned int)1u << 3)      /* overrun */
#define STM32_ISR_RXNE    ((unsigned int)1u << 5)      /* RXFNE: data to read */
#define STM32_ISR_TXE     ((unsigned int)1u << 7)      /* TXFNF: room in TDR/the FIFO */
#define STM32_ICR_ERRORS  0x0f          /* PECF, FECF, NECF, ORECF: write 1 to clear */

/* console_ops putc/getc: ctx is the struct uart_port */

#endif
