/*
 * The message ring of a Partita channel (docs/channels.md, "The ring
 * protocol"), shared by the bare-metal guests and the Linux program
 * guests/linux/tools/partita-chan.c.  Header only, no library calls, so that
 * both toolchains compile it.
 *
 * A two-member channel's memory holds two rings: member k produces into
 * ring k (at k * CHAN_RING_STRIDE) and consumes the other one.  A ring is
 * CHAN_RING_SLOTS fixed-size messages with two free-running indices:
 * head, written only by the producer (the next slot it fills), and tail,
 * written only by the consumer (the next slot it reads).  Empty when
 * head == tail, full when head - tail == CHAN_RING_SLOTS; the slot of an
 * index is index % CHAN_RING_SLOTS.  The indices live in cache lines of
 * their own.  Everything is accessed as aligned 32-bit words: Linux maps
 * the region through /dev/mem as strongly-ordered memory, where an
 * unaligned access faults.
 *
 * Barriers (ARM ARM A3.8.3; the memory is Normal non-cacheable or
 * strongly-ordered, and Normal memory is weakly ordered either way):
 *   producer: write the slot; DMB; write head; then ring the doorbell
 *             (Partita executes a DSB before it raises the peer's SPI).
 *   consumer: read head; DMB; read the slot; DMB; write tail.
 * The first consumer DMB keeps the slot read from overtaking the head
 * read (it would see a stale slot); the second keeps the producer from
 * reusing the slot before it was read.
 *
 * Doorbells are wake-up hints, not messages: a doorbell raised while the
 * previous one is still pending in the peer's GIC coalesces with it (one
 * interrupt for several rings).  So a consumer drains the ring completely
 * after every doorbell interrupt, and the ring, never the count of
 * interrupts, says how many messages came.
 */
#ifndef CHAN_RING_H
#define CHAN_RING_H

#include <stdint.h>
#include <stdbool.h>

#define CHAN_RING_STRIDE   0x2000u     /* ring k at k * stride: 2 rings, 16 KiB */
#define CHAN_RING_SLOTS    64u
#define CHAN_MSG_WORDS     14u         /* payload: 56 bytes */
#define CHAN_MSG_BYTES     (CHAN_MSG_WORDS * 4u)
#define CHAN_MIN_SIZE      (2u * CHAN_RING_STRIDE)

/* The doorbell page's registers (CHAN_DB_*) */
#include "chan_doorbell.h"

struct chan_msg {
    uint32_t len;                      /* payload bytes, <= CHAN_MSG_BYTES */
    uint32_t seq;                      /* the producer's number for it */
    uint32_t data[CHAN_MSG_WORDS];
};

struct chan_ring {
    uint32_t head;                     /* producer only */
    uint32_t pad0[15];
    uint32_t tail;                     /* consumer only */
    uint32_t pad1[15];
    struct chan_msg slot[CHAN_RING_SLOTS];
};

static inline void chan_dmb(void) { __asm__ volatile("dmb ish" ::: "memory"); }

static inline volatile struct chan_ring *chan_ring_of(volatile void *shm, unsigned int member)
{
    return (volatile struct chan_ring *)((volatile uint8_t *)shm + member * CHAN_RING_STRIDE);
}

/* Producer: queue len bytes (<= CHAN_MSG_BYTES); false when the ring is full. */
static inline bool chan_put(volatile struct chan_ring *r, const void *data, uint32_t len,
                            uint32_t seq)
{
    uint32_t head = r->head;
    if (head - r->tail >= CHAN_RING_SLOTS)
        return false;
    volatile struct chan_msg *m = &r->slot[head % CHAN_RING_SLOTS];
    const uint8_t *b = data;
    if (len > CHAN_MSG_BYTES)
        len = CHAN_MSG_BYTES;
    for (uint32_t w = 0; w < (len + 3) / 4; w++) {
        uint32_t v = 0;
        for (uint32_t i = 0; i < 4 && w * 4 + i < len; i++)
            v |= (uint32_t)b[w * 4 + i] << (8 * i);
        m->data[w] = v;
    }
    m->len = len;
    m->seq = seq;
    chan_dmb();                        /* the slot before the index that publishes it */
    r->head = head + 1;
    return true;
}

/* Consumer: take the oldest message (buf: CHAN_MSG_BYTES); false when empty. */
static inline bool chan_get(volatile struct chan_ring *r, void *buf, uint32_t *len,
                            uint32_t *seq)
{
    uint32_t tail = r->tail;
    if (r->head == tail)
        return false;
    chan_dmb();                        /* the index before the slot it announces */
    volatile struct chan_msg *m = &r->slot[tail % CHAN_RING_SLOTS];
    uint32_t n = m->len;
    uint8_t *b = buf;
    if (n > CHAN_MSG_BYTES)
        n = CHAN_MSG_BYTES;
    for (uint32_t w = 0; w < (n + 3) / 4; w++) {
        uint32_t v = m->data[w];
        for (uint32_t i = 0; i < 4 && w * 4 + i < n; i++)
            b[w * 4 + i] = (uint8_t)(v >> (8 * i));
    }
    *len = n;
    *seq = m->seq;
    chan_dmb();                        /* the slot is read before it is given back */
    r->tail = tail + 1;
    return true;
}

#endif
