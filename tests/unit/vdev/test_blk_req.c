/*
 * Host unit tests for the virtio block request parser (hyp/vdev/blk_req.c)
 * and virtq_segments (hyp/vdev/virtq.c): reads, writes and flushes in the
 * layouts drivers use (Linux: header, data buffers, status apart; others
 * merged), and every request the device answers at once: past the
 * capacity, a write to a read-only disk, sizes no whole number of sectors
 * or over BLK_DATA_MAX, too many buffers, parts that do not match the
 * type, unknown types; a chain with nowhere to answer is malformed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "hyp/vdev/blk_req.h"

static uint8_t mem[0x40000];
static struct virtq_seg segs[BLK_CHAIN_MAX + 8];
static uint32_t nsegs, used;

static void reset(void)
{
    memset(mem, 0xee, sizeof(mem));
    nsegs = used = 0;
}

static uint8_t *add(uint32_t len, bool write)
{
    assert_true(used + len <= sizeof(mem));
    uint8_t *p = mem + used;
    segs[nsegs++] = (struct virtq_seg){ p, len, write };
    used += len;
    return p;
}

static void put_hdr(uint8_t *p, uint32_t type, uint64_t sector)
{
    memset(p, 0, VIRTIO_BLK_HDR_SIZE);
    memcpy(p, &type, 4);
    memcpy(p + 8, &sector, 8);
}

/* Linux's layout: header, data buffers, status */
static void linux_req(uint32_t type, uint64_t sector, uint32_t nbufs, uint32_t buflen)
{
    reset();
    put_hdr(add(VIRTIO_BLK_HDR_SIZE, false), type, sector);
    for (uint32_t i = 0; i < nbufs; i++)
        add(buflen, type == VIRTIO_BLK_T_IN);
    add(1, true);
}

static int parse(uint64_t capacity, bool ro, struct blk_req *r)
{
    return blk_parse(segs, nsegs, capacity, ro, r);
}

static void test_read(void **state)
{
    struct blk_req r;
    linux_req(VIRTIO_BLK_T_IN, 7, 2, 4096);
    assert_int_equal(parse(100, true, &r), 1);      /* a read-only disk reads */
    assert_int_equal(r.type, VIRTIO_BLK_T_IN);
    assert_int_equal(r.sector, 7);
    assert_int_equal(r.len, 8192);
    assert_int_equal(r.data.seg, 1);
    assert_int_equal(r.data.off, 0);
    assert_int_equal(r.status.seg, 3);
    assert_int_equal(r.status.off, 0);
    /* the data goes where the driver's buffers are */
    uint8_t buf[8192];
    for (unsigned int i = 0; i < sizeof(buf); i++)
        buf[i] = (uint8_t)i;
    blk_copy_in(segs, r.data, buf, sizeof(buf));
    assert_memory_equal(segs[1].p, buf, 4096);
    assert_memory_equal(segs[2].p, buf + 4096, 4096);
    assert_int_equal(*segs[3].p, 0xee);             /* the status is the caller's */
}

static void test_write(void **state)
{
    struct blk_req r;
    linux_req(VIRTIO_BLK_T_OUT, 0, 1, 512);
    memset(segs[1].p, 0x5a, 512);
    assert_int_equal(parse(1, false, &r), 1);       /* exactly the last sector */
    assert_int_equal(r.type, VIRTIO_BLK_T_OUT);
    assert_int_equal(r.len, 512);
    assert_int_equal(r.data.seg, 1);
    uint8_t buf[512];
    blk_copy_out(segs, r.data, buf, sizeof(buf));
    assert_int_equal(buf[0], 0x5a);
    assert_int_equal(buf[511], 0x5a);
}

/* header and data in one buffer, status and data of a read merged: the
 * device assumes no layout (virtio 1.x 2.6.4) */
static void test_merged_layouts(void **state)
{
    struct blk_req r;
    reset();
    uint8_t *p = add(VIRTIO_BLK_HDR_SIZE + 1024, false);
    put_hdr(p, VIRTIO_BLK_T_OUT, 3);
    p[VIRTIO_BLK_HDR_SIZE] = 0x11;
    add(1, true);
    assert_int_equal(parse(8, false, &r), 1);
    assert_int_equal(r.len, 1024);
    assert_int_equal(r.data.seg, 0);
    assert_int_equal(r.data.off, VIRTIO_BLK_HDR_SIZE);
    uint8_t b;
    blk_copy_out(segs, r.data, &b, 1);
    assert_int_equal(b, 0x11);

    /* the header over two buffers, the read's data and status in one */
    reset();
    uint8_t hdr[VIRTIO_BLK_HDR_SIZE];
    put_hdr(hdr, VIRTIO_BLK_T_IN, 5);
    memcpy(add(5, false), hdr, 5);
    memcpy(add(11, false), hdr + 5, 11);
    add(0, true);                                   /* empty buffers change nothing */
    add(2049, true);
    assert_int_equal(parse(9, false, &r), 1);
    assert_int_equal(r.sector, 5);
    assert_int_equal(r.len, 2048);
    assert_int_equal(r.status.seg, 3);
    assert_int_equal(r.status.off, 2048);
}

