/*
 * Host unit tests for the virtio console (hyp/vdev/virtio_console.c over
 * virtio_mmio.c and virtq.c): a fake driver sets it up in a fake guest RAM;
 * what it writes reaches the owner's output at the notify, in order; input
 * fills its receive buffers (as much as each takes); a malformed ring puts
 * it into NEEDS_RESET, reported, until a reset.  Then hostile drivers with
 * the most a queue can name (256 entries, 256-descriptor chains, buffers
 * of the whole RAM), rings moved and devices reset while live: one exit
 * never does more than VCON_TX_*_PER_EXIT / VCON_RX_DESCS_PER_CALL.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/vdev/virtio_console.h"

#define RAM_IPA   0x40000000u
#define RAM_SIZE  0x10000u
#define QN        4u
#define RING(q)   (0x1000u + (q) * 0x1000u)
#define BUF(q, i) (0x4000u + (q) * 0x1000u + (i) * 0x100u)

static struct vcon vc;
static uint8_t *ram;
static char out[256];
static unsigned int nout, raised;
/* the big tests: every byte and call counted, the first bytes compared */
static bool counting;
static uint64_t out_bytes, out_calls;
static uint8_t out_first[64];
static void (*during_out)(void);
static char reported[96];
static uint16_t avail[2], used_seen;

static void on_out(void *ctx, const uint8_t *p, uint32_t len)
{
    if (counting) {
        for (uint32_t i = 0; i < len && out_bytes + i < sizeof(out_first); i++)
            out_first[out_bytes + i] = p[i];
        out_bytes += len;
        out_calls++;
        if (during_out)
            during_out();
        return;
    }
    assert_true(nout + len < sizeof(out));
    memcpy(out + nout, p, len);
    nout += len;
}
static void on_raise(void *ctx) { raised++; }
static void on_report(void *ctx, const char *why) { strncpy(reported, why, sizeof(reported) - 1); }
static const struct vcon_ops ops = { on_out, on_raise, on_report };

static uint32_t rd(uint32_t off)
{
    struct mmio_access a = { .size = 4 };
    assert_true(vcon_mmio(&vc, &a, off));
    return a.value;
}

static void wr(uint32_t off, uint32_t v)
{
    struct mmio_access a = { .size = 4, .write = true, .value = v };
    assert_true(vcon_mmio(&vc, &a, off));
}

/* descriptor d of queue q: its own buffer, len bytes, flags; made available */
static void give(unsigned int q, unsigned int d, uint32_t len, uint16_t flags)
{
    uint8_t *e = ram + RING(q) + d * 16;
    uint64_t addr = RAM_IPA + BUF(q, d);
    memcpy(e, &addr, 8);
    memcpy(e + 8, &len, 4);
    memcpy(e + 12, &flags, 2);
    memset(e + 14, 0, 2);
    uint16_t slot = avail[q] % QN, head = (uint16_t)d, idx = ++avail[q];
    memcpy(ram + RING(q) + 0x100 + 4 + 2 * slot, &head, 2);
    memcpy(ram + RING(q) + 0x100 + 2, &idx, 2);
}

/* A console device over size bytes of fresh host memory, nothing seen yet */
static void attach_ram(uint32_t size)
{
    ram = calloc(1, size);
    vcon_init(&vc, &ops, NULL);
    vcon_attach(&vc, (struct gmem){ RAM_IPA, size, ram });
    nout = raised = 0;
    reported[0] = 0;
}

/* The driver's set-up (virtio 1.x 3.1.1) from a reset: both queues of n
 * entries, queue q's rings at the offsets desc[q], drv[q] and dev[q] of
 * its RAM; live only once DRIVER_OK is written */
