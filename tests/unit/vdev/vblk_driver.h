/*
 * A fake virtio block driver for the unit tests of hyp/vdev/virtio_blk.c
 * and blk_backend.c: the device vb in the RAM ram, one queue of QN
 * entries, request i in descriptors 3i..3i+2 (header, one data buffer,
 * status) with its data page DATA(i).
 */
#ifndef TESTS_UNIT_VDEV_VBLK_DRIVER_H
#define TESTS_UNIT_VDEV_VBLK_DRIVER_H

#define RAM_IPA   0x40000000u
#define RAM_SIZE  0x80000u
#define QN        64u
#define DESC      0x1000u
#define AVAIL     0x2000u
#define USED      0x3000u
#define DATA(i)   (0x10000u + (i) * 0x1000u)    /* request i's data page */
#define HDR(i)    (0x8000u + (i) * 0x20u)       /* its header, status at +16 */
#define CAPACITY  64u

/* the device the fake driver drives, in its RAM */
static struct vblk vb;
static uint8_t *ram;
static uint16_t avail_idx;

static inline uint32_t rd(uint32_t off)
{
    struct mmio_access a = { .size = 4 };
    assert_true(vblk_mmio(&vb, &a, off));
    return a.value;
}

static inline void wr(uint32_t off, uint32_t v)
{
    struct mmio_access a = { .size = 4, .write = true, .value = v };
    assert_true(vblk_mmio(&vb, &a, off));
}

static inline void desc(uint16_t i, uint32_t off, uint32_t len, uint16_t flags, uint16_t next)
{
    uint8_t *e = ram + DESC + 16u * i;
    uint64_t addr = RAM_IPA + off;
    memcpy(e, &addr, 8);
    memcpy(e + 8, &len, 4);
    memcpy(e + 12, &flags, 2);
    memcpy(e + 14, &next, 2);
}

/* request i (descriptors 3i..3i+2): header, one data buffer, status;
 * made available, not notified */
static inline void request(unsigned int i, uint32_t type, uint64_t sector, uint32_t len)
{
    uint16_t d = (uint16_t)(3 * i);
    memset(ram + HDR(i), 0, 0x20);
    memcpy(ram + HDR(i), &type, 4);
    memcpy(ram + HDR(i) + 8, &sector, 8);
    ram[HDR(i) + 16] = 0xee;
    desc(d, HDR(i), 16, VIRTQ_DESC_F_NEXT, (uint16_t)(d + 1));
    desc((uint16_t)(d + 1), DATA(i), len,
         VIRTQ_DESC_F_NEXT | (type == VIRTIO_BLK_T_IN ? VIRTQ_DESC_F_WRITE : 0),
         (uint16_t)(d + 2));
    desc((uint16_t)(d + 2), HDR(i) + 16, 1, VIRTQ_DESC_F_WRITE, 0);
    uint16_t head = d;
    memcpy(ram + AVAIL + 4 + 2 * (avail_idx % QN), &head, 2);
    avail_idx++;
    memcpy(ram + AVAIL + 2, &avail_idx, 2);
}

static inline uint16_t used_idx(void)
{
    uint16_t v;
    memcpy(&v, ram + USED + 2, 2);
    return v;
}

static inline uint32_t used_len(unsigned int k)
{
    uint32_t v;
    memcpy(&v, ram + USED + 4 + 8 * k + 4, 4);
    return v;
}

static inline void driver_setup(void)
{
    avail_idx = 0;
    memset(ram + DESC, 0, 0x3000);
    wr(VMMIO_STATUS, 0);
    wr(VMMIO_STATUS, 3);
    wr(VMMIO_DRIVER_FEATURES_SEL, 1);
    wr(VMMIO_DRIVER_FEATURES, 1);
    wr(VMMIO_STATUS, 0xb);
    wr(VMMIO_QUEUE_SEL, 0);
    wr(VMMIO_QUEUE_NUM, QN);
    wr(VMMIO_QUEUE_DESC_LOW, RAM_IPA + DESC);
    wr(VMMIO_QUEUE_DRIVER_LOW, RAM_IPA + AVAIL);
    wr(VMMIO_QUEUE_DEVICE_LOW, RAM_IPA + USED);
    wr(VMMIO_QUEUE_READY, 1);
    wr(VMMIO_STATUS, 0xf);
}

#endif
