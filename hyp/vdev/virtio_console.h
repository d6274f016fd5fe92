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
/*
 * The work of one exit, whatever the driver put on its queues
 * (docs/networks.md, "A virtio console"; docs/threat-model.md).  Output: at
 * most VCON_TX_DESCS_PER_EXIT descriptors visited and VCON_TX_BYTES_PER_EXIT
 * bytes handed to the console per notify; a chain not finished then is taken
 * up where it stopped at the driver's next notify of that queue. The byte
 * bound is two pages: Linux's hvc hands over at most a page per buffer and
 * spins, without notifying again, until it comes back
 * (drivers/char/virtio_console.c, __send_to_port), so its buffers always
 * finish in the exit that notified them.  Input: one vcon_input visits at
 * most VCON_RX_DESCS_PER_CALL descriptors (plus the rest of the chain it is
 * in, QueueNum - 1 at most) and moves at most the bytes it is given.
 */
#define VCON_TX_DESCS_PER_EXIT 256u
#define VCON_TX_BYTES_PER_EXIT 8192u
#define VCON_RX_DESCS_PER_CALL 256u

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
/* Up to n bytes of input into the driver's receive buffers, as many as
 * each takes, within VCON_RX_DESCS_PER_CALL: how many it took (0: no
 * buffer, or not live).  A buffer that takes nothing (zero length) is
 * handed back empty, never left at the head of the queue. */
uint32_t vcon_input(struct vcon *v, const uint8_t *p, uint32_t n);

#endif
