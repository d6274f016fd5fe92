/*
 * Host unit tests for the virtio block device (hyp/vdev/virtio_blk.c over
 * blk_req.c, virtio_mmio.c and virtq.c): a fake driver sets it up in a
 * fake guest RAM and a fake backend keeps what it is given.  The features
 * and configuration space a driver reads; reads and writes through the
 * backend by tag; requests refused at once (past the capacity, a write to
 * a read-only disk); completions that match nothing or have the wrong
 * length or status (that request alone fails); a reset or detach drops
 * what is in flight and a late completion touches nothing; a full table
 * leaves requests queued until completions free slots; one exit takes at
 * most VBLK_REQS_PER_EXIT requests; a malformed chain stops the device.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/vdev/virtio_blk.h"
#include "vblk_driver.h"

static uint32_t tags[256], ntags, raised, ndropped;
static char reported[96];

static void on_submit(void *ctx, struct vblk *b, uint32_t tag)
{
    assert_ptr_equal(b, &vb);
    assert_true(ntags < 256);
    tags[ntags++] = tag;
}
static void on_dropped(void *ctx, struct vblk *b) { ndropped++; }
static void on_raise(void *ctx) { raised++; }
static void on_report(void *ctx, const char *why) { strncpy(reported, why, sizeof(reported) - 1); }
static const struct vblk_ops ops = { on_submit, on_dropped, on_raise, on_report };

static void start(bool ro)
{
    vblk_init(&vb, &ops, NULL, CAPACITY, ro);
    vblk_attach(&vb, (struct gmem){ RAM_IPA, RAM_SIZE, ram });
    ntags = raised = ndropped = 0;
    reported[0] = 0;
    driver_setup();
}

static int setup(void **state)
{
    ram = calloc(1, RAM_SIZE);
    start(false);
    return 0;
}

static int teardown(void **state)
{
    free(ram);
    return 0;
}

static void test_features_and_config(void **state)
{
    assert_int_equal(rd(VMMIO_DEVICE_ID), VIRTIO_ID_BLOCK);
    wr(VMMIO_DEVICE_FEATURES_SEL, 0);
    uint32_t lo = rd(VMMIO_DEVICE_FEATURES);
    assert_int_equal(lo, (uint32_t)(VIRTIO_BLK_F_SIZE_MAX | VIRTIO_BLK_F_SEG_MAX |
                                    VIRTIO_BLK_F_FLUSH));
    wr(VMMIO_DEVICE_FEATURES_SEL, 1);
    assert_int_equal(rd(VMMIO_DEVICE_FEATURES), 1);          /* VERSION_1 */
    assert_int_equal(rd(VMMIO_CONFIG + VBLK_CONFIG_CAPACITY), CAPACITY);
    assert_int_equal(rd(VMMIO_CONFIG + VBLK_CONFIG_CAPACITY + 4), 0);
    assert_int_equal(rd(VMMIO_CONFIG + VBLK_CONFIG_SIZE_MAX), BLK_SIZE_MAX);
    assert_int_equal(rd(VMMIO_CONFIG + VBLK_CONFIG_SEG_MAX), BLK_SEG_MAX);
    start(true);
    wr(VMMIO_DEVICE_FEATURES_SEL, 0);
    assert_true(rd(VMMIO_DEVICE_FEATURES) & VIRTIO_BLK_F_RO);
}

