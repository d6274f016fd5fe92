/*
 * The GDB Remote Serial Protocol: framing, encoding and request decoding
 * (rsp.h).  No hardware here; tests/unit/gdb/test_rsp.c and
 * tests/unit/fuzz_rsp.c drive it on the host.
 */
#include <string.h>
#include "rsp.h"

/* ---- receiving ---- */

void rsp_rx_init(struct rsp_rx *rx)
{
    rx->state = RX_IDLE;
    rx->len = 0u;
    rx->buf[0] = '\0';
}

bool rsp_rx_idle(const struct rsp_rx *rx)
{
    return rx->state == RX_IDLE;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

/* An escaped byte goes as '}' and the byte XORed with 0x20 (the GDB
 * manual, "Overview" of the Remote Serial Protocol). */
#define RSP_ESCAPE_XOR 0x20u

static char rsp_escape_flip(char c)
{
    uint8_t b = (uint8_t)c ^ RSP_ESCAPE_XOR;
    return (char)b;
}

static void rx_start(struct rsp_rx *rx)
{
    rx->state = RX_DATA;
    rx->len = 0u;
    rx->sum = 0;
    rx->escape = rx->overflow = false;
}

static void rx_data(struct rsp_rx *rx, char c)
{
    rx->sum = (uint8_t)(rx->sum + (uint8_t)c);
    if (c == '}' && !rx->escape) {
        rx->escape = true;
        return;
    }
    char b = c;
    if (rx->escape) {
        b = rsp_escape_flip(c);
    }
    rx->escape = false;
    if (rx->len < RSP_PACKET_MAX) {
        rx->buf[rx->len++] = b;
    } else {
        rx->overflow = true;
    }
}

enum rsp_event rsp_rx_feed(struct rsp_rx *rx, char c)
{
    int d;
    switch (rx->state) {
    case RX_DATA:
        if (c == '#') {
            rx->state = RX_CHECK1;
        } else if (c == '$') {
            rx_start(rx);           /* a new packet: gdb gave up on the last */
        } else {
            rx_data(rx, c);
        }
        return RSP_EV_NONE;
    case RX_CHECK1:
    case RX_CHECK2:
        d = hex_digit(c);
        if (d < 0) {
            rx->state = RX_IDLE;
            if (c == '$') {
                rx_start(rx);   /* the next packet began: this one is lost */
            }
            return RSP_EV_BAD;
        }
        if (rx->state == RX_CHECK1) {
            rx->check = (uint8_t)((unsigned int)d << 4u);
            rx->state = RX_CHECK2;
            return RSP_EV_NONE;
        }
        rx->state = RX_IDLE;
        rx->check = (uint8_t)(rx->check | (unsigned int)d);
        if (rx->overflow || rx->check != rx->sum) {
            return RSP_EV_BAD;
        }
        rx->buf[rx->len] = '\0';
        return RSP_EV_PACKET;
    default:
        break;
    }
    if (c == '$') {
        rx_start(rx);
    } else if (c == RSP_INTERRUPT) {
        return RSP_EV_INTERRUPT;
    } else if (c == '+') {
        return RSP_EV_ACK;
    } else if (c == '-') {
        return RSP_EV_NAK;
    } else {
        /* otherwise nothing to do */
    }
    return RSP_EV_NONE;     /* noise between packets */
}

/* ---- sending ---- */

static const char hexchars[] = "0123456789abcdef";

void rsp_tx_begin(struct rsp_tx *tx)
{
    tx->buf[0] = '$';
    tx->len = 1u;
    tx->sum = 0;
    tx->overflow = false;
}

static void tx_raw(struct rsp_tx *tx, char c)
{
    /* the data (after '$') at most RSP_PACKET_MAX; '#cc' always fits */
    if (tx->len > RSP_PACKET_MAX) {
        tx->overflow = true;
        return;
    }
    tx->buf[tx->len++] = c;
    tx->sum = (uint8_t)(tx->sum + (uint8_t)c);
}

void rsp_tx_bytes(struct rsp_tx *tx, const char *s, size_t n)
{
    for (size_t i = 0u; i < n; i++) {
        char c = s[i];
        if (c == '$' || c == '#' || c == '}' || c == '*') {
            tx_raw(tx, '}');
            c = rsp_escape_flip(c);
        }
        tx_raw(tx, c);
    }
}

void rsp_tx_str(struct rsp_tx *tx, const char *s)
{
    rsp_tx_bytes(tx, s, strlen(s));
}

void rsp_tx_hex(struct rsp_tx *tx, const uint8_t *p, size_t n)
{
    for (size_t i = 0u; i < n; i++) {
        tx_raw(tx, hexchars[p[i] >> 4]);
        tx_raw(tx, hexchars[p[i] & 15u]);
    }
}

void rsp_tx_reg32(struct rsp_tx *tx, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    rsp_tx_hex(tx, b, 4);
}

void rsp_tx_num(struct rsp_tx *tx, uint32_t v)
{
    unsigned int shift = 28u;
    while ((shift > 0u) && (((v >> shift) & 15u) == 0u)) {
        shift -= 4u;
    }
    /* the digits from the one at shift down to the lowest */
    for (unsigned int s = shift + 4u; s > 0u; s -= 4u) {
        tx_raw(tx, hexchars[(v >> (s - 4u)) & 15u]);
    }
}

void rsp_tx_end(struct rsp_tx *tx)
{
    if (tx->overflow) {     /* never a cut reply: an error instead */
        rsp_tx_begin(tx);
        rsp_tx_str(tx, "E01");
        tx->overflow = true;    /* still says the reply was replaced */
    }
    tx->buf[tx->len] = '#';
    tx->buf[tx->len + 1u] = hexchars[tx->sum >> 4];
    tx->buf[tx->len + 2u] = hexchars[tx->sum & 15u];
    tx->len += 3u;
}

/* ---- hex ---- */

int rsp_hex_decode(const char *hex, size_t n, uint8_t *out, size_t max)
{
    if (n % 2u || n / 2u > max) {
        return -1;
    }
    for (size_t i = 0u; i < n; i += 2u) {
        int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1u]);
        if (hi < 0 || lo < 0) {
            return -1;
        }
        out[i / 2u] = (uint8_t)(((unsigned int)hi << 4u) | (unsigned int)lo);
    }
    size_t bytes = n / 2u;
    return (int)bytes;
}

