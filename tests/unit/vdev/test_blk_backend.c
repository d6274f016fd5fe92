/*
 * Host unit tests for the backend side of a disk (hyp/vdev/blk_backend.c)
 * with a frontend device (virtio_blk.c) under a fake virtio driver and a
 * fake driver partition serving from a RAM disk in the queue's terms
 * (include/partita/blk_queue.h): data written and read back through the
 * queue; a frontend that starts before its driver partition waits, nothing
 * lost; a driver that stops with requests in its slots gets them again in
 * its next life; a frontend reset mid-request: the answer touches nothing;
 * a hostile driver's answers (slots never given, wrong tags, lengths,
 * statuses) fail that request alone, counted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/vdev/blk_backend.h"
#include "vblk_driver.h"

#define QSIZE   (PARTITA_BLKQ_DATA_OFF + 4u * PARTITA_BLKQ_DATA_SIZE)  /* 4 slots */

static struct blk_backend be;
static uint8_t *queue;                  /* the driver partition's queue region */
static uint8_t disk[CAPACITY * 512];    /* its RAM disk */
static uint32_t drv_raised, fe_raised, reports;

static void fe_submit(void *ctx, struct vblk *b, uint32_t tag) { blk_backend_submit(&be, 0, tag); }
static void fe_dropped(void *ctx, struct vblk *b) { blk_backend_dropped(&be, 0); }
static void fe_raise(void *ctx) { fe_raised++; }
static void fe_report(void *ctx, const char *why) { }
static const struct vblk_ops fe_ops = { fe_submit, fe_dropped, fe_raise, fe_report };
static void drv_raise(void *ctx) { drv_raised++; }
static void drv_report(void *ctx, const char *why) { reports++; }
static const struct blk_backend_ops be_ops = { drv_raise, drv_report };

static struct partita_blkq_slot *slot(unsigned int i)
{
    return (struct partita_blkq_slot *)(queue + PARTITA_BLKQ_SLOTS_OFF) + i;
}

static uint8_t *slot_data(unsigned int i)
{
    return queue + PARTITA_BLKQ_DATA_OFF + i * PARTITA_BLKQ_DATA_SIZE;
}

/* The honest driver partition: every request answered from its RAM disk */
static unsigned int serve(void)
{
    const struct partita_blkq_header *h = (const void *)queue;
    unsigned int n = 0;
    for (unsigned int i = 0; i < h->nslots; i++) {
        struct partita_blkq_slot *s = slot(i);
        if (s->state != PARTITA_BLKQ_REQUEST)
            continue;
        if (s->type == PARTITA_BLKQ_T_IN)
            memcpy(slot_data(i), disk + s->sector * 512, s->len);
        else if (s->type == PARTITA_BLKQ_T_OUT)
            memcpy(disk + s->sector * 512, slot_data(i), s->len);
        if (s->type != PARTITA_BLKQ_T_IN)
            s->len = 0;                     /* no data in the answer */
        s->status = PARTITA_BLKQ_S_OK;
        s->state = PARTITA_BLKQ_DONE;
        n++;
    }
    while (blk_backend_done(&be))
        ;
    return n;
}

static int setup(void **state)
{
    ram = calloc(1, RAM_SIZE);
    queue = calloc(1, QSIZE);
    memset(disk, 0, sizeof(disk));
    blk_backend_init(&be, &be_ops, NULL);
    vblk_init(&vb, &fe_ops, NULL, CAPACITY, false);
    struct partita_blkq_frontend info = { CAPACITY, 0, 1, "rt.img" };
    assert_int_equal(blk_backend_add(&be, &vb, &info), 0);
    vblk_attach(&vb, (struct gmem){ RAM_IPA, RAM_SIZE, ram });
    drv_raised = fe_raised = reports = 0;
    driver_setup();
    return 0;
}

static int teardown(void **state)
{
    free(ram);
    free(queue);
    return 0;
}

static void test_header(void **state)
{
    blk_backend_attach(&be, queue, QSIZE);
    const struct partita_blkq_header *h = (const void *)queue;
    assert_int_equal(h->magic, PARTITA_BLKQ_MAGIC);
    assert_int_equal(h->version, PARTITA_BLKQ_VERSION);
    assert_int_equal(h->generation, 1);
    assert_int_equal(h->nslots, 4);
    assert_int_equal(h->nfrontends, 1);
    assert_int_equal(h->fe[0].capacity, CAPACITY);
    assert_int_equal(h->fe[0].guest, 1);
    assert_string_equal(h->fe[0].backing, "rt.img");
    blk_backend_detach(&be);
    blk_backend_attach(&be, queue, QSIZE);
    assert_int_equal(h->generation, 2);
}

