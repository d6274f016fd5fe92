/*
 * A small virtio-mmio network driver for test guests (virtio 1.x, modern
 * register layout): one RX and one TX queue of VNET_QN descriptors, one
 * buffer per descriptor, frames copied in and out.  Polled (vnet_recv) or
 * interrupt-driven (vnet_irq in the IRQ handler, then vnet_recv).  The
 * device is DMA coherent: the guest runs with its MMU and caches on
 * (mmu_enable) so that it and the hypervisor agree on the rings.
 */
#ifndef GUEST_VNET_H
#define GUEST_VNET_H

#include "guest.h"

#define VNET_QN        16
#define VNET_BUF       1536         /* a 12-byte header and a 1518-byte frame fit */
#define VNET_HDR       12

struct vnet_desc { uint64_t addr; uint32_t len; uint16_t flags, next; };

struct vnet_queue {
    struct vnet_desc desc[VNET_QN] __attribute__((aligned(16)));
    volatile uint16_t avail[2 + VNET_QN + 1] __attribute__((aligned(4)));
    volatile uint32_t used[1 + 2 * VNET_QN + 1] __attribute__((aligned(4)));
    uint16_t avail_idx, last_used, free;
    uint8_t buf[VNET_QN][VNET_BUF] __attribute__((aligned(64)));
};

struct vnet {
    uint32_t base, irq;
    uint8_t mac[6];
    struct vnet_queue rx, tx;
    uint32_t sent, received, irqs;
};

/* From bootargs "net=BASE,INTID": probe, negotiate VERSION_1 and MAC, set
 * the queues up, fill RX; the SPI enabled on vCPU 0 (IRQs stay masked).
 * false (and why printed) when there is no device or it refuses. */
bool vnet_setup(struct vnet *n);
/* Reset the device and set it up again (after NEEDS_RESET) */
bool vnet_start(struct vnet *n);
/* Queue one frame (len <= 1518): false when the TX queue is full */
bool vnet_send(struct vnet *n, const void *frame, uint32_t len);
/* The same frame into every free TX descriptor, then one notify (a burst
 * for the device's frame budget): how many were queued */
unsigned int vnet_send_burst(struct vnet *n, const void *frame, uint32_t len);
/* The next received frame copied into buf: its length, 0 if none */
uint32_t vnet_recv(struct vnet *n, void *buf, uint32_t cap);
/* In the IRQ handler: true if the interrupt was this device's (acked) */
bool vnet_irq(struct vnet *n, unsigned int intid);
/* The device's Status register (NEEDS_RESET = 0x40) */
uint32_t vnet_status(const struct vnet *n);
#define VNET_NEEDS_RESET 0x40
/* A register write as it comes (hostile tests: QueueNotify 0x050, ...) */
void vnet_raw_write(const struct vnet *n, uint32_t off, uint32_t v);

#endif