bool rsp_hex_reg32(const char *hex, uint32_t *v)
{
    uint8_t b[4];
    if (rsp_hex_decode(hex, 8, b, 4) != 4) {
        return false;
    }
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return true;
}

/* ---- requests: a cursor over the packet, never past its end ---- */

struct cur {
    const char *p, *end;
};

/* the bytes left before the packet's end (the cursor never passes it) */
static size_t cur_left(const struct cur *c)
{
    ptrdiff_t n = c->end - c->p;
    return (size_t)n;
}

static bool cur_at_end(const struct cur *c)
{
    return c->p == c->end;
}

static bool cur_eat(struct cur *c, char ch)
{
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return true;
    }
    return false;
}

static bool cur_prefix(struct cur *c, const char *s)
{
    size_t n = strlen(s);
    if ((cur_left(c) < n) || (strncmp(c->p, s, n) != 0)) {
        return false;
    }
    c->p += n;
    return true;
}

/* 1 to 8 hex digits */
static bool cur_hex(struct cur *c, uint32_t *v)
{
    unsigned int n = 0u;
    uint32_t x = 0u;
    int d;
    while (c->p < c->end && (d = hex_digit(*c->p)) >= 0) {
        if (++n > 8u) {
            return false;
        }
        x = x << 4 | (uint32_t)d;
        c->p++;
    }
    *v = x;
    return n > 0u;
}

