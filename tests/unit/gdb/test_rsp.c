/* The GDB Remote Serial Protocol: framing, encoding, request decoding. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "hyp/gdb/rsp.h"

/* Feed a whole string; returns the last event that was not NONE */
static enum rsp_event feed(struct rsp_rx *rx, const char *s, size_t n)
{
    enum rsp_event last = RSP_EV_NONE;
    for (size_t i = 0; i < n; i++) {
        enum rsp_event e = rsp_rx_feed(rx, s[i]);
        if (e != RSP_EV_NONE)
            last = e;
    }
    return last;
}

static void frame(char *out, const char *data)
{
    unsigned int sum = 0;
    for (const char *p = data; *p; p++)
        sum += (unsigned char)*p;
    sprintf(out, "$%s#%02x", data, sum & 0xff);
}

static void test_rx_good_packet(void **s)
{
    struct rsp_rx rx;
    rsp_rx_init(&rx);
    char pkt[64];
    frame(pkt, "m40000000,4");
    assert_int_equal(feed(&rx, pkt, strlen(pkt)), RSP_EV_PACKET);
    assert_string_equal(rx.buf, "m40000000,4");
    assert_int_equal(rx.len, 11);
    /* upper-case checksum digits are fine too */
    assert_int_equal(feed(&rx, "$g#67", 5), RSP_EV_PACKET);
    assert_int_equal(feed(&rx, "$?#3F", 5), RSP_EV_PACKET);
    assert_string_equal(rx.buf, "?");
}

static void test_rx_bad_checksum(void **s)
{
    struct rsp_rx rx;
    rsp_rx_init(&rx);
    assert_int_equal(feed(&rx, "$g#68", 5), RSP_EV_BAD);
    assert_int_equal(feed(&rx, "$g#6x", 5), RSP_EV_BAD);
    assert_int_equal(feed(&rx, "$g#", 3), RSP_EV_NONE);
    assert_int_equal(feed(&rx, "$g#67", 5), RSP_EV_PACKET);  /* restart mid-checksum... */
}

static void test_rx_acks_interrupt_noise(void **s)
{
    struct rsp_rx rx;
    rsp_rx_init(&rx);
    assert_int_equal(rsp_rx_feed(&rx, '+'), RSP_EV_ACK);
    assert_int_equal(rsp_rx_feed(&rx, '-'), RSP_EV_NAK);
    assert_int_equal(rsp_rx_feed(&rx, 0x03), RSP_EV_INTERRUPT);
    assert_true(rsp_rx_idle(&rx));
    assert_int_equal(rsp_rx_feed(&rx, '$'), RSP_EV_NONE);
    assert_false(rsp_rx_idle(&rx));
    assert_int_equal(feed(&rx, "#00", 3), RSP_EV_PACKET);
    assert_true(rsp_rx_idle(&rx));
    assert_int_equal(feed(&rx, "garbage\r\n", 9), RSP_EV_NONE);
    /* 0x03 inside a packet is data, not an interrupt */
    assert_int_equal(feed(&rx, "$\x03", 2), RSP_EV_NONE);
    assert_int_equal(feed(&rx, "#03", 3), RSP_EV_PACKET);
    assert_int_equal(rx.buf[0], 3);
    /* a '$' in the middle starts again */
    assert_int_equal(feed(&rx, "$abc$g#67", 9), RSP_EV_PACKET);
    assert_string_equal(rx.buf, "g");
}

static void test_rx_escape(void **s)
{
    struct rsp_rx rx;
    rsp_rx_init(&rx);
    /* "}\x03" is '#' escaped; the checksum is over what was sent */
    char pkt[16] = "$X}\x03#";
    unsigned int sum = 'X' + '}' + 3;
    sprintf(pkt + 5, "%02x", sum & 0xff);
    assert_int_equal(feed(&rx, pkt, 7), RSP_EV_PACKET);
    assert_int_equal(rx.len, 2);
    assert_memory_equal(rx.buf, "X#", 2);
}

static void test_rx_overlong(void **s)
{
    static char big[RSP_PACKET_MAX + 64];
    static char pkt[RSP_PACKET_MAX + 80];
    struct rsp_rx rx;
    rsp_rx_init(&rx);
    memset(big, 'a', RSP_PACKET_MAX + 1);
    big[RSP_PACKET_MAX + 1] = '\0';
    frame(pkt, big);
    assert_int_equal(feed(&rx, pkt, strlen(pkt)), RSP_EV_BAD);
    assert_true(rx.len <= RSP_PACKET_MAX);
    big[RSP_PACKET_MAX] = '\0';         /* exactly the limit fits */
    frame(pkt, big);
    assert_int_equal(feed(&rx, pkt, strlen(pkt)), RSP_EV_PACKET);
    assert_int_equal(rx.len, RSP_PACKET_MAX);
}