static void test_write_then_read_back(void **state)
{
    blk_backend_attach(&be, queue, QSIZE);
    request(0, VIRTIO_BLK_T_OUT, 3, 1024);
    for (unsigned int k = 0; k < 1024; k++)
        ram[DATA(0) + k] = (uint8_t)(k * 7);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(drv_raised, 1);
    assert_int_equal(slot(0)->state, PARTITA_BLKQ_REQUEST);
    assert_int_equal(slot(0)->type, PARTITA_BLKQ_T_OUT);
    assert_int_equal(slot(0)->sector, 3);
    assert_int_equal(slot(0)->len, 1024);
    assert_int_equal(serve(), 1);
    assert_int_equal(ram[HDR(0) + 16], VIRTIO_BLK_S_OK);
    assert_memory_equal(disk + 3 * 512, ram + DATA(0), 1024);
    assert_int_equal(slot(0)->state, PARTITA_BLKQ_FREE);
    request(1, VIRTIO_BLK_T_IN, 3, 1024);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(serve(), 1);
    assert_int_equal(ram[HDR(1) + 16], VIRTIO_BLK_S_OK);
    assert_memory_equal(ram + DATA(1), ram + DATA(0), 1024);
    assert_int_equal(used_idx(), 2);
    assert_int_equal(be.st.bad_answers, 0);
}

/* more requests than slots: the rest wait and follow as answers free them */
static void test_more_than_slots(void **state)
{
    blk_backend_attach(&be, queue, QSIZE);
    for (unsigned int i = 0; i < 10; i++) {
        request(i, VIRTIO_BLK_T_OUT, i, 512);
        memset(ram + DATA(i), (int)(i + 1), 512);
    }
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(be.npend, 6);
    unsigned int served = 0;
    for (int round = 0; round < 10 && used_idx() < 10; round++)
        served += serve();
    assert_int_equal(served, 10);
    assert_int_equal(used_idx(), 10);
    for (unsigned int i = 0; i < 10; i++)
        assert_int_equal(disk[i * 512 + 511], i + 1);
}

