/*
 * Disks: virtio block devices of frontend guests, served by a driver
 * partition that owns the storage (docs/disks.md).  Each frontend sees a
 * virtio 1.x block device (modern virtio-mmio, 0x200 bytes) at its own IPA
 * raising its own SPI; Partita moves its requests into a queue in the
 * driver partition's own RAM and copies the results back, so no partition
 * maps another's memory.  Included by guest_config.h.
 */
#ifndef HYP_DISK_CONFIG_H
#define HYP_DISK_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#define DISK_MAX               4u
#define DISK_MAX_FRONTENDS     4u
#define GUEST_MAX_DISKS        2u       /* disks a guest is a frontend of */
#define DISK_BACKING_MAX       64u      /* the backing-store name, with its NUL */
#define DISK_SECTOR_SIZE       512u     /* virtio 1.x 5.2.4: capacity in 512-byte sectors */
/* the queue region in the driver partition's RAM: whole pages, and room
 * for at least one request of the largest size a frontend may send (its
 * layout: include/partita/blk_queue.h) */
#define DISK_QUEUE_ALIGN       0x1000u
#define DISK_QUEUE_MIN         0x21000u
#define DISK_QUEUE_MAX         0x1000000u
/* the driver's done page (`done`): a store there is PARTITA_HC_BLK_DONE
 * for the disk, for a driver in user space, which cannot issue an HVC */
#define DISK_DONE_SIZE         0x1000u

/* One guest's view of a disk it is a frontend of */
struct guest_disk {
    char name[GUEST_DISK_NAME_MAX];         /* the disk's node name */
    unsigned int id;                        /* index in system_config.disks */
    unsigned int member;                    /* this guest's index among its frontends */
    uint32_t ipa;                           /* the virtio-mmio registers (0x200 bytes) */
    uint32_t irq;                           /* its INTID (an SPI) */
    uint64_t capacity;                      /* in DISK_SECTOR_SIZE sectors, > 0 */
    bool read_only;
    char backing[DISK_BACKING_MAX];         /* what the driver partition serves it from */
    bool parse_error;                       /* reported; not checked further */
};

/* One driver partition's view of a disk it serves, in configuration
 * order (its index there is the disk's number in PARTITA_HC_BLK_DONE and
 * its request key, include/partita/blk_queue.h) */
struct guest_driven {
    unsigned int id;                        /* index in system_config.disks */
    char name[GUEST_DISK_NAME_MAX];
    uint32_t queue_ipa;
    uint32_t queue_size;
    uint32_t irq;
    uint32_t done_ipa;                      /* 0: none */
};

struct disk_frontend {
    unsigned int guest;                     /* index in system_config.guest_cfg */
    unsigned int slot;                      /* in that guest's disks[] */
};

struct disk_config {
    char name[GUEST_DISK_NAME_MAX];
    int driver;                             /* index in system_config.guest_cfg; -1: none */
    uint32_t queue_ipa, queue_size;         /* the request queue, in the driver's RAM */
    uint32_t irq;                           /* the SPI that tells the driver of requests */
    uint32_t done_ipa;                      /* its done page; 0: none (the call only) */
    bool parse_error;                       /* the driver side is reported wrong */
    unsigned int nfrontends;
    struct disk_frontend frontends[DISK_MAX_FRONTENDS];
};

#endif
