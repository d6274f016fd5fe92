/*
 * Host unit tests for the virtio console (hyp/guest/virtio_console.c over
 * virtio_mmio.c and virtq.c): a fake driver sets it up in a fake guest RAM;
 * what it writes reaches the owner's output at the notify, in order; input
 * fills its receive buffers (as much as each takes); a malformed ring puts
 * it into NEEDS_RESET, reported, until a reset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/guest/virtio_console.h"

#define RAM_IPA   0x40000000u
#define RAM_SIZE  0x10000u
#define QN        4u
#define RING(q)   (0x1000u + (q) * 0x1000u)
#define BUF(q, i) (0x4000u + (q) * 0x1000u + (i) * 0x100u)

static struct vcon vc;
static uint8_t *ram;
static char out[256];
static unsigned int nout, raised;
static char reported[96];
static uint16_t avail[2], used_seen;

static void on_out(void *ctx, const uint8_t *p, uint32_t len)
{
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

static int setup(void **state)
{
    ram = calloc(1, RAM_SIZE);
    vcon_init(&vc, &ops, NULL);
    vcon_attach(&vc, (struct gmem){ RAM_IPA, RAM_SIZE, ram });
    nout = raised = 0;
    reported[0] = 0;
    avail[0] = avail[1] = used_seen = 0;
    assert_int_equal(rd(VMMIO_DEVICE_ID), VIRTIO_ID_CONSOLE);
    wr(VMMIO_STATUS, 3);
    wr(VMMIO_DRIVER_FEATURES_SEL, 1);
    wr(VMMIO_DRIVER_FEATURES, 1);
    wr(VMMIO_STATUS, 0xb);
    for (unsigned int q = 0; q < 2; q++) {
        wr(VMMIO_QUEUE_SEL, q);
        wr(VMMIO_QUEUE_NUM, QN);
        wr(VMMIO_QUEUE_DESC_LOW, RAM_IPA + RING(q));
        wr(VMMIO_QUEUE_DRIVER_LOW, RAM_IPA + RING(q) + 0x100);
        wr(VMMIO_QUEUE_DEVICE_LOW, RAM_IPA + RING(q) + 0x200);
        wr(VMMIO_QUEUE_READY, 1);
    }
    assert_false(vcon_live(&vc));           /* not before DRIVER_OK */
    wr(VMMIO_STATUS, 0xf);
    assert_true(vcon_live(&vc));
    return 0;
}

static int teardown(void **state)
{
    free(ram);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_output_at_the_notify, setup, teardown),
        cmocka_unit_test_setup_teardown(test_input_fills_receive_buffers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed_rings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_detached_takes_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
