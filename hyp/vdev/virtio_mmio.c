/*
 * The virtio-mmio register file, version 2 (virtio 1.x section 4.2.2).
 * Registers take aligned 32-bit accesses only (4.2.2.2: "the driver MUST
 * only use 32 bit wide and aligned reads and writes to access the control
 * registers"); the configuration space takes 8, 16 and 32 bits.
 */
#include <string.h>
#include "virtio_mmio.h"

void vmmio_init(struct vmmio *d, const struct vmmio_ops *ops, struct gmem mem)
{
    (void)memset(d, 0, sizeof(*d));
    d->ops = ops;
    d->mem = mem;
}

void vmmio_reset(struct vmmio *d)
{
    d->status = 0u;
    d->isr = 0u;
    d->dev_features_sel = d->drv_features_sel = d->queue_sel = 0u;
    d->driver_features = 0u;
    d->notified = 0u;
    d->error = 0;
    d->epoch++;
    for (unsigned int i = 0u; i < VMMIO_MAX_QUEUES; i++) {
        virtq_reset(&d->q[i]);
    }
}

void vmmio_fail(struct vmmio *d, int err)
{
    if ((d->status & VIRTIO_STATUS_NEEDS_RESET) != 0u) {
        return;
    }
    d->status |= VIRTIO_STATUS_NEEDS_RESET;
    d->isr |= VMMIO_INT_CONFIG;
    d->error = err;
}

/* the selected queue, or NULL when QueueSel names none */
static struct virtq *selected(struct vmmio *d)
{
    return d->queue_sel < d->ops->nqueues ? &d->q[d->queue_sel] : NULL;
}

static uint32_t read_reg(struct vmmio *d, uint32_t off)
{
    struct virtq *q = selected(d);
    switch (off) {
    case VMMIO_MAGIC_VALUE: return VMMIO_MAGIC;
    case VMMIO_VERSION: return VMMIO_VERSION_MODERN;
    case VMMIO_DEVICE_ID: return d->ops->device_id;
    case VMMIO_VENDOR_ID: return VMMIO_VENDOR_PARTITA;
    case VMMIO_DEVICE_FEATURES:
        return d->dev_features_sel < 2u
               ? (uint32_t)(d->ops->features >> (32u * d->dev_features_sel)) : 0u;
    case VMMIO_QUEUE_NUM_MAX: return q != NULL ? VIRTQ_NUM_MAX : 0u;
    case VMMIO_QUEUE_READY: return q && q->ready;
    case VMMIO_INTERRUPT_STATUS: return d->isr;
    case VMMIO_STATUS: return d->status;
    case VMMIO_CONFIG_GENERATION: return d->generation;
    default: break;
    }
    return 0;       /* write-only and reserved registers read as zero */
}

/* FEATURES_OK only for a subset of what is offered, with VERSION_1 (3.1.1) */
static void write_status(struct vmmio *d, uint32_t v)
{
    if (!v) {
        vmmio_reset(d);
        return;
    }
    if ((v & VIRTIO_STATUS_FEATURES_OK) && !(d->status & VIRTIO_STATUS_FEATURES_OK) &&
        ((d->driver_features & ~d->ops->features) ||
         !(d->driver_features & VIRTIO_F_VERSION_1))) {
        v &= ~VIRTIO_STATUS_FEATURES_OK;
    }
    /* NEEDS_RESET is the device's: the driver can neither set nor clear it */
    d->status = (v & ~VIRTIO_STATUS_NEEDS_RESET) | (d->status & VIRTIO_STATUS_NEEDS_RESET);
}

static void set_half(uint64_t *x, uint32_t off, uint32_t v)
{
    unsigned int shift = (off & 4u) ? 32 : 0;
    *x = (*x & ~(0xffffffffull << shift)) | ((uint64_t)v << shift);
}

/* The selected queue's set-up: ignored while it is ready (4.2.2.3) */
static void write_queue(struct vmmio *d, uint32_t off, uint32_t v)
{
    struct virtq *q = selected(d);
    if (!q) {
        return;
    }
    if (off == VMMIO_QUEUE_READY) {
        int r = 0;
        d->epoch++;
        if (!v) {
            q->ready = false;
        } else if (!q->ready && (r = virtq_enable(q, &d->mem)) < 0) {
            vmmio_fail(d, r);
        } else {
            /* otherwise nothing to do */
        }
        return;
    }
    if (q->ready) {
        return;
    }
    switch (off) {
    case VMMIO_QUEUE_NUM: q->num = v; break;
    case VMMIO_QUEUE_DESC_LOW: case VMMIO_QUEUE_DESC_HIGH: set_half(&q->desc, off, v); break;
    case VMMIO_QUEUE_DRIVER_LOW: case VMMIO_QUEUE_DRIVER_HIGH: set_half(&q->avail, off, v); break;
    case VMMIO_QUEUE_DEVICE_LOW: case VMMIO_QUEUE_DEVICE_HIGH: set_half(&q->used, off, v); break;
    default: break;
    }
}

static void write_reg(struct vmmio *d, uint32_t off, uint32_t v)
{
    switch (off) {
    case VMMIO_DEVICE_FEATURES_SEL: d->dev_features_sel = v; break;
    case VMMIO_DRIVER_FEATURES_SEL: d->drv_features_sel = v; break;
    case VMMIO_DRIVER_FEATURES:
        /* the features are fixed once FEATURES_OK is set (3.1.1) */
        if (d->drv_features_sel < 2u && !(d->status & VIRTIO_STATUS_FEATURES_OK)) {
            set_half(&d->driver_features, d->drv_features_sel * 4u, v);
        }
        break;
    case VMMIO_QUEUE_SEL: d->queue_sel = v; break;
    case VMMIO_QUEUE_NOTIFY:
        if (v < d->ops->nqueues) {
            d->notified |= 1u << v;
        }
        break;
    case VMMIO_INTERRUPT_ACK: d->isr &= ~v; break;
    case VMMIO_STATUS: write_status(d, v); break;
    default: write_queue(d, off, v); break;
    }
}

bool vmmio_access(struct vmmio *d, struct mmio_access *a, uint32_t off)
{
    if (off >= VMMIO_CONFIG) {
        if ((off & (a->size - 1u)) != 0u) {
            return false;
        }
        /* the configuration space is read-only for this transport's devices */
        if (!a->write) {
            a->value = d->ops->config_read(d, off - VMMIO_CONFIG, a->size);
        }
        return true;
    }
    if ((a->size != 4u) || ((off & 3u) != 0u)) {
        return false;
    }
    if (a->write) {
        write_reg(d, off, a->value);
    } else {
        a->value = read_reg(d, off);
    }
    return true;
}
