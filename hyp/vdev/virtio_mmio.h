/*
 * The virtio-mmio transport, version 2 ("modern", virtio 1.x section
 * 4.2.2): the register file a device model puts in front of its queues.
 * Pure: the device model says what it is (ops), takes the locks and
 * raises the interrupt; this file answers the driver's accesses.
 */
#ifndef HYP_VIRTIO_MMIO_H
#define HYP_VIRTIO_MMIO_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/vdev/mmio.h"
#include "virtq.h"

/* the registers (4.2.2, table "MMIO Device Register Layout") */
#define VMMIO_MAGIC_VALUE        0x000u
#define VMMIO_VERSION            0x004u
#define VMMIO_DEVICE_ID          0x008u
#define VMMIO_VENDOR_ID          0x00cu
#define VMMIO_DEVICE_FEATURES    0x010u
#define VMMIO_DEVICE_FEATURES_SEL 0x014u
#define VMMIO_DRIVER_FEATURES    0x020u
#define VMMIO_DRIVER_FEATURES_SEL 0x024u
#define VMMIO_QUEUE_SEL          0x030u
#define VMMIO_QUEUE_NUM_MAX      0x034u
#define VMMIO_QUEUE_NUM          0x038u
#define VMMIO_QUEUE_READY        0x044u
#define VMMIO_QUEUE_NOTIFY       0x050u
#define VMMIO_INTERRUPT_STATUS   0x060u
#define VMMIO_INTERRUPT_ACK      0x064u
#define VMMIO_STATUS             0x070u
#define VMMIO_QUEUE_DESC_LOW     0x080u
#define VMMIO_QUEUE_DESC_HIGH    0x084u
#define VMMIO_QUEUE_DRIVER_LOW   0x090u
#define VMMIO_QUEUE_DRIVER_HIGH  0x094u
#define VMMIO_QUEUE_DEVICE_LOW   0x0a0u
#define VMMIO_QUEUE_DEVICE_HIGH  0x0a4u
#define VMMIO_CONFIG_GENERATION  0x0fcu
#define VMMIO_CONFIG             0x100u

#define VMMIO_MAGIC              0x74726976u    /* "virt" */
#define VMMIO_VERSION_MODERN     2u
#define VMMIO_VENDOR_PARTITA     0x41545250u    /* "PRTA" */

/* the device status field (2.1) */
#define VIRTIO_STATUS_ACKNOWLEDGE 1u
#define VIRTIO_STATUS_DRIVER      2u
#define VIRTIO_STATUS_DRIVER_OK   4u
#define VIRTIO_STATUS_FEATURES_OK 8u
#define VIRTIO_STATUS_NEEDS_RESET 64u
#define VIRTIO_STATUS_FAILED      128u

/* InterruptStatus bits (4.2.2) */
#define VMMIO_INT_VRING          1u     /* a used buffer */
#define VMMIO_INT_CONFIG         2u     /* the configuration (or status) changed */

#define VIRTIO_F_VERSION_1       (1ull << 32)

#define VMMIO_MAX_QUEUES         2u

struct vmmio;

struct vmmio_ops {
    uint32_t device_id;
    uint64_t features;                  /* offered; VIRTIO_F_VERSION_1 included */
    unsigned int nqueues;
    /* bytes [off, off + size) of the device's configuration space (LE) */
    uint32_t (*config_read)(struct vmmio *d, uint32_t off, unsigned int size);
};

struct vmmio {
    const struct vmmio_ops *ops;
    struct gmem mem;                    /* the driver's RAM */
    uint32_t status, isr;
    uint32_t dev_features_sel, drv_features_sel, queue_sel;
    uint64_t driver_features;
    uint32_t generation;
    uint32_t notified;                  /* queues notified since the caller last looked */
    int error;                          /* the VQ_ERR_ that set NEEDS_RESET, 0: none */
    /* bumped by every reset and QueueReady write: a device model that
     * walks a queue outside its lock checks it is unchanged before it
     * writes the queue's state back */
    uint32_t epoch;
    struct virtq q[VMMIO_MAX_QUEUES];
};

void vmmio_init(struct vmmio *d, const struct vmmio_ops *ops, struct gmem mem);
/* The device reset (the driver wrote 0 to Status, or its guest restarts) */
void vmmio_reset(struct vmmio *d);
/* One 8-, 16- or 32-bit access at off; false refuses it (an abort) */
bool vmmio_access(struct vmmio *d, struct mmio_access *a, uint32_t off);
/* A malformed queue: NEEDS_RESET, a configuration interrupt, the device
 * stops until the driver resets it (4.2.2, 2.1.2) */
void vmmio_fail(struct vmmio *d, int err);
/* May the device use its queues (DRIVER_OK and no NEEDS_RESET)? */
static inline bool vmmio_live(const struct vmmio *d)
{
    return (d->status & (VIRTIO_STATUS_DRIVER_OK | VIRTIO_STATUS_NEEDS_RESET |
                         VIRTIO_STATUS_FAILED)) == VIRTIO_STATUS_DRIVER_OK;
}

#endif
