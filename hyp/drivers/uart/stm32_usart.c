#include "stm32_usart.h"
#include "uart_driver.h"

static inline uint32_t rd(struct uart_port *u, unsigned int off)
{
    return uart_port_mmio_read(u->base + off, 4);
}

static inline void wr(struct uart_port *u, unsigned int off, uint32_t v)
{
    uart_port_mmio_write(u->base + off, 4, v);
}

static void stm32_usart_init(struct uart_port *u)
{
    /* keep the bootloader's baud rate (BRR), format and FIFO mode; no
     * interrupts until asked, and no error left pending */
    wr(u, STM32_CR1, rd(u, STM32_CR1) & ~(STM32_CR1_RXNEIE | STM32_CR1_TCIE | STM32_CR1_TXEIE |
                                          STM32_CR1_IDLEIE | STM32_CR1_PEIE));
    wr(u, STM32_CR3, rd(u, STM32_CR3) & ~(STM32_CR3_EIE | STM32_CR3_RXFTIE | STM32_CR3_TXFTIE));
    wr(u, STM32_ICR, STM32_ICR_ERRORS);
}

static void stm32_usart_putc(void *ctx, char c)
{
    struct uart_port *u = ctx;
    while (!(rd(u, STM32_ISR) & STM32_ISR_TXE)) {
        ;
    }
    wr(u, STM32_TDR, (uint8_t)c);
}

static int stm32_usart_getc(void *ctx)
{
    struct uart_port *u = ctx;
    uint32_t isr = rd(u, STM32_ISR);
    /* an overrun stops reception until it is cleared (RM0436 USART
     * "Overrun error"): what arrived meanwhile is lost, the rest comes */
    if ((isr & STM32_ISR_ORE) != 0u) {
        wr(u, STM32_ICR, STM32_ICR_ERRORS);
    }
    if (!(isr & STM32_ISR_RXNE)) {
        return -1;
    }
    uint32_t byte = rd(u, STM32_RDR) & 0xffu;
    return (int)byte;
}

static void stm32_usart_rx_irq_enable(struct uart_port *u)
{
    /* RXFNEIE: an interrupt while the RX FIFO holds anything */
    wr(u, STM32_CR1, rd(u, STM32_CR1) | STM32_CR1_RXNEIE);
}

static void stm32_usart_irq(struct uart_port *u, void (*rx)(char c))
{
    /* RXNE clears itself as RDR is read empty */
    int c;
    while ((c = stm32_usart_getc(u)) >= 0) {
        rx((char)c);
    }
}

const struct uart_driver stm32_usart_driver = {
    "stm32", stm32_usart_init, stm32_usart_putc, stm32_usart_getc, stm32_usart_rx_irq_enable,
    stm32_usart_irq,
};