/* a thread id: hex, or -1 for all */
static bool cur_thread(struct cur *c, int *t)
{
    uint32_t v;
    if (cur_prefix(c, "-1")) {
        *t = RSP_THREAD_ALL;
        return true;
    }
    if (!cur_hex(c, &v) || v > 0xffffu) {
        return false;
    }
    *t = (int)v;
    return true;
}

static enum rsp_cmd_kind ok_if(bool ok, enum rsp_cmd_kind k)
{
    return ok ? k : RSP_CMD_MALFORMED;
}

/* m addr,len / M addr,len:hex */
static enum rsp_cmd_kind decode_mem(struct cur *c, struct rsp_cmd *cmd, bool write)
{
    if (!cur_hex(c, &cmd->addr) || !cur_eat(c, ',') || !cur_hex(c, &cmd->len)) {
        return RSP_CMD_MALFORMED;
    }
    if (!write) {
        return ok_if(cur_at_end(c) && (cmd->len <= RSP_MEM_MAX), RSP_CMD_READ_MEM);
    }
    if (!cur_eat(c, ':')) {
        return RSP_CMD_MALFORMED;
    }
    cmd->data = c->p;
    cmd->data_len = cur_left(c);
    return ok_if((cmd->data_len == (2u * (size_t)cmd->len)) && (cmd->len <= RSP_MEM_MAX),
                 RSP_CMD_WRITE_MEM);
}

/* Z/z type,addr,kind[;cond...] (conditions are not offered: refused) */
static enum rsp_cmd_kind decode_bp(struct cur *c, struct rsp_cmd *cmd, bool insert)
{
    bool ok = cur_hex(c, &cmd->type) && cur_eat(c, ',') && cur_hex(c, &cmd->addr) &&
              cur_eat(c, ',') && cur_hex(c, &cmd->kind_arg) && cur_at_end(c);
    if (ok && cmd->type > 4u) {
        return RSP_CMD_UNKNOWN;
    }
    return ok_if(ok, insert ? RSP_CMD_INSERT_BP : RSP_CMD_REMOVE_BP);
}

/* c [addr] / s [addr] */
static enum rsp_cmd_kind decode_resume(struct cur *c, struct rsp_cmd *cmd,
                                       enum rsp_cmd_kind kind)
{
    if (cur_at_end(c)) {
        return kind;
    }
    cmd->has_addr = true;
    return ok_if(cur_hex(c, &cmd->addr) && cur_at_end(c), kind);
}

/* qXfer:features:read:ANNEX:offset,length */
static enum rsp_cmd_kind decode_xfer(struct cur *c, struct rsp_cmd *cmd)
{
    size_t left = cur_left(c);
    const char *annex = c->p;
    size_t alen = 0u;   /* the annex: up to the colon */
    while ((alen < left) && (annex[alen] != ':')) {
        alen++;
    }
    enum rsp_cmd_kind kind = RSP_CMD_MALFORMED;
    if ((alen < left) && (alen < sizeof(cmd->annex))) {
        (void)memcpy(cmd->annex, c->p, alen);
        cmd->annex[alen] = '\0';
        c->p = &c->p[alen + 1u];
        kind = ok_if(cur_hex(c, &cmd->addr) && cur_eat(c, ',') && cur_hex(c, &cmd->len) &&
                     cur_at_end(c), RSP_CMD_XFER_FEATURES);
    }
    return kind;
}