static void driver_init(uint32_t n, const uint32_t desc[2], const uint32_t drv[2],
                        const uint32_t dev[2])
{
    wr(VMMIO_STATUS, 0);
    assert_int_equal(rd(VMMIO_DEVICE_ID), VIRTIO_ID_CONSOLE);
    wr(VMMIO_STATUS, 3);
    wr(VMMIO_DRIVER_FEATURES_SEL, 1);
    wr(VMMIO_DRIVER_FEATURES, 1);
    wr(VMMIO_STATUS, 0xb);
    for (unsigned int q = 0; q < 2; q++) {
        wr(VMMIO_QUEUE_SEL, q);
        assert_int_equal(rd(VMMIO_QUEUE_NUM_MAX), VIRTQ_NUM_MAX);
        wr(VMMIO_QUEUE_NUM, n);
        wr(VMMIO_QUEUE_DESC_LOW, RAM_IPA + desc[q]);
        wr(VMMIO_QUEUE_DRIVER_LOW, RAM_IPA + drv[q]);
        wr(VMMIO_QUEUE_DEVICE_LOW, RAM_IPA + dev[q]);
        wr(VMMIO_QUEUE_READY, 1);
    }
    assert_false(vcon_live(&vc));           /* not before DRIVER_OK */
    wr(VMMIO_STATUS, 0xf);
    assert_true(vcon_live(&vc));
}

static int setup(void **state)
{
    attach_ram(RAM_SIZE);
    avail[0] = avail[1] = used_seen = 0;
    static const uint32_t desc[2] = { RING(0), RING(1) };
    static const uint32_t drv[2] = { RING(0) + 0x100, RING(1) + 0x100 };
    static const uint32_t dev[2] = { RING(0) + 0x200, RING(1) + 0x200 };
    driver_init(QN, desc, drv, dev);
    return 0;
}

static int teardown(void **state)
{
    free(ram);
    counting = false;
    during_out = NULL;
    return 0;
}

static void test_output_at_the_notify(void **state)
{
    memcpy(ram + BUF(1, 0), "hello ", 6);
    memcpy(ram + BUF(1, 1), "hvc0\n", 5);
    give(1, 0, 6, 0);
    give(1, 1, 5, 0);
    wr(VMMIO_QUEUE_NOTIFY, 1);
    out[nout] = 0;
    assert_string_equal(out, "hello hvc0\n");
    uint16_t used;
    memcpy(&used, ram + RING(1) + 0x202, 2);
    assert_int_equal(used, 2);              /* both handed back before the exit ends */
    assert_int_equal(raised, 1);
    assert_int_equal(vc.written, 11);
}

static void test_input_fills_receive_buffers(void **state)
{
    assert_int_equal(vcon_input(&vc, (const uint8_t *)"abc", 3), 0);     /* no buffer yet */
    give(0, 0, 4, VIRTQ_DESC_F_WRITE);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_true(vcon_rx_notified(&vc));
    assert_false(vcon_rx_notified(&vc));
    assert_int_equal(vcon_input(&vc, (const uint8_t *)"abcdef", 6), 4);  /* what it takes */
    assert_memory_equal(ram + BUF(0, 0), "abcd", 4);
    uint32_t len;
    memcpy(&len, ram + RING(0) + 0x200 + 8, 4);
    assert_int_equal(len, 4);
    assert_int_equal(raised, 1);
    assert_int_equal(vcon_input(&vc, (const uint8_t *)"ef", 2), 0);
}

