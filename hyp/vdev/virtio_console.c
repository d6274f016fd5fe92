/*
 * The virtio console (virtio_console.h).  Output is taken at the notify,
 * before the exit returns: Linux's hvc write path spins until the device
 * hands the buffer back.  Locks: tx_lock, then the owner's console (out);
 * lock alone, never held while calling out or raise.
 */
#include <string.h>
#include "virtio_console.h"

static uint32_t vcon_config_read(struct vmmio *d, uint32_t off, unsigned int size)
{
    return 0;   /* no F_SIZE, no F_MULTIPORT: cols, rows, ports unused */
}

static const struct vmmio_ops vcon_ops_mmio = {
    .device_id = VIRTIO_ID_CONSOLE,
    .features = VIRTIO_F_VERSION_1,
    .nqueues = 2,
    .config_read = vcon_config_read,
};

void vcon_init(struct vcon *v, const struct vcon_ops *ops, void *ctx)
{
    (void)memset(v, 0, sizeof(*v));
    vmmio_init(&v->dev, &vcon_ops_mmio, (struct gmem){ 0, 0, NULL });
    v->ops = ops;
    v->ctx = ctx;
}

void vcon_attach(struct vcon *v, struct gmem mem)
{
    spin_lock(&v->tx_lock);
    spin_lock(&v->lock);
    vmmio_init(&v->dev, &vcon_ops_mmio, mem);
    v->written = v->received = v->errors = 0u;
    v->attached = true;
    spin_unlock(&v->lock);
    spin_unlock(&v->tx_lock);
}

void vcon_detach(struct vcon *v)
{
    spin_lock(&v->tx_lock);
    spin_lock(&v->lock);
    v->attached = false;
    vmmio_init(&v->dev, &vcon_ops_mmio, (struct gmem){ 0, 0, NULL });
    spin_unlock(&v->lock);
    spin_unlock(&v->tx_lock);
}

/* under lock: a malformed ring stops the device; true the first time */
static bool vcon_fail(struct vcon *v, int err)
{
    if ((v->dev.status & VIRTIO_STATUS_NEEDS_RESET) != 0u) {
        return false;
    }
    vmmio_fail(&v->dev, err);
    v->errors++;
    v->ops->report(v->ctx, virtq_strerror(err));
    return true;
}

bool vcon_live(struct vcon *v)
{
    spin_lock(&v->lock);
    bool live = v->attached && vmmio_live(&v->dev) && v->dev.q[VCON_QUEUE_RX].ready;
    spin_unlock(&v->lock);
    return live;
}

/* under lock: may the device take output now? */
static bool vcon_tx_live(struct vcon *v)
{
    return v->attached && vmmio_live(&v->dev) && v->dev.q[VCON_QUEUE_TX].ready;
}

/* The driver's output within one exit's budget (VCON_TX_*_PER_EXIT): the
 * chain left unfinished stays in the queue's cursor for the next notify.
 * True: an interrupt is due. */
