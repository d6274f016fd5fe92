/*
 * libFuzzer target for a disk's two sides (hyp/vdev/virtio_blk.c and
 * blk_backend.c over blk_req.c, virtio_mmio.c and virtq.c): two frontend
 * devices, each over a small RAM of exactly its size, and a backend over a
 * queue of exactly its size (so ASan sees any access past one).  Each
 * input is a program of actions: a frontend's quick correct set-up,
 * requests of random descriptors (anywhere, any length, flags and chain),
 * headers and sectors made available and notified, register writes,
 * resets, detach and attach; the driver partition's answers - any state,
 * tag, length and status written into any slot - and PARTITA_HC_BLK_DONE,
 * its stop and its next life.  Nothing may crash or touch memory outside
 * the RAMs and the queue; the backend never holds more than its slots,
 * nor waits on more than every frontend's table; a device never has more
 * requests in flight than its table.
 *
 * Built and run by tests/unit/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/vdev/blk_backend.h"
#include "fuzz_input.h"

#define FUZZ_ASSERT(c) do { if (!(c)) { fprintf(stderr, "fuzz_blkq: %s\n", #c); abort(); } } \
    while (0)
#define RAM_IPA  0x40000000u
#define RAM_SIZE 0x10000u
#define QN       16u
#define DESC     0x1000u
#define AVAIL    0x1200u
#define USED     0x1400u
#define NFE      2u
#define QSIZE    (PARTITA_BLKQ_DATA_OFF + 2u * PARTITA_BLKQ_DATA_SIZE)

static struct blk_backend be;
static struct vblk fe[NFE];
static unsigned int fe_index[NFE] = { 0, 1 };
static uint8_t *ram[NFE], *queue;
static bool attached;

static void fe_submit(void *ctx, struct vblk *b, uint32_t tag)
{
    blk_backend_submit(&be, *(unsigned int *)ctx, tag);
}
static void fe_dropped(void *ctx, struct vblk *b)
{
    blk_backend_dropped(&be, *(unsigned int *)ctx);
}
static void nothing(void *ctx) { }
static void report(void *ctx, const char *why) { }
static const struct vblk_ops fe_ops = { fe_submit, fe_dropped, nothing, report };
static const struct blk_backend_ops be_ops = { nothing, report };

static uint32_t reg(unsigned int f, uint32_t off, bool write, uint32_t v)
{
    struct mmio_access a = { .size = 4, .write = write, .value = v };
    vblk_mmio(&fe[f], &a, off);
    return a.value;
}

static void set_up(unsigned int f)
{
    reg(f, VMMIO_STATUS, true, 0);
    reg(f, VMMIO_STATUS, true, 3);
    reg(f, VMMIO_DRIVER_FEATURES_SEL, true, 1);
    reg(f, VMMIO_DRIVER_FEATURES, true, 1);
    reg(f, VMMIO_STATUS, true, 0xb);
    reg(f, VMMIO_QUEUE_SEL, true, 0);
    reg(f, VMMIO_QUEUE_NUM, true, QN);
    reg(f, VMMIO_QUEUE_DESC_LOW, true, RAM_IPA + DESC);
    reg(f, VMMIO_QUEUE_DRIVER_LOW, true, RAM_IPA + AVAIL);
    reg(f, VMMIO_QUEUE_DEVICE_LOW, true, RAM_IPA + USED);
    reg(f, VMMIO_QUEUE_READY, true, 1);
    reg(f, VMMIO_STATUS, true, 0xf);
}

/* a request of up to 4 random descriptors at head d, made available */
static void request(unsigned int f, struct input *in)
{
    uint8_t *r = ram[f];
    uint16_t d = (uint16_t)(take(in, 1) % QN), n = (uint16_t)(1 + take(in, 1) % 4);
    for (uint16_t k = 0; k < n; k++) {
        uint16_t i = (uint16_t)((d + k) % QN);
        uint64_t addr = RAM_IPA + 0x2000 + (take(in, 2) % 0xe000);
        if (take(in, 1) == 0xff)
            addr = take(in, 4);
        uint32_t len = take(in, 2);
        uint16_t flags = (uint16_t)((k + 1 < n ? 1 : 0) | (take(in, 1) & 6));
        uint16_t next = (uint16_t)((i + 1) % QN);
        memcpy(r + DESC + 16u * i, &addr, 8);
        memcpy(r + DESC + 16u * i + 8, &len, 4);
        memcpy(r + DESC + 16u * i + 12, &flags, 2);
        memcpy(r + DESC + 16u * i + 14, &next, 2);
        /* a header where the first buffer is, if it is in the RAM */
        if (k == 0 && addr >= RAM_IPA + 0x2000 && addr + 16 <= RAM_IPA + RAM_SIZE) {
            uint32_t type = take(in, 1) % 5;
            uint64_t sector = take(in, 2);
            memcpy(r + (addr - RAM_IPA), &type, 4);
            memcpy(r + (addr - RAM_IPA) + 8, &sector, 8);
        }
    }
    uint16_t idx;
    memcpy(&idx, r + AVAIL + 2, 2);
    memcpy(r + AVAIL + 4 + 2 * (idx % QN), &d, 2);
    idx = (uint16_t)(idx + (take(in, 1) == 0xff ? take(in, 1) : 1));
    memcpy(r + AVAIL + 2, &idx, 2);
}