static void test_malformed_rings(void **state)
{
    give(1, 0, 0x20000, 0);                 /* past its RAM */
    wr(VMMIO_QUEUE_NOTIFY, 1);
    assert_true(rd(VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
    assert_true(rd(VMMIO_INTERRUPT_STATUS) & VMMIO_INT_CONFIG);
    assert_non_null(strstr(reported, "outside the guest's RAM"));
    assert_int_equal(nout, 0);
    assert_false(vcon_live(&vc));
    assert_int_equal(vcon_input(&vc, (const uint8_t *)"x", 1), 0);
    /* a readable receive buffer: the wrong direction */
    free(ram);
    setup(state);
    give(0, 0, 4, 0);
    assert_int_equal(vcon_input(&vc, (const uint8_t *)"x", 1), 0);
    assert_non_null(strstr(reported, "wrong direction"));
    assert_int_equal(vc.errors, 1);
}

static void test_detached_takes_nothing(void **state)
{
    give(0, 0, 4, VIRTQ_DESC_F_WRITE);
    vcon_detach(&vc);
    assert_false(vcon_live(&vc));
    assert_int_equal(vcon_input(&vc, (const uint8_t *)"x", 1), 0);
    assert_int_equal(ram[BUF(0, 0)], 0);
}

/* ---- hostile drivers: the most a queue can name ---- */

#define BIG_RAM      0x100000u       /* 1 MiB */
#define BQ           VIRTQ_NUM_MAX
#define BDESC(q)     (0x10000u + (q) * 0x4000u)
#define BAVAIL(q)    (BDESC(q) + 0x1000u)
#define BUSED(q)     (BDESC(q) + 0x2000u)

static void put_desc(unsigned int q, unsigned int i, uint64_t addr, uint32_t len, uint16_t flags,
                     uint16_t next)
{
    uint8_t *e = ram + BDESC(q) + i * 16;
    memcpy(e, &addr, 8);
    memcpy(e + 8, &len, 4);
    memcpy(e + 12, &flags, 2);
    memcpy(e + 14, &next, 2);
}

static void put16(uint32_t off, uint16_t v) { memcpy(ram + off, &v, 2); }
static uint16_t get16(uint32_t off) { uint16_t v; memcpy(&v, ram + off, 2); return v; }
static uint32_t get32(uint32_t off) { uint32_t v; memcpy(&v, ram + off, 4); return v; }

/* queues of n entries at BDESC/BAVAIL/BUSED, DRIVER_OK */
static void big_driver(uint32_t n)
{
    memset(ram + BDESC(0), 0, BDESC(2) - BDESC(0));     /* its rings start empty */
    static const uint32_t desc[2] = { BDESC(0), BDESC(1) };
    static const uint32_t drv[2] = { BAVAIL(0), BAVAIL(1) };
    static const uint32_t dev[2] = { BUSED(0), BUSED(1) };
    driver_init(n, desc, drv, dev);
}

/* every one of the n avail entries of queue q names head; avail idx = idx */
static void avail_all(unsigned int q, uint32_t n, uint16_t head, uint16_t idx)
{
    for (unsigned int i = 0; i < n; i++)
        put16(BAVAIL(q) + 4 + 2 * i, head);
    put16(BAVAIL(q) + 2, idx);
}

static int setup_big(void **state)
{
    attach_ram(BIG_RAM);
    for (uint32_t i = 0; i < BIG_RAM; i++)
        ram[i] = (uint8_t)(i * 7 + (i >> 8));
    counting = true;
    out_bytes = out_calls = 0;
    during_out = NULL;
    big_driver(BQ);
    return 0;
}

static void notify_tx(void)
{
    out_bytes = out_calls = 0;
    wr(VMMIO_QUEUE_NOTIFY, VCON_QUEUE_TX);
}

/* The flood of a hostile driver: every avail entry the same chain of 256
 * descriptors, each the whole RAM (64 GiB a chain).  One notify once ran
 * for hours; now it hands over VCON_TX_BYTES_PER_EXIT bytes and returns,
 * and the next goes on where it stopped. */
static void test_flood_bounded_per_exit(void **state)
{
    for (unsigned int i = 0; i < BQ; i++)
        put_desc(VCON_QUEUE_TX, i, RAM_IPA, BIG_RAM, VIRTQ_DESC_F_NEXT, (uint16_t)((i + 1) % BQ));
    put_desc(VCON_QUEUE_TX, BQ - 1, RAM_IPA, BIG_RAM, 0, 0);
    avail_all(VCON_QUEUE_TX, BQ, 0, BQ);
    for (unsigned int k = 0; k < 4; k++) {
        notify_tx();
        assert_int_equal(out_bytes, VCON_TX_BYTES_PER_EXIT);
        assert_true(out_calls <= VCON_TX_DESCS_PER_EXIT);
        /* the bytes go on from where the last exit stopped */
        assert_memory_equal(out_first, ram + k * VCON_TX_BYTES_PER_EXIT, sizeof(out_first));
    }
    assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), 0);     /* nothing finished */
    assert_int_equal(vc.written, 4 * VCON_TX_BYTES_PER_EXIT);
    assert_true(vcon_live(&vc));
    /* a reset drops the unfinished chain: nothing of it comes back */
    wr(VMMIO_STATUS, 0);
    big_driver(BQ);
    notify_tx();
    assert_int_equal(out_bytes, 0);
    assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), 0);
}

/* 256 descriptors of one byte a chain, the queue full of such chains: one
 * exit visits VCON_TX_DESCS_PER_EXIT of them, a whole chain's worth */