/* a frontend started before its driver partition waits; nothing lost */
static void test_frontend_before_driver(void **state)
{
    request(0, VIRTIO_BLK_T_OUT, 1, 512);
    memset(ram + DATA(0), 0x31, 512);
    request(1, VIRTIO_BLK_T_IN, 1, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(be.npend, 2);
    assert_int_equal(drv_raised, 0);
    assert_int_equal(used_idx(), 0);
    blk_backend_attach(&be, queue, QSIZE);
    assert_int_equal(drv_raised, 1);
    assert_int_equal(serve(), 2);
    assert_int_equal(used_idx(), 2);
    assert_int_equal(ram[DATA(1)], 0x31);
}

/* the driver stops holding requests: its next life gets them again */
static void test_driver_restart(void **state)
{
    blk_backend_attach(&be, queue, QSIZE);
    request(0, VIRTIO_BLK_T_OUT, 5, 512);
    memset(ram + DATA(0), 0x44, 512);
    request(1, VIRTIO_BLK_T_IN, 6, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(slot(1)->state, PARTITA_BLKQ_REQUEST);
    blk_backend_detach(&be);                /* it crashed with both */
    assert_int_equal(be.st.requeued, 2);
    memset(queue, 0xcc, QSIZE);             /* its next life loads over it */
    disk[6 * 512] = 0x66;
    blk_backend_attach(&be, queue, QSIZE);
    assert_int_equal(((struct partita_blkq_header *)queue)->generation, 2);
    assert_int_equal(serve(), 2);
    assert_int_equal(used_idx(), 2);
    assert_int_equal(disk[5 * 512], 0x44);  /* the write's data copied again */
    assert_int_equal(ram[DATA(1)], 0x66);
    assert_int_equal(ram[HDR(0) + 16], VIRTIO_BLK_S_OK);
    /* an answer from the old life after the detach touches nothing */
    assert_int_equal(blk_backend_done(&be), 0);
}

/* a frontend reset mid-request: the answer is taken, nothing written */
static void test_frontend_reset_mid_request(void **state)
{
    blk_backend_attach(&be, queue, QSIZE);
    request(0, VIRTIO_BLK_T_IN, 0, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    wr(VMMIO_STATUS, 0);
    assert_true(be.own[0].cancelled);
    memset(disk, 0x77, 512);
    assert_int_equal(serve(), 1);
    assert_int_equal(ram[DATA(0)], 0);
    assert_int_equal(ram[HDR(0) + 16], 0xee);
    assert_int_equal(be.st.bad_answers, 0);
    assert_false(be.own[0].busy);
    /* and a request that waited for a slot is forgotten too */
    blk_backend_detach(&be);
    driver_setup();
    request(0, VIRTIO_BLK_T_IN, 0, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    vblk_detach(&vb);
    blk_backend_attach(&be, queue, QSIZE);
    assert_int_equal(slot(0)->state, PARTITA_BLKQ_FREE);
}

/* a hostile driver partition: answers it was never asked for, wrong tags,
 * lengths and statuses - each fails one request, counted */
static void test_hostile_driver(void **state)
{
    blk_backend_attach(&be, queue, QSIZE);
    slot(3)->state = PARTITA_BLKQ_DONE;     /* a slot that holds nothing */
    assert_int_equal(blk_backend_done(&be), 0);
    assert_int_equal(be.st.bad_answers, 1);
    assert_int_equal(used_idx(), 0);
    for (unsigned int i = 0; i < 3; i++)
        request(i, VIRTIO_BLK_T_IN, i, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    slot(0)->tag ^= 1u << 9;                /* another request's */
    slot(0)->len = 512;
    slot(0)->status = 0;
    slot(1)->len = 0x100000;                /* past the slot */
    slot(1)->status = 0;
    slot(2)->len = 512;
    slot(2)->status = 9;
    memset(slot_data(0), 0x55, 3 * PARTITA_BLKQ_DATA_SIZE);
    for (unsigned int i = 0; i < 3; i++)
        slot(i)->state = PARTITA_BLKQ_DONE;
    assert_int_equal(blk_backend_done(&be), 0);
    assert_int_equal(be.st.bad_answers, 4);
    assert_int_equal(reports, 4);
    assert_int_equal(used_idx(), 3);
    for (unsigned int i = 0; i < 3; i++) {
        assert_int_equal(ram[HDR(i) + 16], VIRTIO_BLK_S_IOERR);
        assert_int_equal(ram[DATA(i)], 0);
    }
    /* the frontend goes on: an honest answer is taken as ever */
    request(3, VIRTIO_BLK_T_IN, 0, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(serve(), 1);
    assert_int_equal(ram[HDR(3) + 16], VIRTIO_BLK_S_OK);
}

/* many answers at once: BLKQ_DONE_PER_CALL taken, the rest counted left */
static void test_done_bound(void **state)
{
    uint8_t *big = calloc(1, PARTITA_BLKQ_DATA_OFF + 12u * PARTITA_BLKQ_DATA_SIZE);
    free(queue);
    queue = big;
    blk_backend_attach(&be, queue, PARTITA_BLKQ_DATA_OFF + 12u * PARTITA_BLKQ_DATA_SIZE);
    for (unsigned int i = 0; i < 12; i++)
        request(i, VIRTIO_BLK_T_IN, i, 512);
    wr(VMMIO_QUEUE_NOTIFY, 0);
    assert_int_equal(be.npend, 0);          /* each submit moves its own */
    for (unsigned int i = 0; i < 12; i++) {
        assert_int_equal(slot(i)->state, PARTITA_BLKQ_REQUEST);
        slot(i)->state = PARTITA_BLKQ_DONE;
    }
    assert_int_equal(blk_backend_done(&be), 12 - BLKQ_DONE_PER_CALL);
    assert_int_equal(used_idx(), BLKQ_DONE_PER_CALL);
    assert_int_equal(blk_backend_done(&be), 0);
    assert_int_equal(used_idx(), 12);
    assert_int_equal(be.st.bad_answers, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_header, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_then_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_more_than_slots, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frontend_before_driver, setup, teardown),
        cmocka_unit_test_setup_teardown(test_driver_restart, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frontend_reset_mid_request, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hostile_driver, setup, teardown),
        cmocka_unit_test_setup_teardown(test_done_bound, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
