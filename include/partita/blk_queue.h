/*
 * The disk request queue (docs/disks.md), version 1: the region of a
 * driver partition's own RAM that the configuration's `queue` names, where
 * Partita puts its frontends' requests and the driver partition answers
 * them.  Shared by the hypervisor, the test guests and the Linux tools
 * (plain C99, little-endian).
 *
 * Layout: the header at offset 0 (Partita writes it whenever the driver
 * partition starts, and never reads it back), the slots' table at
 * PARTITA_BLKQ_SLOTS_OFF, slot i's data at PARTITA_BLKQ_DATA_OFF +
 * i * PARTITA_BLKQ_DATA_SIZE.
 *
 * A slot Partita fills is PARTITA_BLKQ_REQUEST, with a tag the driver
 * partition gives back as it is; a write's data is in the slot's data.
 * The driver partition serves it, puts a read's data in the slot's data,
 * writes status and len, then state = PARTITA_BLKQ_DONE (after the rest,
 * a release store), and calls PARTITA_HC_BLK_DONE.  Partita then reads
 * each done slot once, checks it against the request it gave (tag, len,
 * status: anything else fails that request with an I/O error and is
 * counted), copies a read's data to the frontend, and frees the slot
 * (state = PARTITA_BLKQ_FREE).  The frontend's own addresses never appear
 * here.  A driver partition that restarts finds a new header (generation
 * bumped) and every request it had not answered given again.  Requests
 * may be in the slots before its first interrupt: it looks at every slot
 * when it starts.  Both sides use the region as normal memory, cacheable
 * and inner shareable, like virtio rings.
 */
#ifndef PARTITA_BLK_QUEUE_H
#define PARTITA_BLK_QUEUE_H

#include <stdint.h>

#define PARTITA_BLKQ_MAGIC      0x31514250u     /* "PBQ1" */
#define PARTITA_BLKQ_VERSION    1u
#define PARTITA_BLKQ_SLOTS_OFF  0x800u
#define PARTITA_BLKQ_DATA_OFF   0x1000u
#define PARTITA_BLKQ_DATA_SIZE  0x20000u        /* a request's data at most: 128 KiB */
#define PARTITA_BLKQ_SLOTS_MAX  32u
#define PARTITA_BLKQ_FRONTENDS_MAX 4u
#define PARTITA_BLKQ_BACKING_MAX   64u

/* the call (PARTITA_HC_BLK_DONE, include/partita/hvc.h): r1 = the disk's
 * index among those the caller drives (in configuration order); r0 = done
 * slots left unread (call again), or -2 (PSCI_INVALID_PARAMETERS) for no
 * such disk */

/*
 * A driver partition in user space (guests/linux/tools/partita-blkd.c)
 * finds each disk it drives in its device tree: a node of compatible
 * "partita,disk-driver", labelled with the disk's name, with reg = <the
 * queue, the done page> (reg-names "queue", "done"), interrupts = the
 * disk's request SPI, partita,disk = its index (the call's r1); the queue
 * is also a no-map /reserved-memory node and is left out of /memory, so
 * Linux never uses it and /dev/mem may map it.  A 32-bit store of any
 * value at PARTITA_BLKQ_DONE_REG of the done page (the configuration's
 * `done`, trapped by Partita) is the call for that disk; its result is not
 * returned: the driver stores again while a slot it marked done is not yet
 * free.  The request interrupt of disk k is also an interrupt-only
 * gpio-keys button of /partita-doorbells, key code PARTITA_BLKQ_KEY_BASE +
 * k (BTN_TRIGGER_HAPPY17 + k: channels' doorbells are BTN_TRIGGER_HAPPY1
 * + their id), a key press on /dev/input/eventN.
 */
#define PARTITA_BLKQ_DONE_REG   0x0u
#define PARTITA_BLKQ_KEY_BASE   0x2d0u
#define PARTITA_BLKQ_KEY_END    0x2e8u          /* past BTN_TRIGGER_HAPPY40 */

/* request types: virtio 1.x 5.2.6's */
#define PARTITA_BLKQ_T_IN       0u      /* read: len bytes from sector */
#define PARTITA_BLKQ_T_OUT      1u      /* write */
#define PARTITA_BLKQ_T_FLUSH    4u      /* make what was written durable (fsync) */
#define PARTITA_BLKQ_S_OK       0u
#define PARTITA_BLKQ_S_IOERR    1u

enum partita_blkq_state {
    PARTITA_BLKQ_FREE = 0,
    PARTITA_BLKQ_REQUEST = 1,
    PARTITA_BLKQ_DONE = 2,
};

struct partita_blkq_frontend {
    uint64_t capacity;                  /* 512-byte sectors */
    uint32_t read_only;
    uint32_t guest;                     /* its guest id */
    char backing[PARTITA_BLKQ_BACKING_MAX];     /* NUL-terminated */
};

struct partita_blkq_header {
    uint32_t magic, version;
    uint32_t generation;                /* bumped at every start of the driver */
    uint32_t nslots;                    /* slots in this region */
    uint32_t nfrontends;
    uint32_t reserved[3];
    struct partita_blkq_frontend fe[PARTITA_BLKQ_FRONTENDS_MAX];
};

struct partita_blkq_slot {
    uint32_t state;                     /* enum partita_blkq_state */
    uint32_t tag;                       /* Partita's, given back as it is */
    uint32_t frontend;                  /* index into the header's fe[] */
    uint32_t type;                      /* PARTITA_BLKQ_T_* */
    uint64_t sector;
    uint32_t len;                       /* data bytes: of the request; of the answer,
                                         * a read's whole len with S_OK, else 0 */
    uint32_t status;                    /* PARTITA_BLKQ_S_*: the driver's answer */
};

#endif