static void test_descriptor_bound(void **state)
{
    for (unsigned int i = 0; i < BQ; i++)
        put_desc(VCON_QUEUE_TX, i, RAM_IPA + i, 1, i + 1 < BQ ? VIRTQ_DESC_F_NEXT : 0,
                 (uint16_t)(i + 1));
    avail_all(VCON_QUEUE_TX, BQ, 0, BQ);
    unsigned int raised0 = raised;
    for (unsigned int k = 1; k <= 3; k++) {
        notify_tx();
        assert_int_equal(out_calls, VCON_TX_DESCS_PER_EXIT);
        assert_int_equal(out_bytes, VCON_TX_DESCS_PER_EXIT);
        assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), k);  /* a chain each */
        assert_int_equal(get32(BUSED(VCON_QUEUE_TX) + 4 + 8 * (k - 1)), 0);   /* its head */
    }
    assert_int_equal(raised, raised0 + 3);
    /* zero-length descriptors cost descriptors all the same */
    for (unsigned int i = 0; i < BQ; i++)
        put_desc(VCON_QUEUE_TX, i, RAM_IPA, 0, i + 1 < BQ ? VIRTQ_DESC_F_NEXT : 0,
                 (uint16_t)(i + 1));
    notify_tx();
    assert_int_equal(out_bytes, 0);
    assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), 4);
}

/* A chain longer than an exit's bytes, in three descriptors: it ends in
 * the second exit, its bytes in order, and only then is it used */
static void test_partial_chain_resumes(void **state)
{
    const uint32_t part = 5000;
    for (unsigned int i = 0; i < 3; i++)
        put_desc(VCON_QUEUE_TX, 10 + i, RAM_IPA + 0x40000 + i * part, part,
                 i < 2 ? VIRTQ_DESC_F_NEXT : 0, (uint16_t)(11 + i));
    avail_all(VCON_QUEUE_TX, 1, 10, 1);
    unsigned int raised0 = raised;
    notify_tx();
    assert_int_equal(out_bytes, VCON_TX_BYTES_PER_EXIT);
    assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), 0);
    assert_int_equal(raised, raised0);
    notify_tx();
    assert_int_equal(out_bytes, 3 * part - VCON_TX_BYTES_PER_EXIT);
    assert_memory_equal(out_first, ram + 0x40000 + VCON_TX_BYTES_PER_EXIT, sizeof(out_first));
    assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), 1);
    assert_int_equal(get32(BUSED(VCON_QUEUE_TX) + 4), 10);
    assert_int_equal(raised, raised0 + 1);
    assert_int_equal(vc.written, 3 * part);
    /* a descriptor the driver shortened meanwhile is taken as it is now */
    put_desc(VCON_QUEUE_TX, 20, RAM_IPA, VCON_TX_BYTES_PER_EXIT + 10, VIRTQ_DESC_F_NEXT, 21);
    put_desc(VCON_QUEUE_TX, 21, RAM_IPA, 3, 0, 0);
    put16(BAVAIL(VCON_QUEUE_TX) + 4 + 2, 20);
    put16(BAVAIL(VCON_QUEUE_TX) + 2, 2);
    notify_tx();
    assert_int_equal(out_bytes, VCON_TX_BYTES_PER_EXIT);
    put_desc(VCON_QUEUE_TX, 20, RAM_IPA, 1, VIRTQ_DESC_F_NEXT, 21);
    notify_tx();
    assert_int_equal(out_bytes, 3);
    assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), 2);
}

