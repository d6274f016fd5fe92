/*
 * Host unit tests for the emulated PL011 (hyp/vdev/vuart.c), driven the way the
 * trap handler drives it: one struct mmio_access per guest load or store,
 * routed to vuart_mmio with the offset into the UART's page.
 * Register map and reset values: ARM DDI 0183 (PL011 TRM) chapter 3.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "hyp/vdev/vuart.h"
#include "hyp/drivers/uart/pl011.h"

#define FR_RXFE  (1u << 4)
#define FR_TXFF  (1u << 5)
#define FR_RXFF  (1u << 6)
#define FR_TXFE  (1u << 7)
#define FR_BUSY  (1u << 3)

#define INT_RX   (1u << 4)
#define INT_TX   (1u << 5)
#define INT_RT   (1u << 6)

/* what the callbacks saw */
static struct {
    char tx[64];
    unsigned int ntx;
    bool levels[64];
    unsigned int nlevels;
} seen;

static void tx_cb(void *ctx, char c)
{
    assert_ptr_equal(ctx, &seen);
    assert_true(seen.ntx < sizeof(seen.tx));
    seen.tx[seen.ntx++] = c;
}

static void irq_cb(void *ctx, bool level)
{
    assert_ptr_equal(ctx, &seen);
    assert_true(seen.nlevels < sizeof(seen.levels));
    seen.levels[seen.nlevels++] = level;
}

static struct vuart u;

static void reset(void)
{
    memset(&seen, 0, sizeof(seen));
    vuart_init(&u, tx_cb, irq_cb, &seen);
}

static bool uart_access(uint32_t off, bool write, uint32_t *value, unsigned int size)
{
    struct mmio_access a = {
        .size = size, .write = write,
        .value = write ? *value : 0xdeadbeef,
    };
    bool ok = vuart_mmio(&u, &a, off);
    if (!write)
        *value = a.value;
    return ok;
}

static uint32_t rd(uint32_t off)
{
    uint32_t v;
    if (!uart_access(off, false, &v, 4))
        fail_msg("read of 0x%03x refused", off);
    return v;
}

static void wr(uint32_t off, uint32_t v)
{
    if (!uart_access(off, true, &v, 4))
        fail_msg("write of 0x%03x refused", off);
}

static void push(const char *s)
{
    while (*s)
        assert_true(vuart_rx_push(&u, (uint8_t)*s++));
}

/* ---- reset ---- */

static void test_reset_values(void **state)
{
    reset();
    assert_int_equal(rd(PL011_CR), 0x300);          /* TXE | RXE */
    assert_int_equal(rd(PL011_IFLS), 0x12);         /* half way, both FIFOs */
    assert_int_equal(rd(PL011_IMSC), 0);
    assert_int_equal(rd(PL011_RIS), 0);
    assert_int_equal(rd(PL011_MIS), 0);
    assert_int_equal(rd(PL011_LCR_H), 0);
    assert_int_equal(rd(PL011_IBRD), 0);
    assert_int_equal(rd(PL011_FBRD), 0);
    assert_int_equal(rd(PL011_RSR), 0);
    assert_int_equal(rd(PL011_FR), FR_TXFE | FR_RXFE);
    assert_int_equal(seen.nlevels, 0);              /* the line starts low, unreported */
    assert_int_equal(seen.ntx, 0);
}

/* ---- transmit ---- */

static void test_dr_write_transmits(void **state)
{
    reset();
    wr(PL011_DR, 'h');
    wr(PL011_DR, 0x169);                /* bits above the byte are not data */
    wr(PL011_DR, 0xffffff0a);
    wr(PL011_DR, 0x2c3);                /* UTF-8 is 8 bits a byte */
    assert_int_equal(seen.ntx, 4);
    assert_memory_equal(seen.tx, "hi\n\xc3", 4);
    /* TX raw status: sent at once, the FIFO is below its level again */
    assert_int_equal(rd(PL011_RIS), INT_TX);
    assert_int_equal(rd(PL011_MIS), 0);             /* masked */
    assert_int_equal(rd(PL011_FR) & (FR_TXFF | FR_BUSY), 0);
    assert_int_equal(rd(PL011_FR) & FR_TXFE, FR_TXFE);
    assert_int_equal(seen.nlevels, 0);
}

static void test_byte_store_to_dr(void **state)
{
    uint32_t v = 'x';
    reset();
    assert_true(uart_access(PL011_DR, true, &v, 1));
    assert_int_equal(seen.ntx, 1);
    assert_int_equal(seen.tx[0], 'x');
}

