/*
 * A ring of received bytes: a UART's interrupt pushes, the boot CPU's
 * housekeeping pops.  The console's input (console.c) and the debugger's
 * own UART (hyp/gdb) each have one.  Full: a byte is dropped,
 * never waited for (the interrupt must not block).
 */
#ifndef HYP_LIB_BYTE_RING_H
#define HYP_LIB_BYTE_RING_H

#include <stdbool.h>
#include "spinlock.h"

#define BYTE_RING_SIZE 256u

struct byte_ring {
    volatile char buf[BYTE_RING_SIZE];
    volatile unsigned int head, tail;   /* empty when equal */
    spinlock_t lock;
};

#define BYTE_RING_INIT { .lock = SPINLOCK_INIT }

void byte_ring_push(struct byte_ring *r, char c);
/* the oldest byte, or -1 if none waits */
int byte_ring_pop(struct byte_ring *r);

static inline bool byte_ring_pending(const struct byte_ring *r)
{
    return r->head != r->tail;
}

#endif