/* A chain that loops is caught though it is walked over several exits */
static void test_loop_across_exits(void **state)
{
    put_desc(VCON_QUEUE_TX, 0, RAM_IPA, BIG_RAM, VIRTQ_DESC_F_NEXT, 1);
    put_desc(VCON_QUEUE_TX, 1, RAM_IPA, 1, VIRTQ_DESC_F_NEXT, 0);
    avail_all(VCON_QUEUE_TX, 1, 0, 1);
    /* each lap: BIG_RAM / BYTES_PER_EXIT exits in descriptor 0, one more */
    for (unsigned int i = 0; i < 2 * BQ * (BIG_RAM / VCON_TX_BYTES_PER_EXIT + 1) &&
                         !(rd(VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET); i++) {
        notify_tx();
        assert_true(out_bytes <= VCON_TX_BYTES_PER_EXIT);
    }
    assert_true(rd(VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
    assert_non_null(strstr(reported, "loops"));
    assert_int_equal(vc.written, (uint64_t)(BQ / 2) * (BIG_RAM + 1));
}

/* The rings' addresses written while the queue is live are ignored
 * (4.2.2.3); QueueReady = 0 and a new set-up drop the unfinished chain */
static void test_rings_moved_while_live(void **state)
{
    put_desc(VCON_QUEUE_TX, 0, RAM_IPA, BIG_RAM, 0, 0);
    avail_all(VCON_QUEUE_TX, 1, 0, 1);
    notify_tx();
    assert_int_equal(out_bytes, VCON_TX_BYTES_PER_EXIT);
    wr(VMMIO_QUEUE_SEL, VCON_QUEUE_TX);
    wr(VMMIO_QUEUE_DESC_LOW, RAM_IPA + 0x80000);        /* ignored: it is ready */
    wr(VMMIO_QUEUE_NUM, 2);
    notify_tx();
    assert_memory_equal(out_first, ram + VCON_TX_BYTES_PER_EXIT, sizeof(out_first));
    /* off, moved, on again: a new queue, from its own avail idx 0 */
    wr(VMMIO_QUEUE_READY, 0);
    notify_tx();
    assert_int_equal(out_bytes, 0);
    wr(VMMIO_QUEUE_DESC_LOW, RAM_IPA + 0x80000);
    wr(VMMIO_QUEUE_DRIVER_LOW, RAM_IPA + 0x81000);
    wr(VMMIO_QUEUE_DEVICE_LOW, RAM_IPA + 0x82000);
    memset(ram + 0x80000, 0, 0x3000);
    wr(VMMIO_QUEUE_READY, 1);
    uint64_t d = RAM_IPA + 0x90000;
    uint32_t len = 5;
    memcpy(ram + 0x80000, &d, 8);
    memcpy(ram + 0x80008, &len, 4);
    put16(0x81002, 1);
    notify_tx();
    assert_int_equal(out_bytes, 5);
    assert_memory_equal(out_first, ram + 0x90000, 5);
    assert_int_equal(get16(0x82002), 1);
    assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), 0);    /* the old ring: nothing */
}

/* Another vCPU resets the device while this one hands output over: what
 * was walked is not written back, the old chain never comes back used */
static void reset_now(void)
{
    if (out_calls == 3)
        wr(VMMIO_STATUS, 0);
}

static void eight_byte_chain(void)
{
    for (unsigned int i = 0; i < 8; i++)
        put_desc(VCON_QUEUE_TX, i, RAM_IPA + i, 1, i < 7 ? VIRTQ_DESC_F_NEXT : 0,
                 (uint16_t)(i + 1));
}

static void test_reset_mid_walk(void **state)
{
    eight_byte_chain();
    avail_all(VCON_QUEUE_TX, 4, 0, 4);
    during_out = reset_now;
    notify_tx();
    during_out = NULL;
    assert_true(out_calls <= 8);
    assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), 0);
    assert_false(vcon_live(&vc));
    big_driver(BQ);
    notify_tx();
    assert_int_equal(out_bytes, 0);                     /* new, empty rings */
    eight_byte_chain();
    avail_all(VCON_QUEUE_TX, 4, 0, 4);
    notify_tx();
    assert_int_equal(out_bytes, 4 * 8);
    assert_int_equal(get16(BUSED(VCON_QUEUE_TX) + 2), 4);
}

/* Maximal and random sizes, indices and lengths: each exit within bounds,
 * the device alive or in NEEDS_RESET, never past its RAM (ASan) */
static void test_random_tx_bounded(void **state)
{
    srand(27);
    for (unsigned int round = 0; round < 200; round++) {
        uint32_t n = 1u << (rand() % 9);
        if (rd(VMMIO_STATUS) != 0xf || rand() % 8 == 0)
            big_driver(n);
        for (unsigned int i = 0; i < 16; i++) {
            uint32_t len = rand() % 4 ? (uint32_t)rand() % (BIG_RAM + 1) : BIG_RAM;
            uint64_t addr = RAM_IPA + (rand() % 2 ? 0 : (uint32_t)rand() % BIG_RAM);
            if (addr - RAM_IPA + len > BIG_RAM && rand() % 4)
                len = BIG_RAM - (uint32_t)(addr - RAM_IPA);
            put_desc(VCON_QUEUE_TX, rand() % n, addr, len,
                     rand() % 4 ? VIRTQ_DESC_F_NEXT : (uint16_t)rand(), (uint16_t)(rand() % n));
            put16(BAVAIL(VCON_QUEUE_TX) + 4 + 2 * (rand() % n), (uint16_t)(rand() % (n + 1)));
        }
        put16(BAVAIL(VCON_QUEUE_TX) + 2,
              (uint16_t)(get16(BUSED(VCON_QUEUE_TX) + 2) + rand() % (n + 2)));
        notify_tx();
        assert_true(out_bytes <= VCON_TX_BYTES_PER_EXIT);
        assert_true(out_calls <= VCON_TX_DESCS_PER_EXIT);
    }
}

