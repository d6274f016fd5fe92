/*
 * The virtio block request parser (blk_req.h).  A driver may split or
 * merge the parts over its buffers as it likes (virtio 1.x 2.6.4, "Message
 * Framing": the device must not assume a layout), so the parts are found
 * by byte counts: the device-readable bytes are the header and, for a
 * write, the data after it; the device-writable bytes are the data of a
 * read and, last, the status byte.
 */
#include <string.h>
#include "blk_req.h"

/* The byte at offset k of the bytes of buffers [from, to) */
static struct blk_pos pos_of(const struct virtq_seg *s, uint32_t from, uint32_t to, uint64_t k)
{
    uint32_t i = from;
    while (i + 1u < to && k >= s[i].len) {
        k -= s[i].len;
        i++;
    }
    return (struct blk_pos){ i, (uint32_t)k };
}

static int answer(struct blk_req *r, uint8_t status)
{
    r->answer = status;
    r->len = 0u;
    return 0;
}

/* Is [sector, sector + len / 512) inside the disk, without overflow? */
static bool in_capacity(uint64_t sector, uint32_t len, uint64_t capacity)
{
    uint64_t count = (uint64_t)len / VIRTIO_BLK_SECTOR;
    return sector <= capacity && count <= capacity - sector;
}

int blk_parse(const struct virtq_seg *s, uint32_t n, uint64_t capacity, bool read_only,
              struct blk_req *r)
{
    uint32_t kept = n < BLK_CHAIN_MAX ? n : BLK_CHAIN_MAX;
    uint32_t nread = 0u;                 /* the device-readable buffers come first */
    uint64_t rbytes = 0u, wbytes = 0u;
    (void)memset(r, 0, sizeof(*r));
    while (nread < kept && !s[nread].write) {
        rbytes += s[nread++].len;
    }
    for (uint32_t i = nread; i < kept; i++) {
        if (!s[i].write) {
            return VQ_ERR_DIRECTION;
        }
        wbytes += s[i].len;
    }
    if (!wbytes) {
        return VQ_ERR_DIRECTION;
    }
    /* the status byte: the last device-writable byte */
    r->status = pos_of(s, nread, kept, wbytes - 1u);
    if (n > BLK_CHAIN_MAX || rbytes < VIRTIO_BLK_HDR_SIZE) {
        return answer(r, VIRTIO_BLK_S_IOERR);
    }
    uint8_t hdr[VIRTIO_BLK_HDR_SIZE];
    blk_copy_out(s, (struct blk_pos){ 0, 0 }, hdr, sizeof(hdr));
    (void)memcpy(&r->type, hdr, sizeof(r->type));
    (void)memcpy(&r->sector, hdr + 8, sizeof(r->sector));
    uint64_t len;
    switch (r->type) {
    case VIRTIO_BLK_T_IN:
        len = wbytes - 1u;
        if (rbytes != VIRTIO_BLK_HDR_SIZE) {
            return answer(r, VIRTIO_BLK_S_IOERR);
        }
        r->data = (struct blk_pos){ nread, 0 };
        break;
    case VIRTIO_BLK_T_OUT:
        len = rbytes - VIRTIO_BLK_HDR_SIZE;
        if (wbytes != 1u) {
            return answer(r, VIRTIO_BLK_S_IOERR);
        }
        if (read_only) {      /* 5.2.6.2: a write to an F_RO device is IOERR */
            return answer(r, VIRTIO_BLK_S_IOERR);
        }
        r->data = pos_of(s, 0, nread, VIRTIO_BLK_HDR_SIZE);
        break;
    case VIRTIO_BLK_T_FLUSH:
        if (rbytes != VIRTIO_BLK_HDR_SIZE || wbytes != 1u) {
            return answer(r, VIRTIO_BLK_S_IOERR);
        }
        r->sector = 0u;
        return 1;
    default:
        return answer(r, VIRTIO_BLK_S_UNSUPP);
    }
    if (!len || len > BLK_DATA_MAX || len % VIRTIO_BLK_SECTOR ||
        !in_capacity(r->sector, (uint32_t)len, capacity)) {
        return answer(r, VIRTIO_BLK_S_IOERR);
    }
    r->len = (uint32_t)len;
    return 1;
}

void blk_copy_out(const struct virtq_seg *s, struct blk_pos pos, uint8_t *buf, uint32_t len)
{
    uint32_t done = 0u;
    for (uint32_t i = pos.seg, off = pos.off; done < len; i++, off = 0) {
        uint32_t left = len - done;
        uint32_t k = ((s[i].len - off) < left) ? (s[i].len - off) : left;
        (void)memcpy(&buf[done], &s[i].p[off], k);
        done += k;
    }
}

void blk_copy_in(const struct virtq_seg *s, struct blk_pos pos, const uint8_t *buf,
                 uint32_t len)
{
    uint32_t done = 0u;
    for (uint32_t i = pos.seg, off = pos.off; done < len; i++, off = 0) {
        uint32_t left = len - done;
        uint32_t k = ((s[i].len - off) < left) ? (s[i].len - off) : left;
        (void)memcpy(&s[i].p[off], &buf[done], k);
        done += k;
    }
}
