/*
 * libFuzzer target for the GDB Remote Serial Protocol (hyp/gdb/rsp.c):
 * the input is a byte stream as gdb (or line noise) would send it.  Every
 * packet the receiver completes is decoded; checked: a packet never exceeds
 * RSP_PACKET_MAX, decoded data lies inside the packet and has the length
 * its request says, and a packet encoded again with rsp_tx is received
 * back unchanged.
 *
 * Built and run by tests/unit/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/gdb/rsp.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_rsp: %s\n", #c); abort(); } } while (0)

static void check_packet(const struct rsp_rx *rx)
{
    struct rsp_cmd cmd;
    CHECK(rx->len <= RSP_PACKET_MAX && rx->buf[rx->len] == '\0');
    rsp_decode(rx->buf, rx->len, &cmd);
    if (cmd.data) {
        CHECK(cmd.data >= rx->buf && cmd.data + cmd.data_len <= rx->buf + rx->len);
        if (cmd.kind == RSP_CMD_WRITE_MEM)
            CHECK(cmd.data_len == 2 * (size_t)cmd.len && cmd.len <= RSP_MEM_MAX);
    }
    if (cmd.kind == RSP_CMD_READ_MEM)
        CHECK(cmd.len <= RSP_MEM_MAX);
    /* round trip: what we would send of it comes back the same */
    static struct rsp_tx tx;
    static struct rsp_rx back;
    rsp_tx_begin(&tx);
    rsp_tx_bytes(&tx, rx->buf, rx->len);
    rsp_tx_end(&tx);
    rsp_rx_init(&back);
    enum rsp_event last = RSP_EV_NONE;
    for (size_t i = 0; i < tx.len; i++) {
        enum rsp_event e = rsp_rx_feed(&back, tx.buf[i]);
        if (e != RSP_EV_NONE)
            last = e;
    }
    CHECK(last == RSP_EV_PACKET);
    if (!tx.overflow)
        CHECK(back.len == rx->len && memcmp(back.buf, rx->buf, rx->len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct rsp_rx rx;
    rsp_rx_init(&rx);
    for (size_t i = 0; i < size; i++)
        if (rsp_rx_feed(&rx, (char)data[i]) == RSP_EV_PACKET)
            check_packet(&rx);
    return 0;
}
