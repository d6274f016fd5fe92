/* A ring of received bytes (byte_ring.h). */
#include "byte_ring.h"

void byte_ring_push(struct byte_ring *r, char c)
{
    uint32_t f = spin_lock_irqsave(&r->lock);
    unsigned int next = (r->head + 1u) % BYTE_RING_SIZE;
    if (next != r->tail) {          /* full: drop, never block the UART IRQ */
        r->buf[r->head] = c;
        r->head = next;
    }
    spin_unlock_irqrestore(&r->lock, f);
}

int byte_ring_pop(struct byte_ring *r)
{
    int c = -1;
    uint32_t f = spin_lock_irqsave(&r->lock);
    if (r->tail != r->head) {
        c = (unsigned char)r->buf[r->tail];
        r->tail = (r->tail + 1u) % BYTE_RING_SIZE;
    }
    spin_unlock_irqrestore(&r->lock, f);
    return c;
}
