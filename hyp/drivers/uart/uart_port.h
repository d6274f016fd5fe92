/*
 * Register access for host UARTs whose register stride and access width
 * come from the device tree ("reg-shift", "reg-io-width", as Linux's
 * 8250_of/of_serial read them): register n is at base + (n << reg_shift),
 * read and written with io_width-byte accesses.  A DesignWare APB UART
 * (Allwinner, Rockchip) must be accessed 32 bits wide; an OMAP or Tegra
 * UART has its byte registers 4 bytes apart.
 *
 * The host unit tests replace the accesses with a register model
 * (uart_port_mmio_read/write, provided by the test).
 */
#ifndef HYP_UART_PORT_H
#define HYP_UART_PORT_H

#include <stdint.h>

struct uart_port {
    volatile uint8_t *base;
    unsigned int reg_shift;     /* register n at n << reg_shift */
    unsigned int io_width;      /* 1, 2 or 4 bytes per access */
};

#ifdef HOST_TEST
uint32_t uart_port_mmio_read(volatile uint8_t *addr, unsigned int width);
void uart_port_mmio_write(volatile uint8_t *addr, unsigned int width, uint32_t v);
#else
static inline uint32_t uart_port_mmio_read(volatile uint8_t *addr, unsigned int width)
{
    if (width == 4u) {
        return *(volatile uint32_t *)addr;
    }
    if (width == 2u) {
        return *(volatile uint16_t *)addr;
    }
    return *addr;
}

static inline void uart_port_mmio_write(volatile uint8_t *addr, unsigned int width, uint32_t v)
{
    if (width == 4u) {
        *(volatile uint32_t *)addr = v;
    } else if (width == 2u) {
        *(volatile uint16_t *)addr = (uint16_t)v;
    } else {
        *addr = (uint8_t)v;
    }
}
#endif

static inline uint32_t uart_port_read(const struct uart_port *p, unsigned int reg)
{
    volatile uint8_t *base = p->base;
    return uart_port_mmio_read(&base[reg << p->reg_shift], p->io_width);
}

static inline void uart_port_write(const struct uart_port *p, unsigned int reg, uint32_t v)
{
    volatile uint8_t *base = p->base;
    uart_port_mmio_write(&base[reg << p->reg_shift], p->io_width, v);
}

#endif
