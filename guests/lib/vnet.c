/* A test guest's virtio-mmio network driver (vnet.h), after virtio 1.x
 * sections 3.1.1 (initialization), 2.7 (split queues) and 4.2 (MMIO). */
#include <string.h>
#include "vnet.h"
#include "virtio_mmio_regs.h"

#define F_MAC (1u << 5)             /* low word */
#define F_VERSION_1 1u              /* high word: bit 32 */
#define DESC_F_WRITE 2

static uint32_t rd(const struct vnet *n, uint32_t off) { return mmio_read32(n->base + off); }
static void wr(const struct vnet *n, uint32_t off, uint32_t v) { mmio_write32(n->base + off, v); }

static bool queue_setup(struct vnet *n, unsigned int sel, struct vnet_queue *q)
{
    memset(q, 0, sizeof(*q));
    wr(n, R_QUEUE_SEL, sel);
    if (rd(n, R_QUEUE_READY) || rd(n, R_QUEUE_MAX) < VNET_QN)
        return false;
    wr(n, R_QUEUE_NUM, VNET_QN);
    wr(n, R_DESC_LO, (uint32_t)q->desc);
    wr(n, R_DESC_HI, 0);
    wr(n, R_DRIVER_LO, (uint32_t)q->avail);
    wr(n, R_DRIVER_HI, 0);
    wr(n, R_DEVICE_LO, (uint32_t)q->used);
    wr(n, R_DEVICE_HI, 0);
    dsb();
    wr(n, R_QUEUE_READY, 1);
    q->free = VNET_QN;
    return rd(n, R_QUEUE_READY) == 1;
}

/* hand descriptor d (its own buffer, len bytes) to the device */
static void queue_add(struct vnet_queue *q, unsigned int d, uint32_t len, uint16_t flags)
{
    q->desc[d] = (struct vnet_desc){ (uint32_t)q->buf[d], len, flags, 0 };
    q->avail[2 + q->avail_idx % VNET_QN] = (uint16_t)d;
    dsb();                          /* the entry before the index (2.7.13) */
    q->avail[1] = ++q->avail_idx;
    q->free--;
}

static bool negotiate(struct vnet *n)
{
    if (rd(n, R_MAGIC) != 0x74726976 || rd(n, R_VERSION) != 2 || rd(n, R_DEVICE_ID) != 1) {
        gprintf("vnet: no modern virtio-mmio network device at 0x%08lx\n",
                (unsigned long)n->base);
        return false;
    }
    wr(n, R_STATUS, 0);
    wr(n, R_STATUS, ST_ACK | ST_DRIVER);
    wr(n, R_DEV_FEAT_SEL, 1);
    uint32_t hi = rd(n, R_DEV_FEAT);
    wr(n, R_DEV_FEAT_SEL, 0);
    uint32_t lo = rd(n, R_DEV_FEAT);
    if (!(hi & F_VERSION_1) || !(lo & F_MAC))
        return false;
    wr(n, R_DRV_FEAT_SEL, 0);
    wr(n, R_DRV_FEAT, F_MAC);
    wr(n, R_DRV_FEAT_SEL, 1);
    wr(n, R_DRV_FEAT, F_VERSION_1);
    wr(n, R_STATUS, ST_ACK | ST_DRIVER | ST_FEATURES_OK);
    return rd(n, R_STATUS) & ST_FEATURES_OK;
}

bool vnet_setup(struct vnet *n)
{
    uint32_t v[2];
    if (bootarg_u32s("net", v, 2) != 2)
        return false;
    n->base = v[0];
    n->irq = v[1];
    if (!vnet_start(n))
        return false;
    spi_enable(n->irq);
    return true;
}

bool vnet_start(struct vnet *n)
{
    if (!negotiate(n) || !queue_setup(n, 0, &n->rx) || !queue_setup(n, 1, &n->tx)) {
        gprintf("vnet: the device refused the set-up (status 0x%lx)\n",
                (unsigned long)rd(n, R_STATUS));
        return false;
    }
    for (unsigned int i = 0; i < 6; i++)
        n->mac[i] = (uint8_t)mmio_read8(n->base + R_CONFIG + i);
    for (unsigned int d = 0; d < VNET_QN; d++)
        queue_add(&n->rx, d, VNET_BUF, DESC_F_WRITE);
    wr(n, R_STATUS, ST_ACK | ST_DRIVER | ST_FEATURES_OK | ST_DRIVER_OK);
    wr(n, R_NOTIFY, 0);
    return true;
}

/* the next used entry of q: its descriptor, or -1 */
static int queue_used(struct vnet_queue *q, uint32_t *len)
{
    uint16_t idx = (uint16_t)(q->used[0] >> 16);
    if (idx == q->last_used)
        return -1;
    dsb();                          /* the entry after the index */
    unsigned int slot = q->last_used++ % VNET_QN;
    *len = q->used[2 + 2 * slot];
    q->free++;
    return (int)(q->used[1 + 2 * slot] % VNET_QN);
}

/* one frame into the next TX descriptor (no notify): false when full */
static bool tx_queue(struct vnet *n, const void *frame, uint32_t len)
{
    uint32_t l;
    while (queue_used(&n->tx, &l) >= 0)
        ;
    if (!n->tx.free || len > VNET_BUF - VNET_HDR)
        return false;
    /* descriptors go round in order: the one after the last one added */
    unsigned int d = n->tx.avail_idx % VNET_QN;
    memset(n->tx.buf[d], 0, VNET_HDR);
    memcpy(n->tx.buf[d] + VNET_HDR, frame, len);
    queue_add(&n->tx, d, VNET_HDR + len, 0);
    n->sent++;
    return true;
}

bool vnet_send(struct vnet *n, const void *frame, uint32_t len)
{
    if (!tx_queue(n, frame, len))
        return false;
    dsb();
    wr(n, R_NOTIFY, 1);
    return true;
}

unsigned int vnet_send_burst(struct vnet *n, const void *frame, uint32_t len)
{
    unsigned int queued = 0;
    while (tx_queue(n, frame, len))
        queued++;
    dsb();
    wr(n, R_NOTIFY, 1);
    return queued;
}

uint32_t vnet_recv(struct vnet *n, void *buf, uint32_t cap)
{
    uint32_t len;
    int d = queue_used(&n->rx, &len);
    if (d < 0)
        return 0;
    len = len < VNET_HDR ? 0 : len - VNET_HDR;
    if (len > cap)
        len = cap;
    memcpy(buf, n->rx.buf[d] + VNET_HDR, len);
    queue_add(&n->rx, (unsigned int)d, VNET_BUF, DESC_F_WRITE);
    dsb();
    wr(n, R_NOTIFY, 0);
    n->received++;
    return len;
}

bool vnet_irq(struct vnet *n, unsigned int intid)
{
    if (intid != n->irq)
        return false;
    wr(n, R_ISR_ACK, rd(n, R_ISR));
    n->irqs++;
    return true;
}

void vnet_raw_write(const struct vnet *n, uint32_t off, uint32_t v)
{
    wr(n, off, v);
}

uint32_t vnet_status(const struct vnet *n)
{
    return rd(n, R_STATUS);
}
