/*
 * The virtio block request (virtio 1.x section 5.2.6) as a frontend's
 * descriptor chain lays it out: a 16-byte header the device reads, the
 * data (read by the device for a write, written by it for a read), and a
 * status byte it writes last.  Pure: blk_parse sees the chain's buffers
 * (already checked against the frontend's RAM by virtq_segments) and
 * decides, without touching them but for the header, whether the request
 * goes to the backend or is answered at once, and with what.
 */
#ifndef HYP_BLK_REQ_H
#define HYP_BLK_REQ_H

#include <stdint.h>
#include <stdbool.h>
#include "virtq.h"

/* struct virtio_blk_req (5.2.6): type, reserved, sector; then data, status */
#define VIRTIO_BLK_HDR_SIZE    16u
#define VIRTIO_BLK_T_IN        0u
#define VIRTIO_BLK_T_OUT       1u
#define VIRTIO_BLK_T_FLUSH     4u
#define VIRTIO_BLK_T_GET_ID    8u
#define VIRTIO_BLK_S_OK        0u
#define VIRTIO_BLK_S_IOERR     1u
#define VIRTIO_BLK_S_UNSUPP    2u
#define VIRTIO_BLK_SECTOR      512u     /* sector is in 512-byte units (5.2.6) */

/*
 * What the device offers (VIRTIO_BLK_F_SEG_MAX, VIRTIO_BLK_F_SIZE_MAX):
 * at most BLK_SEG_MAX data buffers of at most BLK_SIZE_MAX bytes each, so
 * a request from a driver that keeps to them moves at most BLK_DATA_MAX
 * bytes, and a chain has at most BLK_SEG_MAX + 2 buffers (header and
 * status apart).  A request over either bound is answered IOERR.
 */
#define BLK_SEG_MAX            32u
#define BLK_SIZE_MAX           4096u
#define BLK_DATA_MAX           (BLK_SEG_MAX * BLK_SIZE_MAX)
#define BLK_CHAIN_MAX          (BLK_SEG_MAX + 2u)

/* Where a byte of the chain is: buffer seg, offset off in it */
struct blk_pos {
    uint32_t seg, off;
};

struct blk_req {
    uint32_t type;                      /* VIRTIO_BLK_T_* */
    uint64_t sector;
    uint32_t len;                       /* data bytes (a multiple of 512) */
    struct blk_pos data;                /* where the data starts */
    struct blk_pos status;              /* the status byte */
    uint8_t answer;                     /* blk_parse 0: the status to give now */
};

/*
 * The request in the chain's n buffers s (n as virtq_segments counts them:
 * more than BLK_CHAIN_MAX means s holds the first BLK_CHAIN_MAX - 1 and the
 * last), on a disk of capacity sectors, read-only or not:
 *   1   a request for the backend: r says which, how much and where;
 *   0   answered at once: r->answer goes into r->status (IOERR for a
 *       sector range past capacity, a write to a read-only disk, a size
 *       that is no whole number of sectors or over BLK_DATA_MAX, a layout
 *       that does not match the type; UNSUPP for an unknown type);
 *   VQ_ERR_DIRECTION  no status byte to answer in (nothing device-writable
 *       at the end, or a device-readable buffer after a writable one).
 */
int blk_parse(const struct virtq_seg *s, uint32_t n, uint64_t capacity, bool read_only,
              struct blk_req *r);

/* Copy len bytes of the chain's buffers from pos on into buf (reading) or
 * from buf into them (writing, for a read request's data); the buffers
 * must hold them (blk_parse said so). */
void blk_copy_out(const struct virtq_seg *s, struct blk_pos pos, uint8_t *buf, uint32_t len);
void blk_copy_in(const struct virtq_seg *s, struct blk_pos pos, const uint8_t *buf,
                 uint32_t len);

#endif