static void test_tx_encode(void **s)
{
    struct rsp_tx tx;
    rsp_tx_begin(&tx);
    rsp_tx_str(&tx, "OK");
    rsp_tx_end(&tx);
    assert_int_equal(tx.len, 6);
    assert_memory_equal(tx.buf, "$OK#9a", 6);
    rsp_tx_begin(&tx);
    rsp_tx_reg32(&tx, 0x12345678);
    rsp_tx_num(&tx, 0x0a0);
    rsp_tx_num(&tx, 0);
    rsp_tx_str(&tx, "$#}*");
    rsp_tx_end(&tx);
    tx.buf[tx.len] = '\0';
    assert_memory_equal(tx.buf, "$78563412a00}\x04}\x03}]}\x0a#", 21);
    /* what we send, the receiver takes back unchanged */
    struct rsp_rx rx;
    rsp_rx_init(&rx);
    assert_int_equal(feed(&rx, tx.buf, tx.len), RSP_EV_PACKET);
    assert_string_equal(rx.buf, "78563412a00$#}*");
}

static void test_tx_overflow_is_error(void **s)
{
    static uint8_t mem[RSP_PACKET_MAX];
    struct rsp_tx tx;
    rsp_tx_begin(&tx);
    rsp_tx_hex(&tx, mem, sizeof(mem));
    assert_true(tx.overflow);
    rsp_tx_end(&tx);
    assert_int_equal(tx.len, 7);
    assert_memory_equal(tx.buf, "$E01#a6", 7);
    assert_true(tx.overflow);       /* the caller can still tell it was replaced */
}

/* A received packet of RSP_PACKET_MAX bytes with one byte that is escaped
 * when sent ('$') no longer fits: sending it back gives E01, and says so
 * (found by fuzz_rsp, whose round-trip check read the flag after
 * rsp_tx_end and took the E01 for the packet). */
static void test_tx_escapes_past_the_limit(void **s)
{
    static char data[RSP_PACKET_MAX];
    static struct rsp_tx tx;
    memset(data, 'A', sizeof(data));
    data[sizeof(data) - 1] = '$';
    rsp_tx_begin(&tx);
    rsp_tx_bytes(&tx, data, sizeof(data));
    rsp_tx_end(&tx);
    assert_true(tx.overflow);
    assert_int_equal(tx.len, 7);
    assert_memory_equal(tx.buf, "$E01#a6", 7);
}

static void test_hex(void **s)
{
    uint8_t b[4];
    uint32_t v;
    assert_int_equal(rsp_hex_decode("00ff7A", 6, b, 4), 3);
    assert_int_equal(b[2], 0x7a);
    assert_int_equal(rsp_hex_decode("0", 1, b, 4), -1);
    assert_int_equal(rsp_hex_decode("0g", 2, b, 4), -1);
    assert_int_equal(rsp_hex_decode("0011223344", 10, b, 4), -1);
    assert_true(rsp_hex_reg32("78563412", &v));
    assert_int_equal(v, 0x12345678);
    assert_false(rsp_hex_reg32("7856341x", &v));
}

static struct rsp_cmd dec(const char *pkt)
{
    struct rsp_cmd c;
    rsp_decode(pkt, strlen(pkt), &c);
    return c;
}

static void test_decode_basic(void **s)
{
    assert_int_equal(dec("?").kind, RSP_CMD_STATUS);
    assert_int_equal(dec("g").kind, RSP_CMD_READ_REGS);
    assert_int_equal(dec("G0011223344556677").kind, RSP_CMD_WRITE_REGS);
    assert_int_equal(dec("G001").kind, RSP_CMD_MALFORMED);
    struct rsp_cmd c = dec("p19");
    assert_int_equal(c.kind, RSP_CMD_READ_REG);
    assert_int_equal(c.reg, 25);
    c = dec("Pf=00800040");
    assert_int_equal(c.kind, RSP_CMD_WRITE_REG);
    assert_int_equal(c.reg, 15);
    assert_int_equal(c.value, 0x40008000);
    assert_int_equal(dec("Pf=0080004").kind, RSP_CMD_MALFORMED);
    assert_false(c.wide);
    /* a VFP dN: 64 bits, the low word first (target order) */
    c = dec("P1a=0100000002000080");
    assert_int_equal(c.kind, RSP_CMD_WRITE_REG);
    assert_true(c.wide);
    assert_int_equal(c.reg, 26);
    assert_int_equal(c.value, 1);
    assert_int_equal(c.value_hi, 0x80000002);
    assert_int_equal(dec("P1a=010000000200").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("P1a=01000000020000xx").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("p").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("c").kind, RSP_CMD_CONTINUE);
    c = dec("c40001000");
    assert_true(c.has_addr);
    assert_int_equal(c.addr, 0x40001000);
    assert_int_equal(dec("s").kind, RSP_CMD_STEP);
    assert_int_equal(dec("sxyz").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("D").kind, RSP_CMD_DETACH);
    assert_int_equal(dec("D;1").kind, RSP_CMD_DETACH);
    assert_int_equal(dec("k").kind, RSP_CMD_KILL);
}