static void test_flush(void **state)
{
    struct blk_req r;
    linux_req(VIRTIO_BLK_T_FLUSH, 99, 0, 0);
    assert_int_equal(parse(1, true, &r), 1);
    assert_int_equal(r.type, VIRTIO_BLK_T_FLUSH);
    assert_int_equal(r.len, 0);
    assert_int_equal(r.sector, 0);
    assert_int_equal(r.status.seg, 1);
    /* with data: IOERR */
    linux_req(VIRTIO_BLK_T_FLUSH, 0, 1, 512);
    assert_int_equal(parse(1, false, &r), 0);
    assert_int_equal(r.answer, VIRTIO_BLK_S_IOERR);
}

static void expect_answer(uint64_t capacity, bool ro, uint8_t status)
{
    struct blk_req r;
    assert_int_equal(parse(capacity, ro, &r), 0);
    assert_int_equal(r.answer, status);
    assert_int_equal(r.len, 0);
    /* the answer goes into the last device-writable byte */
    assert_true(segs[r.status.seg].write);
    assert_int_equal(r.status.seg, nsegs - 1);
    assert_int_equal(r.status.off, segs[nsegs - 1].len - 1);
}

static void test_past_capacity(void **state)
{
    linux_req(VIRTIO_BLK_T_IN, 99, 1, 1024);        /* sectors 99, 100 of 100 */
    expect_answer(100, false, VIRTIO_BLK_S_IOERR);
    linux_req(VIRTIO_BLK_T_OUT, 100, 1, 512);
    expect_answer(100, false, VIRTIO_BLK_S_IOERR);
    linux_req(VIRTIO_BLK_T_IN, UINT64_MAX, 1, 512);   /* sector + count wraps */
    expect_answer(100, false, VIRTIO_BLK_S_IOERR);
    linux_req(VIRTIO_BLK_T_IN, UINT64_MAX - 1, 1, 1024);
    expect_answer(UINT64_MAX, false, VIRTIO_BLK_S_IOERR);
    linux_req(VIRTIO_BLK_T_IN, UINT64_MAX - 2, 1, 1024);
    struct blk_req r;
    assert_int_equal(parse(UINT64_MAX, false, &r), 1);
}

static void test_read_only(void **state)
{
    linux_req(VIRTIO_BLK_T_OUT, 0, 1, 512);
    expect_answer(100, true, VIRTIO_BLK_S_IOERR);
}

static void test_bad_sizes(void **state)
{
    linux_req(VIRTIO_BLK_T_IN, 0, 1, 100);          /* no whole sector */
    expect_answer(100, false, VIRTIO_BLK_S_IOERR);
    linux_req(VIRTIO_BLK_T_OUT, 0, 0, 0);           /* no data */
    expect_answer(100, false, VIRTIO_BLK_S_IOERR);
    linux_req(VIRTIO_BLK_T_IN, 0, 1, BLK_DATA_MAX + 512);
    expect_answer(1000, false, VIRTIO_BLK_S_IOERR);
    linux_req(VIRTIO_BLK_T_IN, 0, BLK_SEG_MAX, BLK_SIZE_MAX);  /* the most there may be */
    struct blk_req r;
    assert_int_equal(parse(1000, false, &r), 1);
    assert_int_equal(r.len, BLK_DATA_MAX);
    /* one buffer more than SEG_MAX: only the first and the last are kept */
    linux_req(VIRTIO_BLK_T_IN, 0, BLK_SEG_MAX + 1, 512);
    nsegs = BLK_CHAIN_MAX + 1;                      /* as virtq_segments counts */
    segs[BLK_CHAIN_MAX - 1] = segs[BLK_CHAIN_MAX];
    assert_int_equal(parse(1000, false, &r), 0);
    assert_int_equal(r.answer, VIRTIO_BLK_S_IOERR);
    assert_int_equal(r.status.seg, BLK_CHAIN_MAX - 1);
}

