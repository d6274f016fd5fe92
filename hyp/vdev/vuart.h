/*
 * Emulated PL011 (ARM DDI 0183) at the virtual board's UART address, one per
 * guest.  Pure register model: output goes to a callback, input comes from
 * vuart_rx_push, and the interrupt line level is reported to a callback.
 */
#ifndef HYP_VUART_H
#define HYP_VUART_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/vdev/mmio.h"
#include "hyp/drivers/uart/pl011.h"

#define VUART_FIFO 16u

struct vuart {
    uint32_t cr, lcr_h, ibrd, fbrd, ifls, imsc, ris;
    uint8_t rx[VUART_FIFO];
    unsigned int rx_head, rx_count;
    void (*tx)(void *ctx, char c);
    void (*irq_level)(void *ctx, bool level);
    void *ctx;
    bool level;
    bool tx_full;           /* the owner's console budget is spent: FR.TXFF */
    uint32_t fr_tx;         /* FR's transmit bits: TXFE, or TXFF while tx_full */
};

#define VUART_FR_RXFF (1u << 6)

/*
 * FR (DDI 0183 3.3.3): the transmit bits (TXFE, or TXFF while the console
 * budget is spent) and RXFE/RXFF from the receive FIFO.  Inline by design
 * and the one place FR is computed: vuart_mmio reads it, and so does
 * guest_uart_mmio without the console's lock (what a guest polls around
 * every character; it saves the lock's two atomics and barriers).  Each
 * field is one word read once, so a reader racing the console sees FR as
 * it was a moment before or after, as a guest polling real hardware does.
 */
static inline uint32_t vuart_fr(const struct vuart *u)
{
    unsigned int n = __atomic_load_n(&u->rx_count, __ATOMIC_RELAXED);
    uint32_t fr_tx = __atomic_load_n(&u->fr_tx, __ATOMIC_RELAXED);
    return fr_tx | ((n != 0u) ? 0u : PL011_FR_RXFE) |
           ((n == VUART_FIFO) ? VUART_FR_RXFF : 0u);
}

void vuart_init(struct vuart *u, void (*tx)(void *, char), void (*irq)(void *, bool), void *ctx);
bool vuart_mmio(void *dev, struct mmio_access *a, uint32_t offset);
/* Report the transmit FIFO full (a rate-limited console) or empty again */
void vuart_set_tx_full(struct vuart *u, bool full);
/* false when the receive FIFO is full (the caller keeps the byte) */
bool vuart_rx_push(struct vuart *u, uint8_t c);

#endif