static bool vcon_tx(struct vcon *v)
{
    struct virtq *q = &v->dev.q[VCON_QUEUE_TX];
    struct virtq_budget b = { VCON_TX_DESCS_PER_EXIT, VCON_TX_BYTES_PER_EXIT };
    bool irq = false;
    int r;
    spin_lock(&v->tx_lock);
    do {
        spin_lock(&v->lock);
        if (vcon_tx_live(v) && (b.descs != 0u) && (b.bytes != 0u)) {
            r = 1;
        } else {
            r = 0;
        }
        if (r && !q->partial) {
            uint16_t head = 0;
            r = virtq_pop(q, &head);
            if (r > 0) {
                virtq_cursor_start(&q->cur, head);
                q->partial = true;
            } else if (r < 0) {
                irq |= vcon_fail(v, r);
            } else {
                /* otherwise nothing to do */
            }
        }
        /* the walk works on copies: another vCPU of the guest may reset
         * the device meanwhile (its rings are the guest's own memory) */
        struct gmem mem = v->dev.mem;
        struct virtq walk = *q;
        uint32_t epoch = v->dev.epoch;
        spin_unlock(&v->lock);
        if (r <= 0) {
            break;
        }
        uint64_t before = walk.cur.total;
        /* the callback copied: cppcheck takes it, read from the const ops,
         * for a pointer to const (MISRA C:2012 rule 11.8) */
        void (*out)(void *ctx, const uint8_t *p, uint32_t len) = v->ops->out;
        r = virtq_read_some(&walk, &mem, &walk.cur, &b, out, v->ctx);
        spin_lock(&v->lock);
        v->written += (uint32_t)(walk.cur.total - before);
        if (v->dev.epoch == epoch) {        /* not reset nor set up again meanwhile */
            q->cur = walk.cur;
            q->partial = r == 0;
            if (r < 0) {
                irq |= vcon_fail(v, r);
            } else if (r > 0) {
                virtq_push(q, walk.cur.head, 0);
                if (virtq_wants_interrupt(q)) {
                    v->dev.isr |= VMMIO_INT_VRING;
                    irq = true;
                }
            } else {
                /* otherwise nothing to do */
            }
        }
        spin_unlock(&v->lock);
    } while (r > 0);
    spin_unlock(&v->tx_lock);
    return irq;
}

bool vcon_mmio(void *dev, struct mmio_access *a, uint32_t off)
{
    struct vcon *v = dev;
    spin_lock(&v->lock);
    bool was_failed = v->dev.status & VIRTIO_STATUS_NEEDS_RESET;
    bool ok = vmmio_access(&v->dev, a, off);
    uint32_t notified = v->dev.notified;
    v->dev.notified = notified & (1u << VCON_QUEUE_RX);     /* for vcon_rx_notified */
    bool irq = !was_failed && (v->dev.status & VIRTIO_STATUS_NEEDS_RESET);
    if (irq) {
        v->errors++;
        v->ops->report(v->ctx, virtq_strerror(v->dev.error));
    }
    spin_unlock(&v->lock);
    if ((notified & (1u << VCON_QUEUE_TX)) != 0u) {
        irq |= vcon_tx(v);
    }
    if (irq) {
        v->ops->raise(v->ctx);
    }
    return ok;
}

bool vcon_rx_notified(struct vcon *v)
{
    spin_lock(&v->lock);
    bool n = v->dev.notified & (1u << VCON_QUEUE_RX);
    v->dev.notified = 0u;
    spin_unlock(&v->lock);
    return n;
}

uint32_t vcon_input(struct vcon *v, const uint8_t *p, uint32_t n)
{
    struct virtq *q = &v->dev.q[VCON_QUEUE_RX];
    uint32_t taken = 0u, descs = 0u;
    bool irq = false;
    int r = 0;
    spin_lock(&v->lock);
    while (taken < n && descs < VCON_RX_DESCS_PER_CALL) {
        uint16_t head = 0;
        uint32_t written = 0u;
        r = v->attached && vmmio_live(&v->dev) && q->ready ? virtq_pop(q, &head) : 0;
        if (r <= 0) {
            break;
        }
        /* as much as the buffer takes: a short write is no error here */
        r = virtq_scatter(q, &v->dev.mem, head, p + taken, n - taken, NULL, 0, &written, &descs);
        if (r < 0) {
            break;
        }
        /* even a buffer that took nothing goes back (used len 0, virtio
         * 1.x 2.7.8.2): put back at the head it would stop all input */
        virtq_push(q, head, written);
        taken += written;
        v->received += written;
        if (virtq_wants_interrupt(q)) {
            v->dev.isr |= VMMIO_INT_VRING;
            irq = true;
        }
    }
    if (r < 0) {
        irq |= vcon_fail(v, r);
    }
    spin_unlock(&v->lock);
    if (irq) {
        v->ops->raise(v->ctx);
    }
    return taken;
}
