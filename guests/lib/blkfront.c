/* A test guest's virtio-mmio block driver (blkfront.h), after virtio 1.x
 * sections 3.1.1 (initialization), 2.7 (split queues), 4.2 (MMIO) and
 * 5.2.6 (requests). */
#include <string.h>
#include "blkfront.h"
#include "virtio_mmio_regs.h"

#define F_VERSION_1  1u                 /* high word: bit 32 */
#define F_SIZE_MAX   (1u << 1)
#define F_SEG_MAX    (1u << 2)
#define F_FLUSH      (1u << 9)
#define DESC_F_NEXT  1
#define DESC_F_WRITE 2
#define VIRTIO_ID_BLOCK 2

static uint32_t rd(const struct blkfront *b, uint32_t off) { return mmio_read32(b->base + off); }
static void wr(const struct blkfront *b, uint32_t off, uint32_t v)
{
    mmio_write32(b->base + off, v);
}

static bool negotiate(struct blkfront *b)
{
    if (rd(b, R_MAGIC) != 0x74726976 || rd(b, R_VERSION) != 2 ||
        rd(b, R_DEVICE_ID) != VIRTIO_ID_BLOCK) {
        gprintf("blkfront: no modern virtio-mmio block device at 0x%08lx\n",
                (unsigned long)b->base);
        return false;
    }
    wr(b, R_STATUS, 0);
    wr(b, R_STATUS, ST_ACK | ST_DRIVER);
    wr(b, R_DEV_FEAT_SEL, 1);
    uint32_t hi = rd(b, R_DEV_FEAT);
    wr(b, R_DEV_FEAT_SEL, 0);
    b->features = rd(b, R_DEV_FEAT);
    if (!(hi & F_VERSION_1))
        return false;
    wr(b, R_DRV_FEAT_SEL, 0);
    wr(b, R_DRV_FEAT, b->features & (F_SIZE_MAX | F_SEG_MAX | F_FLUSH | BLKFRONT_F_RO));
    wr(b, R_DRV_FEAT_SEL, 1);
    wr(b, R_DRV_FEAT, F_VERSION_1);
    wr(b, R_STATUS, ST_ACK | ST_DRIVER | ST_FEATURES_OK);
    return rd(b, R_STATUS) & ST_FEATURES_OK;
}

bool blkfront_setup(struct blkfront *b)
{
    uint32_t v[2];
    if (bootarg_u32s("blk", v, 2) != 2)
        return false;
    memset(b, 0, sizeof(*b));
    b->base = v[0];
    b->irq = v[1];
    if (!negotiate(b)) {
        gprintf("blkfront: the device refused the set-up (status 0x%lx)\n",
                (unsigned long)rd(b, R_STATUS));
        return false;
    }
    b->capacity = rd(b, R_CONFIG) | (uint64_t)rd(b, R_CONFIG + 4) << 32;
    wr(b, R_QUEUE_SEL, 0);
    if (rd(b, R_QUEUE_MAX) < BLKFRONT_QN)
        return false;
    wr(b, R_QUEUE_NUM, BLKFRONT_QN);
    wr(b, R_DESC_LO, (uint32_t)b->desc);
    wr(b, R_DESC_HI, 0);
    wr(b, R_DRIVER_LO, (uint32_t)b->avail);
    wr(b, R_DRIVER_HI, 0);
    wr(b, R_DEVICE_LO, (uint32_t)b->used);
    wr(b, R_DEVICE_HI, 0);
    dsb();
    wr(b, R_QUEUE_READY, 1);
    wr(b, R_STATUS, ST_ACK | ST_DRIVER | ST_FEATURES_OK | ST_DRIVER_OK);
    return rd(b, R_QUEUE_READY) == 1;
}

void blkfront_post(struct blkfront *b, uint32_t type, uint64_t sector, void *buf, uint32_t len)
{
    unsigned int n = 0;
    b->hdr.type = type;
    b->hdr.reserved = 0;
    b->hdr.sector = sector;
    b->status = 0xff;
    b->desc[n++] = (struct blkfront_desc){ (uint32_t)&b->hdr, sizeof(b->hdr), DESC_F_NEXT, 1 };
    for (uint32_t off = 0; off < len && n <= BLKFRONT_SEGS; off += BLKFRONT_SEG, n++) {
        uint32_t k = len - off < BLKFRONT_SEG ? len - off : BLKFRONT_SEG;
        b->desc[n] = (struct blkfront_desc){ (uint32_t)buf + off, k,
                                             (uint16_t)(DESC_F_NEXT |
                                                        (type == BLKFRONT_T_IN ? DESC_F_WRITE : 0)),
                                             (uint16_t)(n + 1) };
    }
    b->desc[n] = (struct blkfront_desc){ (uint32_t)&b->status, 1, DESC_F_WRITE, 0 };
    b->avail[2 + b->avail_idx % BLKFRONT_QN] = 0;
    dsb();                          /* the entry before the index (2.7.13) */
    b->avail[1] = ++b->avail_idx;
    dsb();
    wr(b, R_NOTIFY, 0);
}

uint8_t blkfront_rw(struct blkfront *b, uint32_t type, uint64_t sector, void *buf, uint32_t len)
{
    blkfront_post(b, type, sector, buf, len);
    /* one request at a time: the next used entry is this one's */
    while ((uint16_t)(b->used[0] >> 16) == b->last_used)
        __asm__ volatile("yield");
    dsb();
    b->last_used++;
    wr(b, R_ISR_ACK, rd(b, R_ISR));
    return b->status;
}