static void test_tx_without_callback(void **state)
{
    vuart_init(&u, NULL, NULL, NULL);
    wr(PL011_DR, 'a');                  /* nowhere to go: dropped, no crash */
    wr(PL011_IMSC, INT_TX);
    assert_int_equal(rd(PL011_MIS), INT_TX);
}

/* ---- receive ---- */

static void test_fr_with_fifo_levels(void **state)
{
    reset();
    for (unsigned int n = 0; n <= VUART_FIFO; n++) {
        uint32_t fr = rd(PL011_FR);
        if (fr & FR_TXFE) fr &= ~FR_TXFE;
        else fail_msg("%u bytes: TXFE clear", n);
        uint32_t want = (n == 0 ? FR_RXFE : 0) | (n == VUART_FIFO ? FR_RXFF : 0);
        if (fr != want)
            fail_msg("%u bytes in the RX FIFO: FR 0x%x, expected 0x%x", n, fr, want);
        if (n < VUART_FIFO)
            assert_true(vuart_rx_push(&u, (uint8_t)('a' + n)));
    }
}

static void test_rx_full_rejects(void **state)
{
    reset();
    for (unsigned int n = 0; n < VUART_FIFO; n++)
        assert_true(vuart_rx_push(&u, (uint8_t)n));
    assert_false(vuart_rx_push(&u, 0xaa));          /* the caller keeps it */
    assert_false(vuart_rx_push(&u, 0xbb));
    for (unsigned int n = 0; n < VUART_FIFO; n++)
        assert_int_equal(rd(PL011_DR), n);          /* 0xaa was not stored */
    assert_int_equal(rd(PL011_FR) & FR_RXFE, FR_RXFE);
    assert_true(vuart_rx_push(&u, 0xcc));           /* room again */
    assert_int_equal(rd(PL011_DR), 0xcc);
}

static void test_dr_read_drains_in_order(void **state)
{
    reset();
    /* go round the ring a few times: a wrong index shows as a wrong byte */
    unsigned int in = 0, out = 0;
    for (int round = 0; round < 5; round++) {
        for (int k = 0; k < 11; k++)
            assert_true(vuart_rx_push(&u, (uint8_t)(in++ * 7)));
        for (int k = 0; k < 11; k++) {
            uint32_t v = rd(PL011_DR);
            if (v != (uint8_t)(out * 7))
                fail_msg("byte %u: 0x%x, expected 0x%x", out, v, (uint8_t)(out * 7));
            out++;
        }
    }
    assert_int_equal(rd(PL011_FR) & FR_RXFE, FR_RXFE);
    assert_int_equal(rd(PL011_DR), 0);              /* empty: reads as 0 */
    assert_int_equal(rd(PL011_FR) & FR_RXFE, FR_RXFE);
}

static void test_full_byte_range(void **state)
{
    reset();
    push("\xff\x80");
    assert_int_equal(rd(PL011_DR), 0xff);           /* no sign extension */
    assert_int_equal(rd(PL011_DR), 0x80);
    assert_true(vuart_rx_push(&u, 0));
    assert_int_equal(rd(PL011_FR) & FR_RXFE, 0);    /* a NUL is a byte too */
    assert_int_equal(rd(PL011_DR), 0);
}

/* ---- interrupts ---- */

static void test_rx_interrupt_level(void **state)
{
    reset();
    wr(PL011_IMSC, INT_RX | INT_RT);
    assert_int_equal(seen.nlevels, 0);              /* nothing pending yet */
    push("ab");
    assert_int_equal(rd(PL011_RIS), INT_RX | INT_RT);
    assert_int_equal(rd(PL011_MIS), INT_RX | INT_RT);
    assert_int_equal(seen.nlevels, 1);              /* raised once, not per byte */
    assert_true(seen.levels[0]);
    rd(PL011_DR);
    assert_int_equal(seen.nlevels, 1);              /* still data: still high */
    rd(PL011_DR);
    assert_int_equal(seen.nlevels, 2);
    assert_false(seen.levels[1]);
    assert_int_equal(rd(PL011_RIS), 0);
    assert_int_equal(rd(PL011_MIS), 0);
}

static void test_mask_and_unmask(void **state)
{
    reset();
    push("x");
    assert_int_equal(rd(PL011_RIS), INT_RX | INT_RT);
    assert_int_equal(rd(PL011_MIS), 0);
    assert_int_equal(seen.nlevels, 0);              /* masked: the line stays low */
    wr(PL011_IMSC, INT_RT);
    assert_int_equal(rd(PL011_MIS), INT_RT);
    assert_int_equal(seen.nlevels, 1);
    assert_true(seen.levels[0]);
    wr(PL011_IMSC, INT_RX | INT_RT);                /* high already: no call */
    assert_int_equal(seen.nlevels, 1);
    wr(PL011_IMSC, 0);
    assert_int_equal(seen.nlevels, 2);
    assert_false(seen.levels[1]);
    assert_int_equal(rd(PL011_RIS), INT_RX | INT_RT);   /* raw status unmasked */
}

