/*
 * libFuzzer target for the virtio block request parser
 * (hyp/vdev/blk_req.c): each input is one chain as virtq_segments hands it
 * over - up to BLK_CHAIN_MAX + 4 buffers of any length (each allocated
 * alone, so ASan sees any access past one) and direction, with bytes of
 * the input in them - a capacity and read-only.  Nothing may crash, and
 * what blk_parse promises must hold: a request for the backend is a whole
 * number of sectors, at most BLK_DATA_MAX, inside the capacity, no write
 * to a read-only disk, its data inside the chain's buffers of the right
 * direction (copied whole both ways); an answer goes into the last
 * device-writable byte; a malformed chain is VQ_ERR_DIRECTION alone.
 *
 * Built and run by tests/unit/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/vdev/blk_req.h"
#include "fuzz_input.h"

#define FUZZ_ASSERT(c) do { if (!(c)) { fprintf(stderr, "fuzz_blk: %s\n", #c); abort(); } } \
    while (0)
#define MAX_SEGS (BLK_CHAIN_MAX + 4u)

static uint8_t scratch[BLK_DATA_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    struct virtq_seg segs[MAX_SEGS];
    uint32_t n = take(&in, 1) % (MAX_SEGS + 1);
    uint64_t capacity = take(&in, 4);
    capacity |= (uint64_t)take(&in, 4) << 32;
    bool ro = take(&in, 1) & 1;
    /* the chain as virtq_segments leaves it: at most BLK_CHAIN_MAX kept */
    uint32_t kept = n < BLK_CHAIN_MAX ? n : BLK_CHAIN_MAX;
    for (uint32_t i = 0; i < kept; i++) {
        uint32_t f = take(&in, 3);
        /* mostly small buffers, some up to BLK_DATA_MAX + 1 */
        uint32_t len = f & 0x800000 ? f % (BLK_DATA_MAX + 2) : (f & 0x3ff) ? (f & 0x3ff) : 1;
        if ((f & 0x400000) == 0 && len > 1 && (f & 0x200000))
            len &= ~(VIRTIO_BLK_SECTOR - 1u);     /* whole sectors often */
        segs[i].len = len;
        segs[i].write = (f >> 20) & 1;
        segs[i].p = malloc(len ? len : 1);
        if (!segs[i].p)
            abort();
        uint32_t have = len < in.n ? len : (uint32_t)in.n;
        memcpy(segs[i].p, in.p, have);
        memset(segs[i].p + have, 0, len - have);
        in.p += have;
        in.n -= have;
    }
    struct blk_req r;
    int rc = blk_parse(segs, n, capacity, ro, &r);
    if (rc < 0) {
        FUZZ_ASSERT(rc == VQ_ERR_DIRECTION);
    } else {
        /* the status byte: a device-writable byte, the chain's last */
        FUZZ_ASSERT(r.status.seg < kept && segs[r.status.seg].write &&
                    r.status.off < segs[r.status.seg].len);
        for (uint32_t i = r.status.seg + 1; i < kept; i++)
            FUZZ_ASSERT(segs[i].write && segs[i].len == 0);
        FUZZ_ASSERT(r.status.off == segs[r.status.seg].len - 1);
        segs[r.status.seg].p[r.status.off] = r.answer;
    }
    if (rc == 0)
        FUZZ_ASSERT(r.answer == VIRTIO_BLK_S_IOERR || r.answer == VIRTIO_BLK_S_UNSUPP);
    if (rc == 1) {
        FUZZ_ASSERT(n <= BLK_CHAIN_MAX);
        FUZZ_ASSERT(r.len <= BLK_DATA_MAX && r.len % VIRTIO_BLK_SECTOR == 0);
        FUZZ_ASSERT(r.sector <= capacity &&
                    r.len / VIRTIO_BLK_SECTOR <= capacity - r.sector);
        FUZZ_ASSERT(r.type == VIRTIO_BLK_T_IN || r.type == VIRTIO_BLK_T_OUT ||
                    r.type == VIRTIO_BLK_T_FLUSH);
        FUZZ_ASSERT(!(ro && r.type == VIRTIO_BLK_T_OUT));
        FUZZ_ASSERT(r.type == VIRTIO_BLK_T_FLUSH ? r.len == 0 : r.len > 0);
        if (r.len) {
            FUZZ_ASSERT(r.data.seg < kept);
            FUZZ_ASSERT(segs[r.data.seg].write == (r.type == VIRTIO_BLK_T_IN) ||
                        segs[r.data.seg].len == r.data.off);
            /* the whole data, both ways, inside the buffers (ASan) and
             * never over the status byte */
            uint8_t st = segs[r.status.seg].p[r.status.off];
            if (r.type == VIRTIO_BLK_T_OUT) {
                blk_copy_out(segs, r.data, scratch, r.len);
            } else {
                memset(scratch, 0xa5, r.len);
                blk_copy_in(segs, r.data, scratch, r.len);
                FUZZ_ASSERT(segs[r.status.seg].p[r.status.off] == st);
            }
        }
    }
    for (uint32_t i = 0; i < kept; i++)
        free(segs[i].p);
    return 0;
}
