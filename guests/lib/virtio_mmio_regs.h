/*
 * The virtio-mmio register file as a test guest's driver sees it (virtio
 * 1.x section 4.2.2, the modern layout), and the device status bits it
 * writes (section 2.1).  Offsets from the device's base.
 */
#ifndef GUEST_VIRTIO_MMIO_REGS_H
#define GUEST_VIRTIO_MMIO_REGS_H

#define R_MAGIC        0x000
#define R_VERSION      0x004
#define R_DEVICE_ID    0x008
#define R_DEV_FEAT     0x010
#define R_DEV_FEAT_SEL 0x014
#define R_DRV_FEAT     0x020
#define R_DRV_FEAT_SEL 0x024
#define R_QUEUE_SEL    0x030
#define R_QUEUE_MAX    0x034
#define R_QUEUE_NUM    0x038
#define R_QUEUE_READY  0x044
#define R_NOTIFY       0x050
#define R_ISR          0x060
#define R_ISR_ACK      0x064
#define R_STATUS       0x070
#define R_DESC_LO      0x080
#define R_DESC_HI      0x084
#define R_DRIVER_LO    0x090
#define R_DRIVER_HI    0x094
#define R_DEVICE_LO    0x0a0
#define R_DEVICE_HI    0x0a4
#define R_CONFIG       0x100

#define ST_ACK         1u
#define ST_DRIVER      2u
#define ST_DRIVER_OK   4u
#define ST_FEATURES_OK 8u

#endif