static void test_tx_interrupt_and_icr(void **state)
{
    reset();
    wr(PL011_IMSC, INT_TX);
    assert_int_equal(seen.nlevels, 0);
    wr(PL011_DR, 'a');
    assert_int_equal(seen.nlevels, 1);
    assert_true(seen.levels[0]);
    assert_int_equal(rd(PL011_MIS), INT_TX);
    wr(PL011_DR, 'b');                              /* already high */
    assert_int_equal(seen.nlevels, 1);
    wr(PL011_ICR, INT_RX);                          /* another bit: no change */
    assert_int_equal(rd(PL011_RIS), INT_TX);
    assert_int_equal(seen.nlevels, 1);
    wr(PL011_ICR, INT_TX);
    assert_int_equal(rd(PL011_RIS), 0);
    assert_int_equal(rd(PL011_MIS), 0);
    assert_int_equal(seen.nlevels, 2);
    assert_false(seen.levels[1]);
    assert_int_equal(rd(PL011_ICR), 0);             /* write-only: reads as 0 */
}

/* RX status follows the FIFO: clearing it with data still there is undone */
static void test_icr_rx_with_data_pending(void **state)
{
    reset();
    wr(PL011_IMSC, INT_RX);
    push("q");
    assert_int_equal(seen.nlevels, 1);
    wr(PL011_ICR, 0x7ff);
    assert_int_equal(rd(PL011_RIS), INT_RX | INT_RT);
    assert_int_equal(seen.nlevels, 1);              /* never dropped */
    assert_int_equal(rd(PL011_DR), 'q');
    assert_int_equal(seen.nlevels, 2);
    assert_false(seen.levels[1]);
}

static void test_imsc_masked_to_defined_bits(void **state)
{
    reset();
    wr(PL011_IMSC, 0xffffffff);
    assert_int_equal(rd(PL011_IMSC), 0x7ff);
    /* a raw interrupt that is enabled reaches MIS and the line */
    wr(PL011_DR, '!');
    assert_int_equal(rd(PL011_MIS), INT_TX);
    assert_int_equal(seen.nlevels, 1);
}

static void test_no_irq_callback(void **state)
{
    vuart_init(&u, tx_cb, NULL, &seen);
    memset(&seen, 0, sizeof(seen));
    wr(PL011_IMSC, INT_RX);
    push("z");
    assert_int_equal(rd(PL011_MIS), INT_RX);        /* state kept, nobody told */
    assert_int_equal(rd(PL011_DR), 'z');
    assert_int_equal(seen.nlevels, 0);
}

/* ---- control registers ---- */

static const struct {
    uint32_t off, mask;
    const char *name;
} ctrl[] = {
    { PL011_IBRD, 0xffff, "IBRD" },
    { PL011_FBRD, 0x3f, "FBRD" },
    { PL011_LCR_H, 0xff, "LCR_H" },
    { PL011_CR, 0xff87, "CR" },         /* bits 6:3 reserved */
    { PL011_IFLS, 0x3f, "IFLS" },
};

static void test_control_registers_masked(void **state)
{
    static const uint32_t patterns[] = { 0xffffffff, 0, 0xa5a5a5a5, 0x5a5a5a5a, 0x301, 0x70 };
    reset();
    for (size_t i = 0; i < sizeof(ctrl) / sizeof(ctrl[0]); i++)
        for (size_t k = 0; k < sizeof(patterns) / sizeof(patterns[0]); k++) {
            wr(ctrl[i].off, patterns[k]);
            uint32_t got = rd(ctrl[i].off);
            if (got != (patterns[k] & ctrl[i].mask))
                fail_msg("%s: wrote 0x%x, read 0x%x, expected 0x%x", ctrl[i].name,
                         patterns[k], got, patterns[k] & ctrl[i].mask);
        }
    assert_int_equal(seen.ntx, 0);
}

/* each register is its own: a write to one leaves the others */
static void test_control_registers_independent(void **state)
{
    reset();
    wr(PL011_IBRD, 0x1a);
    wr(PL011_FBRD, 0x03);
    wr(PL011_LCR_H, 0x70);
    wr(PL011_CR, 0x301);
    wr(PL011_IFLS, 0x09);
    assert_int_equal(rd(PL011_IBRD), 0x1a);
    assert_int_equal(rd(PL011_FBRD), 0x03);
    assert_int_equal(rd(PL011_LCR_H), 0x70);
    assert_int_equal(rd(PL011_CR), 0x301);
    assert_int_equal(rd(PL011_IFLS), 0x09);
    assert_int_equal(rd(PL011_IMSC), 0);
}