static void test_read_and_write_by_tag(void **state)
{
    request(0, VIRTIO_BLK_T_OUT, 2, 1024);
    memset(ram + DATA(0), 0x77, 1024);
    request(1, VIRTIO_BLK_T_IN, 4, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(ntags, 2);
    assert_int_equal(used_idx(), 0);                        /* nothing done yet */
    struct blk_req r;
    assert_true(vblk_request(&vb, tags[0], &r));
    assert_int_equal(r.type, VIRTIO_BLK_T_OUT);
    assert_int_equal(r.sector, 2);
    assert_int_equal(r.len, 1024);
    uint8_t buf[1024];
    assert_true(vblk_write_data(&vb, tags[0], buf));
    assert_int_equal(buf[0], 0x77);
    assert_int_equal(buf[1023], 0x77);
    assert_false(vblk_write_data(&vb, tags[1], buf));       /* a read has none */
    assert_int_equal(vblk_complete(&vb, tags[0], VIRTIO_BLK_S_OK, NULL, 0), 0);
    assert_int_equal(used_idx(), 1);
    assert_int_equal(used_len(0), 1);
    assert_int_equal(ram[HDR(0) + 16], VIRTIO_BLK_S_OK);
    memset(buf, 0x42, 512);
    assert_int_equal(vblk_complete(&vb, tags[1], VIRTIO_BLK_S_OK, buf, 512), 0);
    assert_int_equal(used_idx(), 2);
    assert_int_equal(used_len(1), 513);
    assert_int_equal(ram[DATA(1)], 0x42);
    assert_int_equal(ram[DATA(1) + 511], 0x42);
    assert_int_equal(ram[HDR(1) + 16], VIRTIO_BLK_S_OK);
    assert_int_equal(raised, 2);
    /* a second completion of the same tag matches nothing */
    assert_int_equal(vblk_complete(&vb, tags[1], VIRTIO_BLK_S_OK, buf, 512), -1);
    assert_int_equal(vb.st.bad_completions, 1);
    assert_int_equal(vb.st.completed, 2);
}

static void test_answered_at_once(void **state)
{
    request(0, VIRTIO_BLK_T_IN, CAPACITY, 512);             /* past the capacity */
    request(1, 99, 0, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(ntags, 0);
    assert_int_equal(used_idx(), 2);
    assert_int_equal(ram[HDR(0) + 16], VIRTIO_BLK_S_IOERR);
    assert_int_equal(ram[HDR(1) + 16], VIRTIO_BLK_S_UNSUPP);
    assert_int_equal(used_len(0), 1);
    assert_int_equal(ram[DATA(0)], 0);                      /* no data written */
    assert_int_equal(vb.st.answered, 2);
    start(true);
    request(0, VIRTIO_BLK_T_OUT, 0, 512);
    request(1, VIRTIO_BLK_T_FLUSH, 0, 0);
    desc(4, HDR(1) + 16, 1, VIRTQ_DESC_F_WRITE, 0);         /* header, status */
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(ram[HDR(0) + 16], VIRTIO_BLK_S_IOERR); /* read-only */
    assert_int_equal(ntags, 1);                             /* the flush goes on */
}

static void test_bad_completions(void **state)
{
    request(0, VIRTIO_BLK_T_IN, 0, 512);
    request(1, VIRTIO_BLK_T_IN, 1, 512);
    request(2, VIRTIO_BLK_T_OUT, 1, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(ntags, 3);
    uint8_t buf[1024] = { 0x11 };
    /* never given: another slot, another use of a slot, no slot at all */
    assert_int_equal(vblk_complete(&vb, tags[0] ^ 3u << VBLK_TAG_SLOT_BITS, 0, buf, 512), -1);
    assert_int_equal(vblk_complete(&vb, 200, 0, buf, 512), -1);
    assert_int_equal(vblk_complete(&vb, VBLK_INFLIGHT_MAX - 1, 0, buf, 512), -1);
    assert_int_equal(used_idx(), 0);
    /* the wrong length, the wrong status: IOERR for that one alone */
    assert_int_equal(vblk_complete(&vb, tags[0], VIRTIO_BLK_S_OK, buf, 1024), -2);
    assert_int_equal(vblk_complete(&vb, tags[1], 7, buf, 512), -2);
    assert_int_equal(vblk_complete(&vb, tags[2], VIRTIO_BLK_S_OK, buf, 512), -2);
    assert_int_equal(used_idx(), 3);
    for (unsigned int i = 0; i < 3; i++) {
        assert_int_equal(ram[HDR(i) + 16], VIRTIO_BLK_S_IOERR);
        assert_int_equal(used_len(i), 1);
    }
    assert_int_equal(ram[DATA(0)], 0);                      /* nothing copied */
    assert_int_equal(vb.st.bad_completions, 6);
    /* an IOERR from the backend is an answer like any */
    request(3, VIRTIO_BLK_T_IN, 0, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(vblk_complete(&vb, tags[3], VIRTIO_BLK_S_IOERR, NULL, 0), 0);
    assert_int_equal(ram[HDR(3) + 16], VIRTIO_BLK_S_IOERR);
}

/* a reset, a queue set up again, a detach: in flight is dropped, and a
 * late completion touches nothing */
static void test_reset_drops_in_flight(void **state)
{
    request(0, VIRTIO_BLK_T_IN, 0, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(ntags, 1);
    wr(VMMIO_STATUS, 0);
    assert_int_equal(ndropped, 1);
    assert_int_equal(vb.st.dropped, 1);
    uint8_t buf[512];
    memset(buf, 0x99, sizeof(buf));
    assert_false(vblk_write_data(&vb, tags[0], buf));
    assert_int_equal(vblk_complete(&vb, tags[0], VIRTIO_BLK_S_OK, buf, 512), -1);
    assert_int_equal(ram[DATA(0)], 0);
    assert_int_equal(ram[HDR(0) + 16], 0xee);
    driver_setup();
    request(0, VIRTIO_BLK_T_IN, 0, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(ntags, 2);
    assert_int_not_equal(tags[1], tags[0]);                 /* the slot's next use */
    vblk_detach(&vb);
    assert_int_equal(ndropped, 2);
    assert_int_equal(vblk_complete(&vb, tags[1], VIRTIO_BLK_S_OK, buf, 512), -1);
    assert_int_equal(ram[DATA(0)], 0);
    assert_int_equal(used_idx(), 0);
}

/* a full table leaves requests in the queue until completions free slots;
 * one exit takes no more than VBLK_REQS_PER_EXIT */
static void test_table_full_and_bound(void **state)
{
    for (unsigned int i = 0; i < VBLK_INFLIGHT_MAX + 4; i++)
        request(i, VIRTIO_BLK_T_IN, i % CAPACITY, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(ntags, VBLK_REQS_PER_EXIT);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(ntags, VBLK_INFLIGHT_MAX);
    uint8_t buf[512] = { 0 };
    assert_int_equal(vblk_complete(&vb, tags[0], VIRTIO_BLK_S_OK, buf, 512), 0);
    vblk_kick(&vb);                                         /* as the backend does */
    assert_int_equal(ntags, VBLK_INFLIGHT_MAX + 1);
    /* its interrupt handler reads the status: the rest is taken then too */
    for (unsigned int i = 1; i < 4; i++)
        assert_int_equal(vblk_complete(&vb, tags[i], VIRTIO_BLK_S_OK, buf, 512), 0);
    rd(VMMIO_INTERRUPT_STATUS);
    assert_int_equal(ntags, VBLK_INFLIGHT_MAX + 4);
    /* answered-at-once requests are bounded per exit as well */
    start(false);
    for (unsigned int i = 0; i < VBLK_REQS_PER_EXIT + 5; i++)
        request(i, VIRTIO_BLK_T_IN, CAPACITY, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(used_idx(), VBLK_REQS_PER_EXIT);
}

static void test_malformed_chain(void **state)
{
    request(0, VIRTIO_BLK_T_IN, 0, 512);
    desc(1, RAM_SIZE - 256, 512, VIRTQ_DESC_F_NEXT | VIRTQ_DESC_F_WRITE, 2);   /* past RAM */
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_true(rd(VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
    assert_non_null(strstr(reported, "outside the guest's RAM"));
    assert_int_equal(ntags, 0);
    assert_int_equal(vb.st.errors, 1);
    /* no status byte: readable after writable */
    start(false);
    request(0, VIRTIO_BLK_T_IN, 0, 512);
    desc(2, HDR(0) + 16, 1, 0, 0);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_true(rd(VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
    assert_non_null(strstr(reported, "wrong direction"));
    assert_int_equal(ram[HDR(0) + 16], 0xee);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_features_and_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_and_write_by_tag, setup, teardown),
        cmocka_unit_test_setup_teardown(test_answered_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_completions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reset_drops_in_flight, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_full_and_bound, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_chain, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
