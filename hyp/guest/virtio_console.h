/*
 * A virtio console (virtio 1.x section 5.3) with one port, no multiport,
 * no size: Linux's virtio_console makes it hvc0.  What the driver writes
 * goes to the owner's output function, bytes given to vcon_input fill the
 * driver's receive buffers.  Pure: the owner (hyp/guest/guest_console.c)
 * gives it the guest's RAM, its console and its interrupt.
 */
#ifndef HYP_VIRTIO_CONSOLE_H
#define HYP_VIRTIO_CONSOLE_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/lib/spinlock.h"
#include "virtio_mmio.h"

#define VIRTIO_ID_CONSOLE      3u
#define VCON_QUEUE_RX          0u       /* receiveq: input for the driver */
#define VCON_QUEUE_TX          1u       /* transmitq: its output */
#define VCON_CHAINS_PER_EXIT   64u      /* output buffers taken per notify */

struct vcon_ops {
    void (*out)(void *ctx, const uint8_t *p, uint32_t len);    /* outside dev's lock */
    void (*raise)(void *ctx);                                   /* outside dev's lock */
    void (*report)(void *ctx, const char *why);                 /* under dev's lock */
};

struct vcon {
    struct vmmio dev;
    spinlock_t lock;            /* dev: its vCPUs and the console input */
    spinlock_t tx_lock;         /* its output in order (two vCPUs may notify); taken first */
    bool attached;
    const struct vcon_ops *ops;
    void *ctx;
    uint32_t written, received, errors;
};

void vcon_init(struct vcon *v, const struct vcon_ops *ops, void *ctx);
void vcon_attach(struct vcon *v, struct gmem mem);
void vcon_detach(struct vcon *v);
/* The guest's access to the registers (mmio_handler_t); true when the
 * driver added receive buffers (the owner may have input waiting) */
bool vcon_mmio(void *dev, struct mmio_access *a, uint32_t off);
bool vcon_rx_notified(struct vcon *v);
/* Does the driver take input (DRIVER_OK, receive queue ready)? */
bool vcon_live(struct vcon *v);
/* Up to n bytes of input into one receive buffer: how many it took (0: no
 * buffer, or not live) */
uint32_t vcon_input(struct vcon *v, const uint8_t *p, uint32_t n);

#endif
