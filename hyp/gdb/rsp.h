/*
 * The GDB Remote Serial Protocol, framing and packets (gdb's manual,
 * "Remote Protocol", E.1 Overview): a packet is `$data#cc`, cc the modulo
 * 256 sum of data in two hex digits, acknowledged with `+` or refused with
 * `-`; a lone 0x03 outside a packet is an interrupt (Ctrl-C).  In data,
 * `}` escapes the next character (XOR 0x20); `$`, `#`, `}` and `*` are
 * escaped when we send them.
 *
 * Pure (no hardware, no hypervisor state): the receiver is a state machine
 * fed one character at a time, the encoder builds a reply in a buffer, and
 * rsp_decode turns a received packet into a checked request, so the stub
 * (gdb_stub.c) never parses text itself.  Unit-tested on the host with
 * malformed input, bad checksums and overlong packets.
 */
#ifndef HYP_CONSOLE_GDB_RSP_H
#define HYP_CONSOLE_GDB_RSP_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

/* the largest packet (its data) we take and send; qSupported says so */
#define RSP_PACKET_MAX   1024u
/* the most memory one m/M packet moves: two hex digits a byte */
#define RSP_MEM_MAX      ((RSP_PACKET_MAX - 32u) / 2u)
#define RSP_INTERRUPT    '\3'     /* Ctrl-C, between packets */

/* ---- receiving ---- */

enum rsp_event {
    RSP_EV_NONE,        /* nothing complete yet */
    RSP_EV_PACKET,      /* rx->buf holds rx->len bytes (NUL-terminated): send '+' */
    RSP_EV_BAD,         /* bad checksum or too long: send '-', gdb sends it again */
    RSP_EV_INTERRUPT,   /* 0x03 outside a packet */
    RSP_EV_ACK,         /* '+' */
    RSP_EV_NAK,         /* '-': send the last reply again */
};

enum rsp_rx_state { RX_IDLE, RX_DATA, RX_CHECK1, RX_CHECK2 };

struct rsp_rx {
    enum rsp_rx_state state;
    bool escape, overflow;
    uint8_t sum, check;
    size_t len;
    char buf[RSP_PACKET_MAX + 1u];
};

void rsp_rx_init(struct rsp_rx *rx);
enum rsp_event rsp_rx_feed(struct rsp_rx *rx, char c);
/* between packets (where gdb sends nothing but '+', '-' and 0x03) */
bool rsp_rx_idle(const struct rsp_rx *rx);

/* ---- sending ---- */

struct rsp_tx {
    size_t len;
    uint8_t sum;
    bool overflow;      /* did not fit: rsp_tx_end makes it an E01, and it stays set */
    char buf[RSP_PACKET_MAX + 4u];     /* '$', data, '#cc' */
};

void rsp_tx_begin(struct rsp_tx *tx);
void rsp_tx_str(struct rsp_tx *tx, const char *s);
void rsp_tx_bytes(struct rsp_tx *tx, const char *s, size_t n);
/* bytes as hex, two digits each, in memory order */
void rsp_tx_hex(struct rsp_tx *tx, const uint8_t *p, size_t n);
/* a register as the target's (little-endian) bytes in hex */
void rsp_tx_reg32(struct rsp_tx *tx, uint32_t v);
/* a number in hex, no leading zeros */
void rsp_tx_num(struct rsp_tx *tx, uint32_t v);
/* close with '#cc': tx->buf, tx->len is the packet to send */
void rsp_tx_end(struct rsp_tx *tx);

/* ---- hex ---- */

/* hex digits to bytes: n is the count of digits (even); -1 on a bad digit */
int rsp_hex_decode(const char *hex, size_t n, uint8_t *out, size_t max);
/* 8 hex digits of a target-order (little-endian) register */
bool rsp_hex_reg32(const char *hex, uint32_t *v);

/* ---- requests ---- */

enum rsp_cmd_kind {
    RSP_CMD_UNKNOWN,    /* answer with an empty packet */
    RSP_CMD_MALFORMED,  /* a known packet with bad arguments: answer E01 */
    RSP_CMD_STATUS,     /* ? */
    RSP_CMD_READ_REGS,  /* g */
    RSP_CMD_WRITE_REGS, /* G hex: data, len (hex digits) */
    RSP_CMD_READ_REG,   /* p n: reg */
    RSP_CMD_WRITE_REG,  /* P n=v: reg, value (wide: 64 bits, value_hi the top) */
    RSP_CMD_READ_MEM,   /* m addr,len */
    RSP_CMD_WRITE_MEM,  /* M addr,len:hex: data */
    RSP_CMD_CONTINUE,   /* c [addr]: has_addr */
    RSP_CMD_STEP,       /* s [addr] */
    RSP_CMD_DETACH,     /* D */
    RSP_CMD_KILL,       /* k */
    RSP_CMD_SET_THREAD, /* H op tid: op 'g' or 'c', thread */
    RSP_CMD_THREAD_ALIVE, /* T tid */
    RSP_CMD_INSERT_BP,  /* Z type,addr,kind */
    RSP_CMD_REMOVE_BP,  /* z type,addr,kind */
    RSP_CMD_SUPPORTED,  /* qSupported[:features] */
    RSP_CMD_XFER_FEATURES, /* qXfer:features:read:annex:offset,length */
    RSP_CMD_THREAD_FIRST,  /* qfThreadInfo */
    RSP_CMD_THREAD_NEXT,   /* qsThreadInfo */
    RSP_CMD_CURRENT_THREAD, /* qC */
    RSP_CMD_ATTACHED,   /* qAttached: 1, we attached to a running guest */
    RSP_CMD_THREAD_EXTRA, /* qThreadExtraInfo,tid */
};

/* thread ids: vCPU n is thread n + 1; these two are special */
#define RSP_THREAD_ALL  (-1)
#define RSP_THREAD_ANY  0

struct rsp_cmd {
    enum rsp_cmd_kind kind;
    uint32_t addr, len, reg, value, value_hi, type, kind_arg;
    bool has_addr, wide;
    char op;
    int thread;
    const char *data;       /* points into the received packet */
    size_t data_len;
    char annex[32];
};

/* Decode packet pkt (len bytes); never reads past it */
void rsp_decode(const char *pkt, size_t len, struct rsp_cmd *cmd);

#endif