static void check_state(void)
{
    unsigned int busy = 0;
    for (unsigned int i = 0; i < PARTITA_BLKQ_SLOTS_MAX; i++)
        busy += be.own[i].busy;
    FUZZ_ASSERT(busy <= be.nslots || !attached);
    FUZZ_ASSERT(be.npend <= BLKQ_PENDING_MAX);
    FUZZ_ASSERT(be.st.bad_answers <= be.st.answers);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    blk_backend_init(&be, &be_ops, NULL);
    queue = calloc(1, QSIZE);
    attached = false;
    for (unsigned int f = 0; f < NFE; f++) {
        ram[f] = calloc(1, RAM_SIZE);
        vblk_init(&fe[f], &fe_ops, &fe_index[f], 256, f == 1);
        struct partita_blkq_frontend info = { 256, f == 1, f, "x" };
        blk_backend_add(&be, &fe[f], &info);
        vblk_attach(&fe[f], (struct gmem){ RAM_IPA, RAM_SIZE, ram[f] });
    }
    for (unsigned int steps = 0; in.n && steps < 256; steps++) {
        unsigned int op = take(&in, 1), f = op >> 7;
        switch (op % 10) {
        case 0: set_up(f); break;
        case 1: case 2: request(f, &in); reg(f, VMMIO_QUEUE_NOTIFY, true, 0); break;
        case 3: reg(f, take(&in, 1) * 4u, true, take(&in, 4)); break;
        case 4: vblk_detach(&fe[f]); break;
        case 5: vblk_attach(&fe[f], (struct gmem){ RAM_IPA, RAM_SIZE, ram[f] }); break;
        case 6: {           /* the driver writes anything into a slot */
            unsigned int i = take(&in, 1) % 2;
            struct partita_blkq_slot *s = (struct partita_blkq_slot *)(queue +
                                          PARTITA_BLKQ_SLOTS_OFF) + i;
            unsigned int what = take(&in, 1);
            if (what & 1) s->tag = take(&in, 4);
            if (what & 2) s->len = take(&in, 4);
            if (what & 4) s->status = take(&in, 1);
            s->state = what & 8 ? take(&in, 4) : PARTITA_BLKQ_DONE;
            break;
        }
        case 7: blk_backend_done(&be); break;
        case 8:
            if (attached)
                blk_backend_detach(&be);
            else
                blk_backend_attach(&be, queue, QSIZE);
            attached = !attached;
            break;
        default: reg(f, VMMIO_INTERRUPT_STATUS, false, 0); break;
        }
        check_state();
    }
    for (unsigned int f = 0; f < NFE; f++) {
        vblk_detach(&fe[f]);
        free(ram[f]);
    }
    blk_backend_detach(&be);
    free(queue);
    return 0;
}