/* read-only registers ignore writes; RSR/ECR writes clear nothing we keep */
static void test_read_only_registers(void **state)
{
    reset();
    push("k");
    wr(PL011_FR, 0);
    wr(PL011_RIS, 0);
    wr(PL011_MIS, 0);
    wr(PL011_RSR, 0xff);
    assert_int_equal(rd(PL011_FR), FR_TXFE);
    assert_int_equal(rd(PL011_RIS), INT_RX | INT_RT);
    assert_int_equal(rd(PL011_RSR), 0);
    assert_int_equal(rd(PL011_DR), 'k');
    assert_int_equal(seen.ntx, 0);
}

/* ---- identification and the rest of the page ---- */

static void test_primecell_id(void **state)
{
    static const uint8_t id[8] = { 0x11, 0x10, 0x34, 0x00, 0x0d, 0xf0, 0x05, 0xb1 };
    reset();
    for (unsigned int i = 0; i < 8; i++) {
        uint32_t off = 0xfe0 + 4 * i;
        assert_int_equal(rd(off), id[i]);
        wr(off, 0xff);                              /* read-only */
        assert_int_equal(rd(off), id[i]);
    }
}

static void test_reserved_read_as_zero(void **state)
{
    static const uint32_t reserved[] = {
        0x008, 0x00c, 0x010, 0x014, 0x01c, 0x020, 0x048, 0x04c, 0x080, 0x400, 0xfcc,
        0xfd0, 0xfdc,
    };
    reset();
    push("r");
    wr(PL011_IMSC, 0x7ff);
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        wr(reserved[i], 0xffffffff);                /* ignored */
        if (rd(reserved[i]) != 0)
            fail_msg("reserved offset 0x%03x reads 0x%x", reserved[i], rd(reserved[i]));
    }
    assert_int_equal(seen.ntx, 0);
    assert_int_equal(rd(PL011_DR), 'r');            /* nothing disturbed */
}

static void test_unaligned_refused(void **state)
{
    reset();
    for (uint32_t off = 1; off < 0x50; off++) {
        if (!(off & 3))
            continue;
        uint32_t v = 'u';
        if (uart_access(off, true, &v, 1))
            fail_msg("byte store at 0x%03x accepted", off);
        v = 0x1234;
        if (uart_access(off, false, &v, 1))
            fail_msg("byte load at 0x%03x accepted", off);
    }
    uint32_t v = 0;
    assert_false(uart_access(0xfe1, false, &v, 1));
    assert_false(uart_access(0xffe, false, &v, 2));
    assert_int_equal(seen.ntx, 0);                  /* DR+1..3 sent nothing */
}

/* the unmodified value of a refused load is left for the caller */
static void test_refused_access_leaves_record(void **state)
{
    reset();
    push("p");
    struct mmio_access a = { .size = 4, .write = false, .value = 0x5555 };
    assert_false(vuart_mmio(&u, &a, 2));
    assert_int_equal(a.value, 0x5555);
    assert_int_equal(rd(PL011_DR), 'p');            /* the byte was not consumed */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reset_values),
        cmocka_unit_test(test_dr_write_transmits),
        cmocka_unit_test(test_byte_store_to_dr),
        cmocka_unit_test(test_tx_without_callback),
        cmocka_unit_test(test_fr_with_fifo_levels),
        cmocka_unit_test(test_rx_full_rejects),
        cmocka_unit_test(test_dr_read_drains_in_order),
        cmocka_unit_test(test_full_byte_range),
        cmocka_unit_test(test_rx_interrupt_level),
        cmocka_unit_test(test_mask_and_unmask),
        cmocka_unit_test(test_tx_interrupt_and_icr),
        cmocka_unit_test(test_icr_rx_with_data_pending),
        cmocka_unit_test(test_imsc_masked_to_defined_bits),
        cmocka_unit_test(test_no_irq_callback),
        cmocka_unit_test(test_control_registers_masked),
        cmocka_unit_test(test_control_registers_independent),
        cmocka_unit_test(test_read_only_registers),
        cmocka_unit_test(test_primecell_id),
        cmocka_unit_test(test_reserved_read_as_zero),
        cmocka_unit_test(test_unaligned_refused),
        cmocka_unit_test(test_refused_access_leaves_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