static enum rsp_cmd_kind decode_query(struct cur *c, struct rsp_cmd *cmd)
{
    if (cur_prefix(c, "qSupported")) {
        return RSP_CMD_SUPPORTED;   /* gdb's features: we need none of them */
    }
    if (cur_prefix(c, "qXfer:features:read:")) {
        return decode_xfer(c, cmd);
    }
    if (cur_prefix(c, "qThreadExtraInfo,")) {
        return ok_if(cur_thread(c, &cmd->thread) && cur_at_end(c), RSP_CMD_THREAD_EXTRA);
    }
    static const struct rsp_query { const char *name; enum rsp_cmd_kind kind; } exact[] = {
        { "qfThreadInfo", RSP_CMD_THREAD_FIRST }, { "qsThreadInfo", RSP_CMD_THREAD_NEXT },
        { "qC", RSP_CMD_CURRENT_THREAD }, { "qAttached", RSP_CMD_ATTACHED },
    };
    for (size_t i = 0u; i < sizeof(exact) / sizeof(exact[0]); i++) {
        struct cur k = *c;
        if (cur_prefix(&k, exact[i].name) && (cur_at_end(&k) || *k.p == ':')) {
            return exact[i].kind;
        }
    }
    return RSP_CMD_UNKNOWN;
}

static enum rsp_cmd_kind decode_regs(struct cur *c, struct rsp_cmd *cmd, char what)
{
    switch (what) {
    case 'g':
        return ok_if(cur_at_end(c), RSP_CMD_READ_REGS);
    case 'G':
        cmd->data = c->p;
        cmd->data_len = cur_left(c);
        return ok_if(cmd->data_len % 8u == 0u && cmd->data_len, RSP_CMD_WRITE_REGS);
    case 'p':
        return ok_if(cur_hex(c, &cmd->reg) && cur_at_end(c), RSP_CMD_READ_REG);
    default:        /* P n=v: a 32-bit register, or a 64-bit one (VFP dN) */
        if (!cur_hex(c, &cmd->reg) || !cur_eat(c, '=') ||
            (c->end - c->p != 8 && c->end - c->p != 16)) {
            return RSP_CMD_MALFORMED;
            }
        cmd->wide = (cur_left(c) == 16u);
        return ok_if(rsp_hex_reg32(c->p, &cmd->value) &&
                     (!cmd->wide || rsp_hex_reg32(c->p + 8, &cmd->value_hi)), RSP_CMD_WRITE_REG);
    }
}

static enum rsp_cmd_kind decode_one(struct cur *c, struct rsp_cmd *cmd)
{
    char k = *c->p++;
    switch (k) {
    case '?':
        return ok_if(cur_at_end(c), RSP_CMD_STATUS);
    case 'g': case 'G': case 'p': case 'P':
        return decode_regs(c, cmd, k);
    case 'm': case 'M':
        return decode_mem(c, cmd, k == 'M');
    case 'c':
        return decode_resume(c, cmd, RSP_CMD_CONTINUE);
    case 's':
        return decode_resume(c, cmd, RSP_CMD_STEP);
    case 'D':   /* "D" or "D;pid" */
        return RSP_CMD_DETACH;
    case 'k':
        return RSP_CMD_KILL;
    case 'H':
        if (c->p == c->end || (*c->p != 'g' && *c->p != 'c')) {
            return RSP_CMD_UNKNOWN;
        }
        cmd->op = *c->p++;
        return ok_if(cur_thread(c, &cmd->thread) && cur_at_end(c), RSP_CMD_SET_THREAD);
    case 'T':
        return ok_if(cur_thread(c, &cmd->thread) && cur_at_end(c), RSP_CMD_THREAD_ALIVE);
    case 'Z': case 'z':
        return decode_bp(c, cmd, k == 'Z');
    case 'q':
        c->p--;
        return decode_query(c, cmd);
    default:
        return RSP_CMD_UNKNOWN;
    }
}

void rsp_decode(const char *pkt, size_t len, struct rsp_cmd *cmd)
{
    (void)memset(cmd, 0, sizeof(*cmd));
    if (len == 0u) {
        cmd->kind = RSP_CMD_UNKNOWN;
        return;
    }
    struct cur c = { pkt, pkt + len };
    cmd->kind = decode_one(&c, cmd);
}