static void test_layout_does_not_match(void **state)
{
    /* a read with data the device would read, a write with more to write */
    reset();
    put_hdr(add(VIRTIO_BLK_HDR_SIZE + 512, false), VIRTIO_BLK_T_IN, 0);
    add(513, true);
    expect_answer(100, false, VIRTIO_BLK_S_IOERR);
    reset();
    put_hdr(add(VIRTIO_BLK_HDR_SIZE + 512, false), VIRTIO_BLK_T_OUT, 0);
    add(2, true);
    expect_answer(100, false, VIRTIO_BLK_S_IOERR);
    /* a short header */
    reset();
    add(15, false);
    add(1, true);
    expect_answer(100, false, VIRTIO_BLK_S_IOERR);
    reset();
    add(1, true);
    expect_answer(100, false, VIRTIO_BLK_S_IOERR);
}

static void test_unknown_types(void **state)
{
    linux_req(VIRTIO_BLK_T_GET_ID, 0, 1, 20);
    segs[1].write = true;
    expect_answer(100, false, VIRTIO_BLK_S_UNSUPP);
    linux_req(0xdeadbeef, 0, 0, 0);
    expect_answer(100, false, VIRTIO_BLK_S_UNSUPP);
}

/* nowhere to answer: the ring is malformed */
static void test_no_status_byte(void **state)
{
    struct blk_req r;
    reset();
    put_hdr(add(VIRTIO_BLK_HDR_SIZE, false), VIRTIO_BLK_T_FLUSH, 0);
    assert_int_equal(parse(1, false, &r), VQ_ERR_DIRECTION);
    add(0, true);
    assert_int_equal(parse(1, false, &r), VQ_ERR_DIRECTION);
    reset();
    put_hdr(add(VIRTIO_BLK_HDR_SIZE, false), VIRTIO_BLK_T_IN, 0);
    add(512, true);
    add(1, false);                                  /* readable after writable */
    assert_int_equal(parse(1, false, &r), VQ_ERR_DIRECTION);
    reset();
    assert_int_equal(parse(1, false, &r), VQ_ERR_DIRECTION);
}

/* ---- virtq_segments over a ring in a fake RAM ---- */

#define RAM_IPA 0x40000000u

static void desc(uint8_t *table, uint16_t i, uint64_t addr, uint32_t len, uint16_t flags,
                 uint16_t next)
{
    uint8_t *d = table + 16u * i;
    memcpy(d, &addr, 8);
    memcpy(d + 8, &len, 4);
    memcpy(d + 12, &flags, 2);
    memcpy(d + 14, &next, 2);
}

static void test_segments(void **state)
{
    memset(mem, 0, sizeof(mem));
    struct gmem m = { RAM_IPA, sizeof(mem), mem };
    struct virtq q = { .num = 8, .desc = RAM_IPA, .avail = RAM_IPA + 0x100,
                       .used = RAM_IPA + 0x200 };
    assert_int_equal(virtq_enable(&q, &m), 0);
    for (uint16_t i = 0; i < 5; i++)
        desc(mem, i, RAM_IPA + 0x1000 + 0x100u * i, 0x10u + i, VIRTQ_DESC_F_NEXT |
             (i >= 3 ? VIRTQ_DESC_F_WRITE : 0), (uint16_t)(i + 1));
    desc(mem, 4, RAM_IPA + 0x1400, 1, VIRTQ_DESC_F_WRITE, 0);
    struct virtq_seg out[3];
    uint32_t n = 0, descs = 0;
    assert_int_equal(virtq_segments(&q, &m, 0, out, 3, &n, &descs), 0);
    assert_int_equal(n, 5);
    assert_int_equal(descs, 5);
    assert_ptr_equal(out[0].p, mem + 0x1000);
    assert_int_equal(out[1].len, 0x11);
    assert_false(out[1].write);
    /* the last kept in the last slot */
    assert_ptr_equal(out[2].p, mem + 0x1400);
    assert_true(out[2].write);
    /* a buffer outside the RAM, a loop */
    desc(mem, 2, RAM_IPA + sizeof(mem) - 4, 8, VIRTQ_DESC_F_NEXT, 3);
    assert_int_equal(virtq_segments(&q, &m, 0, out, 3, &n, &descs), VQ_ERR_BUFFER);
    desc(mem, 2, RAM_IPA + 0x1200, 8, VIRTQ_DESC_F_NEXT, 0);
    assert_int_equal(virtq_segments(&q, &m, 0, out, 3, &n, &descs), VQ_ERR_LOOP);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_read),
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_merged_layouts),
        cmocka_unit_test(test_flush),
        cmocka_unit_test(test_past_capacity),
        cmocka_unit_test(test_read_only),
        cmocka_unit_test(test_bad_sizes),
        cmocka_unit_test(test_layout_does_not_match),
        cmocka_unit_test(test_unknown_types),
        cmocka_unit_test(test_no_status_byte),
        cmocka_unit_test(test_segments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