/* A receive buffer of no length is handed back empty, never left at the
 * head: the input goes into the next (it once stopped all input) */
static void test_input_zero_length_buffer(void **state)
{
    put_desc(VCON_QUEUE_RX, 0, RAM_IPA + 0x50000, 0, VIRTQ_DESC_F_WRITE, 0);
    put_desc(VCON_QUEUE_RX, 1, RAM_IPA + 0x50100, 8, VIRTQ_DESC_F_WRITE, 0);
    put16(BAVAIL(VCON_QUEUE_RX) + 4, 0);
    put16(BAVAIL(VCON_QUEUE_RX) + 6, 1);
    put16(BAVAIL(VCON_QUEUE_RX) + 2, 2);
    assert_int_equal(vcon_input(&vc, (const uint8_t *)"ab", 2), 2);
    assert_memory_equal(ram + 0x50100, "ab", 2);
    assert_int_equal(get16(BUSED(VCON_QUEUE_RX) + 2), 2);
    assert_int_equal(get32(BUSED(VCON_QUEUE_RX) + 8), 0);        /* len 0 */
    assert_int_equal(get32(BUSED(VCON_QUEUE_RX) + 16), 2);
    assert_int_equal(vc.received, 2);
    assert_true(vcon_live(&vc));
}

/* Input into a full queue of maximal chains: one call visits at most
 * VCON_RX_DESCS_PER_CALL descriptors and writes only the bytes given,
 * however long the buffers */
static void test_input_bounded(void **state)
{
    for (unsigned int i = 0; i < BQ; i++)
        put_desc(VCON_QUEUE_RX, i, RAM_IPA, 0, VIRTQ_DESC_F_WRITE | (i + 1 < BQ ? VIRTQ_DESC_F_NEXT : 0),
                 (uint16_t)(i + 1));
    avail_all(VCON_QUEUE_RX, BQ, 0, BQ);
    assert_int_equal(vcon_input(&vc, (const uint8_t *)"xyz", 3), 0);
    assert_int_equal(get16(BUSED(VCON_QUEUE_RX) + 2), 1);      /* one chain, 256 visits */
    /* now each descriptor the whole RAM: 3 bytes written, no more */
    uint8_t before[16];
    memcpy(before, ram + 3, sizeof(before));
    for (unsigned int i = 0; i < BQ; i++)
        put_desc(VCON_QUEUE_RX, i, RAM_IPA, BIG_RAM,
                 VIRTQ_DESC_F_WRITE | (i + 1 < BQ ? VIRTQ_DESC_F_NEXT : 0), (uint16_t)(i + 1));
    assert_int_equal(vcon_input(&vc, (const uint8_t *)"xyz", 3), 3);
    assert_memory_equal(ram, "xyz", 3);
    assert_memory_equal(ram + 3, before, sizeof(before));
    assert_int_equal(get16(BUSED(VCON_QUEUE_RX) + 2), 2);
    assert_int_equal(get32(BUSED(VCON_QUEUE_RX) + 4 + 8 + 4), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_output_at_the_notify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_input_fills_receive_buffers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_rings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_detached_takes_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flood_bounded_per_exit, setup_big, teardown),
        cmocka_unit_test_setup_teardown(test_descriptor_bound, setup_big, teardown),
        cmocka_unit_test_setup_teardown(test_partial_chain_resumes, setup_big, teardown),
        cmocka_unit_test_setup_teardown(test_loop_across_exits, setup_big, teardown),
        cmocka_unit_test_setup_teardown(test_rings_moved_while_live, setup_big, teardown),
        cmocka_unit_test_setup_teardown(test_reset_mid_walk, setup_big, teardown),
        cmocka_unit_test_setup_teardown(test_random_tx_bounded, setup_big, teardown),
        cmocka_unit_test_setup_teardown(test_input_zero_length_buffer, setup_big, teardown),
        cmocka_unit_test_setup_teardown(test_input_bounded, setup_big, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