static void test_decode_memory(void **s)
{
    struct rsp_cmd c = dec("m40000000,10");
    assert_int_equal(c.kind, RSP_CMD_READ_MEM);
    assert_int_equal(c.addr, 0x40000000);
    assert_int_equal(c.len, 16);
    assert_int_equal(dec("m40000000").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("m,4").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("m123456789,4").kind, RSP_CMD_MALFORMED);   /* > 32 bits */
    assert_int_equal(dec("m0,4,").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("m0,ffff").kind, RSP_CMD_MALFORMED);       /* too much */
    c = dec("M40000000,2:abcd");
    assert_int_equal(c.kind, RSP_CMD_WRITE_MEM);
    assert_int_equal(c.data_len, 4);
    assert_memory_equal(c.data, "abcd", 4);
    assert_int_equal(dec("M40000000,2:abc").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("M40000000,2").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("M40000000,3:abcd").kind, RSP_CMD_MALFORMED);
}

static void test_decode_breakpoints_threads(void **s)
{
    struct rsp_cmd c = dec("Z0,40001234,4");
    assert_int_equal(c.kind, RSP_CMD_INSERT_BP);
    assert_int_equal(c.type, 0);
    assert_int_equal(c.addr, 0x40001234);
    assert_int_equal(c.kind_arg, 4);
    c = dec("z2,40002000,4");
    assert_int_equal(c.kind, RSP_CMD_REMOVE_BP);
    assert_int_equal(c.type, 2);
    assert_int_equal(dec("Z0,40001234").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("Z0,40001234,4;X1,ff").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("Z5,0,4").kind, RSP_CMD_UNKNOWN);
    c = dec("Hg2");
    assert_int_equal(c.kind, RSP_CMD_SET_THREAD);
    assert_int_equal(c.op, 'g');
    assert_int_equal(c.thread, 2);
    c = dec("Hc-1");
    assert_int_equal(c.thread, RSP_THREAD_ALL);
    assert_int_equal(dec("Hc0").thread, RSP_THREAD_ANY);
    assert_int_equal(dec("Hx1").kind, RSP_CMD_UNKNOWN);
    assert_int_equal(dec("Hgzz").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("T1").kind, RSP_CMD_THREAD_ALIVE);
}

static void test_decode_queries(void **s)
{
    assert_int_equal(dec("qSupported:multiprocess+;swbreak+;xmlRegisters=arm").kind,
                     RSP_CMD_SUPPORTED);
    struct rsp_cmd c = dec("qXfer:features:read:target.xml:0,ffb");
    assert_int_equal(c.kind, RSP_CMD_XFER_FEATURES);
    assert_string_equal(c.annex, "target.xml");
    assert_int_equal(c.addr, 0);
    assert_int_equal(c.len, 0xffb);
    assert_int_equal(dec("qXfer:features:read:target.xml:0").kind, RSP_CMD_MALFORMED);
    assert_int_equal(dec("qXfer:features:read:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:0,1").kind,
                     RSP_CMD_MALFORMED);
    assert_int_equal(dec("qfThreadInfo").kind, RSP_CMD_THREAD_FIRST);
    assert_int_equal(dec("qsThreadInfo").kind, RSP_CMD_THREAD_NEXT);
    assert_int_equal(dec("qC").kind, RSP_CMD_CURRENT_THREAD);
    assert_int_equal(dec("qAttached").kind, RSP_CMD_ATTACHED);
    assert_int_equal(dec("qAttached:1").kind, RSP_CMD_ATTACHED);
    c = dec("qThreadExtraInfo,2");
    assert_int_equal(c.kind, RSP_CMD_THREAD_EXTRA);
    assert_int_equal(c.thread, 2);
}

static void test_decode_unknown_is_empty(void **s)
{
    static const char *const unknown[] = {
        "", "vMustReplyEmpty", "vCont?", "qTStatus", "qOffsets", "qCRC:0,4", "X0,0:",
        "!", "qfThreadInfoX", "QStartNoAckMode", "\x01\xff",
    };
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
        assert_int_equal(dec(unknown[i]).kind, RSP_CMD_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rx_good_packet),
        cmocka_unit_test(test_rx_bad_checksum),
        cmocka_unit_test(test_rx_acks_interrupt_noise),
        cmocka_unit_test(test_rx_escape),
        cmocka_unit_test(test_rx_overlong),
        cmocka_unit_test(test_tx_encode),
        cmocka_unit_test(test_tx_overflow_is_error),
        cmocka_unit_test(test_tx_escapes_past_the_limit),
        cmocka_unit_test(test_hex),
        cmocka_unit_test(test_decode_basic),
        cmocka_unit_test(test_decode_memory),
        cmocka_unit_test(test_decode_breakpoints_threads),
        cmocka_unit_test(test_decode_queries),
        cmocka_unit_test(test_decode_unknown_is_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
