/*
 * Host unit tests for the virtio network devices and their switch
 * (hyp/vdev/virtio_net.c over hyp/vdev/virtio_mmio.c and virtq.c): a fake
 * driver per member, written from the virtio 1.x spec, sets its device up
 * through the registers in a fake guest RAM, and frames go between the
 * members of config-network.dts as the real parser reads it.  Then hostile
 * drivers: every malformed ring puts that device (only) into NEEDS_RESET.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libfdt.h>
#include "fixture.h"
#include "hyp/vdev/virtio_net.h"
#include "hyp/platform/platform.h"

#define RAM_IPA   0x40000000u
#define RAM_SIZE  0x20000u
#define QN        8u            /* the fake driver's queue size */
/* where the fake driver puts things in its RAM (offsets) */
#define RING(q)   (0x1000u + (q) * 0x1000u)     /* desc table; avail +0x100, used +0x200 */
#define BUF(q, i) (0x4000u + (q) * 0x8000u + (i) * 0x800u)

enum { LINUX, RT, ECHO, NPORTS };

static struct system_config sys;
static struct net_switch sw;
static struct net_port ports[NPORTS];
static uint8_t *ram[NPORTS];
static unsigned int raised[NPORTS];
static char reported[NPORTS][96];
static uint16_t rx_avail[NPORTS], tx_avail[NPORTS], rx_seen[NPORTS];

static void on_raise(struct net_port *p) { raised[p - ports]++; }
static uint64_t ticks;
static uint64_t now(void) { return ticks; }
static uint8_t *frame_buffer(void)
{
    static uint8_t buf[NET_BUF_SIZE];
    return buf;
}
static void on_report(struct net_port *p, const char *why)
{
    snprintf(reported[p - ports], sizeof(reported[0]), "%s", why);
}

/* ---- the fake driver: registers ---- */

static uint32_t rd(unsigned int g, uint32_t off)
{
    struct mmio_access a = { .size = 4, .write = false };
    assert_true(net_port_mmio(&ports[g], &a, off));
    return a.value;
}

static void wr(unsigned int g, uint32_t off, uint32_t v)
{
    struct mmio_access a = { .size = 4, .write = true, .value = v };
    assert_true(net_port_mmio(&ports[g], &a, off));
}

static uint8_t *at(unsigned int g, uint32_t off) { return ram[g] + off; }
static void put16(unsigned int g, uint32_t off, uint16_t v) { memcpy(at(g, off), &v, 2); }
static uint16_t get16(unsigned int g, uint32_t off) { uint16_t v; memcpy(&v, at(g, off), 2); return v; }
static uint32_t get32(unsigned int g, uint32_t off) { uint32_t v; memcpy(&v, at(g, off), 4); return v; }

static void put_desc(unsigned int g, unsigned int q, unsigned int i, uint64_t addr, uint32_t len,
                     uint16_t flags, uint16_t next)
{
    uint8_t *d = at(g, RING(q) + i * 16);
    memcpy(d, &addr, 8);
    memcpy(d + 8, &len, 4);
    memcpy(d + 12, &flags, 2);
    memcpy(d + 14, &next, 2);
}

static void setup_queue(unsigned int g, unsigned int q)
{
    wr(g, VMMIO_QUEUE_SEL, q);
    assert_int_equal(rd(g, VMMIO_QUEUE_READY), 0);
    assert_int_equal(rd(g, VMMIO_QUEUE_NUM_MAX), VIRTQ_NUM_MAX);
    wr(g, VMMIO_QUEUE_NUM, QN);
    wr(g, VMMIO_QUEUE_DESC_LOW, RAM_IPA + RING(q));
    wr(g, VMMIO_QUEUE_DESC_HIGH, 0);
    wr(g, VMMIO_QUEUE_DRIVER_LOW, RAM_IPA + RING(q) + 0x100);
    wr(g, VMMIO_QUEUE_DEVICE_LOW, RAM_IPA + RING(q) + 0x200);
    wr(g, VMMIO_QUEUE_READY, 1);
}

/* the initialization of 3.1.1 */
static void driver_init(unsigned int g)
{
    memset(ram[g], 0, RAM_SIZE);
    rx_avail[g] = tx_avail[g] = rx_seen[g] = 0;
    wr(g, VMMIO_STATUS, 0);
    wr(g, VMMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE);
    wr(g, VMMIO_STATUS, VIRTIO_STATUS_ACKNOWLEDGE | VIRTIO_STATUS_DRIVER);
    wr(g, VMMIO_DEVICE_FEATURES_SEL, 1);
    uint64_t f = (uint64_t)rd(g, VMMIO_DEVICE_FEATURES) << 32;
    wr(g, VMMIO_DEVICE_FEATURES_SEL, 0);
    f |= rd(g, VMMIO_DEVICE_FEATURES);
    assert_true(f & VIRTIO_F_VERSION_1);
    assert_true(f & VIRTIO_NET_F_MAC);
    wr(g, VMMIO_DRIVER_FEATURES_SEL, 0);
    wr(g, VMMIO_DRIVER_FEATURES, (uint32_t)f);
    wr(g, VMMIO_DRIVER_FEATURES_SEL, 1);
    wr(g, VMMIO_DRIVER_FEATURES, (uint32_t)(f >> 32));
    wr(g, VMMIO_STATUS, 0xb);
    assert_int_equal(rd(g, VMMIO_STATUS), 0xb);         /* FEATURES_OK kept */
    setup_queue(g, NET_QUEUE_RX);
    setup_queue(g, NET_QUEUE_TX);
    wr(g, VMMIO_STATUS, 0xf);
}

/* n RX buffers of len bytes each, one descriptor each */
static void give_rx(unsigned int g, unsigned int n, uint32_t len)
{
    for (unsigned int i = 0; i < n; i++) {
        unsigned int d = rx_avail[g] % QN;
        put_desc(g, NET_QUEUE_RX, d, RAM_IPA + BUF(NET_QUEUE_RX, d), len,
                 VIRTQ_DESC_F_WRITE, 0);
        put16(g, RING(NET_QUEUE_RX) + 0x100 + 4 + 2 * d, (uint16_t)d);
        put16(g, RING(NET_QUEUE_RX) + 0x100 + 2, ++rx_avail[g]);
    }
    wr(g, VMMIO_QUEUE_NOTIFY, NET_QUEUE_RX);
}

/* a frame from g to dst: header and frame in two descriptors; no notify */
static void queue_tx(unsigned int g, const uint8_t *dst, const uint8_t *src, const char *text)
{
    unsigned int d = (tx_avail[g] % QN) & ~1u, slot = tx_avail[g] % QN;
    d = (2 * slot) % QN;
    uint32_t hdr = BUF(NET_QUEUE_TX, d), body = BUF(NET_QUEUE_TX, d + 1);
    memset(at(g, hdr), 0, NET_HDR_LEN);
    memcpy(at(g, body), dst, 6);
    memcpy(at(g, body + 6), src, 6);
    at(g, body)[12] = 0x88;
    at(g, body)[13] = 0xb5;                     /* local experimental ethertype */
    size_t tl = strlen(text);
    memcpy(at(g, body + 14), text, tl);
    put_desc(g, NET_QUEUE_TX, d, RAM_IPA + hdr, NET_HDR_LEN, VIRTQ_DESC_F_NEXT, (uint16_t)(d + 1));
    put_desc(g, NET_QUEUE_TX, d + 1, RAM_IPA + body, (uint32_t)(14 + tl), 0, 0);
    put16(g, RING(NET_QUEUE_TX) + 0x100 + 4 + 2 * slot, (uint16_t)d);
    put16(g, RING(NET_QUEUE_TX) + 0x100 + 2, ++tx_avail[g]);
}

static void send(unsigned int g, const uint8_t *dst, const char *text)
{
    queue_tx(g, dst, ports[g].cfg->mac, text);
    wr(g, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
}

/* the next received frame's text, or NULL */
static const char *receive(unsigned int g)
{
    static char text[64];
    uint32_t used = RING(NET_QUEUE_RX) + 0x200;
    if (get16(g, used + 2) == rx_seen[g])
        return NULL;
    unsigned int slot = rx_seen[g]++ % QN;
    uint32_t id = get32(g, used + 4 + 8 * slot), len = get32(g, used + 8 + 8 * slot);
    const uint8_t *b = at(g, BUF(NET_QUEUE_RX, id));
    assert_int_equal(get16(g, BUF(NET_QUEUE_RX, id) + NET_HDR_NUM_BUFFERS), 1);
    assert_true(len >= NET_HDR_LEN + 14 && len - NET_HDR_LEN - 14 < sizeof(text));
    memcpy(text, b + NET_HDR_LEN + 14, len - NET_HDR_LEN - 14);
    text[len - NET_HDR_LEN - 14] = 0;
    return text;
}

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t mcast[6] = { 0x33, 0x33, 0, 0, 0, 1 };

static const uint8_t *mac(unsigned int g) { return sys.guest_cfg[g].nets[0].mac; }

/* ---- fixture ---- */

static int setup(void **state)
{
    char err[160];
    static struct platform plat;
    void *host = fixture_load("qemu-virt", 0, NULL);
    void *cfg = fixture_load("config-network", 0, NULL);
    assert_int_equal(platform_probe(host, &plat, err, sizeof(err)), 0);
    struct config_host h = { &plat, 0x40000000, 0x40800000, host, 0, false, NULL, 0 };
    assert_int_equal(config_load(cfg, &h, &sys, NULL, NULL), 0);
    memset(&sw, 0, sizeof(sw));
    sw.raise = on_raise;
    sw.report = on_report;
    sw.frame_buffer = frame_buffer;
    sw.now = now;
    sw.freq = 1000;                 /* ticks a second */
    ticks = 0;
    for (unsigned int g = 0; g < NPORTS; g++) {
        ram[g] = calloc(1, RAM_SIZE);
        net_port_init(&ports[g], &sw, &sys.guest_cfg[g].nets[0]);
        net_port_attach(&ports[g], (struct gmem){ RAM_IPA, RAM_SIZE, ram[g] });
        driver_init(g);
        raised[g] = 0;
        reported[g][0] = 0;
    }
    *state = cfg;
    free(host);
    return 0;
}

static int teardown(void **state)
{
    for (unsigned int g = 0; g < NPORTS; g++)
        free(ram[g]);
    free(*state);
    return 0;
}

/* ---- the register file ---- */

static void test_identity_and_config(void **state)
{
    assert_int_equal(rd(RT, VMMIO_MAGIC_VALUE), VMMIO_MAGIC);
    assert_int_equal(rd(RT, VMMIO_VERSION), 2);
    assert_int_equal(rd(RT, VMMIO_DEVICE_ID), VIRTIO_ID_NET);
    /* the MAC and link status, by bytes and words */
    for (unsigned int i = 0; i < 6; i++) {
        struct mmio_access a = { .size = 1 };
        assert_true(net_port_mmio(&ports[RT], &a, VMMIO_CONFIG + i));
        assert_int_equal(a.value, mac(RT)[i]);
    }
    struct mmio_access a = { .size = 2 };
    assert_true(net_port_mmio(&ports[RT], &a, VMMIO_CONFIG + NET_CONFIG_STATUS));
    assert_int_equal(a.value, VIRTIO_NET_S_LINK_UP);
    assert_int_equal(rd(RT, VMMIO_CONFIG), 0x00545002);    /* 02:50:54:00, little-endian */
    /* registers are 32-bit only; the configuration space is read-only */
    a = (struct mmio_access){ .size = 2 };
    assert_false(net_port_mmio(&ports[RT], &a, VMMIO_STATUS));
    a = (struct mmio_access){ .size = 4 };
    assert_false(net_port_mmio(&ports[RT], &a, VMMIO_CONFIG + 2));
    wr(RT, VMMIO_CONFIG, 0);
    assert_int_equal(rd(RT, VMMIO_CONFIG), 0x00545002);
    /* no third queue */
    wr(RT, VMMIO_QUEUE_SEL, 2);
    assert_int_equal(rd(RT, VMMIO_QUEUE_NUM_MAX), 0);
}

static void test_features_ok_needs_version_1(void **state)
{
    wr(ECHO, VMMIO_STATUS, 0);
    assert_int_equal(rd(ECHO, VMMIO_STATUS), 0);
    wr(ECHO, VMMIO_STATUS, 3);
    wr(ECHO, VMMIO_DRIVER_FEATURES_SEL, 1);
    wr(ECHO, VMMIO_DRIVER_FEATURES, 0);                 /* a legacy driver */
    wr(ECHO, VMMIO_STATUS, 0xb);
    assert_int_equal(rd(ECHO, VMMIO_STATUS), 3);
    wr(ECHO, VMMIO_DRIVER_FEATURES, 1 | 2);             /* VERSION_1 and one not offered */
    wr(ECHO, VMMIO_STATUS, 0xb);
    assert_int_equal(rd(ECHO, VMMIO_STATUS), 3);
    wr(ECHO, VMMIO_DRIVER_FEATURES, 1);
    wr(ECHO, VMMIO_STATUS, 0xb);
    assert_int_equal(rd(ECHO, VMMIO_STATUS), 0xb);
}

/* ---- switching ---- */

static void test_unicast(void **state)
{
    give_rx(RT, 4, 0x800);
    give_rx(ECHO, 4, 0x800);
    memset(raised, 0, sizeof(raised));
    send(LINUX, mac(RT), "hello rt");
    assert_string_equal(receive(RT), "hello rt");
    assert_null(receive(RT));
    assert_null(receive(ECHO));                         /* not for it */
    assert_int_equal(raised[RT], 1);
    assert_int_equal(raised[LINUX], 1);                 /* its TX buffer is used */
    assert_int_equal(raised[ECHO], 0);
    assert_int_equal(rd(RT, VMMIO_INTERRUPT_STATUS), VMMIO_INT_VRING);
    wr(RT, VMMIO_INTERRUPT_ACK, VMMIO_INT_VRING);
    assert_int_equal(rd(RT, VMMIO_INTERRUPT_STATUS), 0);
    /* the sender's chain came back used */
    assert_int_equal(get16(LINUX, RING(NET_QUEUE_TX) + 0x200 + 2), 1);
    assert_int_equal(ports[LINUX].st.tx_frames, 1);
    assert_int_equal(ports[RT].st.rx_frames, 1);
}

static void test_broadcast_and_multicast(void **state)
{
    give_rx(LINUX, 4, 0x800);
    give_rx(RT, 4, 0x800);
    give_rx(ECHO, 4, 0x800);
    send(ECHO, bcast, "who has");
    assert_string_equal(receive(LINUX), "who has");
    assert_string_equal(receive(RT), "who has");
    assert_null(receive(ECHO));                         /* never back to the sender */
    send(RT, mcast, "ipv6 all nodes");
    assert_string_equal(receive(LINUX), "ipv6 all nodes");
    assert_string_equal(receive(ECHO), "ipv6 all nodes");
    assert_null(receive(RT));
}

static void test_drops_counted(void **state)
{
    const uint8_t nobody[6] = { 2, 9, 9, 9, 9, 9 };
    give_rx(RT, 1, 0x800);
    send(LINUX, nobody, "lost");                        /* unknown destination */
    queue_tx(LINUX, mac(RT), mac(ECHO), "spoofed");     /* another member's source */
    wr(LINUX, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
    assert_int_equal(ports[LINUX].st.tx_dropped, 2);
    assert_null(receive(RT));
    send(LINUX, mac(RT), "one");
    send(LINUX, mac(RT), "two");                        /* rt has one buffer only */
    assert_string_equal(receive(RT), "one");
    assert_null(receive(RT));
    assert_int_equal(ports[RT].st.rx_dropped, 1);
    assert_int_equal(ports[RT].st.errors, 0);
    /* a buffer too small for the frame is consumed empty and that frame
     * dropped (virtio 1.x 5.1.6.3): the next frame takes the next buffer
     * (it was once put back at the head, and every later frame dropped) */
    give_rx(RT, 1, NET_HDR_LEN + 4);
    give_rx(RT, 1, 0x800);
    unsigned int before = raised[RT];
    send(LINUX, mac(RT), "three");
    assert_int_equal(ports[RT].st.rx_dropped, 2);
    assert_int_equal(get16(RT, RING(NET_QUEUE_RX) + 0x200 + 2), rx_seen[RT] + 1);
    unsigned int slot = rx_seen[RT]++ % QN;
    assert_int_equal(get32(RT, RING(NET_QUEUE_RX) + 0x200 + 8 + 8 * slot), 0);     /* len 0 */
    assert_int_equal(raised[RT], before + 1);          /* the driver gets it back */
    send(LINUX, mac(RT), "four");
    assert_string_equal(receive(RT), "four");
    assert_int_equal(ports[RT].st.rx_dropped, 2);
    assert_int_equal(ports[RT].st.rx_frames, 2);
    /* a whole queue of small buffers: each frame uses one up, none stalls */
    give_rx(RT, QN, NET_HDR_LEN);
    for (unsigned int i = 0; i < QN; i++)
        send(LINUX, mac(RT), "small");
    assert_int_equal(ports[RT].st.rx_dropped, 2 + QN);
    give_rx(RT, 1, 0x800);
    send(LINUX, mac(RT), "five");
    rx_seen[RT] += QN;
    assert_string_equal(receive(RT), "five");
    assert_int_equal(rd(RT, VMMIO_STATUS), 0xf);        /* no fault of the driver */
}

/* a device that is not DRIVER_OK, or a stopped guest, receives nothing */
static void test_not_ready_receives_nothing(void **state)
{
    give_rx(RT, 2, 0x800);
    wr(RT, VMMIO_STATUS, 0);
    send(LINUX, mac(RT), "reset");
    assert_int_equal(ports[RT].st.rx_dropped, 1);
    driver_init(RT);
    give_rx(RT, 2, 0x800);
    net_port_detach(&ports[RT]);
    send(LINUX, mac(RT), "stopped");
    assert_int_equal(get16(RT, RING(NET_QUEUE_RX) + 0x200 + 2), 0);
}

/* a flood: one exit sends the budget, the rest when the driver reads ISR */
static void test_budget_bounds_one_exit(void **state)
{
    give_rx(LINUX, QN, 0x800);
    for (unsigned int i = 0; i < QN / 2; i++)
        queue_tx(RT, mac(LINUX), mac(RT), "f");
    struct net_port *rt = &ports[RT];
    unsigned int budget = rt->cfg->budget;
    assert_int_equal(budget, 16);
    ((struct guest_net *)rt->cfg)->budget = 3;
    wr(RT, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
    assert_int_equal(rt->st.tx_frames, 3);
    rd(RT, VMMIO_INTERRUPT_STATUS);                     /* its handler: 1 more run */
    assert_int_equal(rt->st.tx_frames, 4);
    ((struct guest_net *)rt->cfg)->budget = budget;
    assert_int_equal(ports[LINUX].st.rx_frames, 4);
}

/* A sender whose every avail entry is one chain of 256 descriptors (the
 * most a queue can name): one exit stops at NET_TX_DESCS_PER_EXIT however
 * large its frame-budget; what is left goes on at the ISR read */
#define BIG_TX   0x14000u       /* desc table; avail +0x1000, used +0x2000 */
#define BIG_DATA 0x18000u

/* queue q of member g: 256 entries at BIG_TX, every avail entry descriptor
 * 0 (a whole queue made available); descriptors 0..n-1 one chain of
 * buffers at addr (offset in its RAM), len bytes each */
static void big_queue(unsigned int g, unsigned int q, unsigned int n, uint32_t addr, uint32_t len,
                      uint16_t flags)
{
    wr(g, VMMIO_QUEUE_SEL, q);
    wr(g, VMMIO_QUEUE_READY, 0);
    wr(g, VMMIO_QUEUE_NUM, VIRTQ_NUM_MAX);
    wr(g, VMMIO_QUEUE_DESC_LOW, RAM_IPA + BIG_TX);
    wr(g, VMMIO_QUEUE_DRIVER_LOW, RAM_IPA + BIG_TX + 0x1000);
    wr(g, VMMIO_QUEUE_DEVICE_LOW, RAM_IPA + BIG_TX + 0x2000);
    memset(at(g, BIG_TX), 0, 0x3000);
    wr(g, VMMIO_QUEUE_READY, 1);
    for (unsigned int i = 0; i < n; i++) {
        /* readable buffers one after the other, writable ones all the same */
        uint64_t a = RAM_IPA + addr + (flags & VIRTQ_DESC_F_WRITE ? 0 : i * len);
        uint16_t fl = (uint16_t)(flags | (i + 1 < n ? VIRTQ_DESC_F_NEXT : 0)), next = (uint16_t)(i + 1);
        uint8_t *d = at(g, BIG_TX + 16 * i);
        memcpy(d, &a, 8);
        memcpy(d + 8, &len, 4);
        memcpy(d + 12, &fl, 2);
        memcpy(d + 14, &next, 2);
    }
    put16(g, BIG_TX + 0x1000 + 2, VIRTQ_NUM_MAX);
}

static void test_descriptor_bound_per_exit(void **state)
{
    struct guest_net *gn = (struct guest_net *)ports[RT].cfg;
    gn->budget = NET_BUDGET_MAX;
    give_rx(LINUX, QN, 0x800);
    /* a header of 12 bytes, then 255 descriptors of one byte each */
    big_queue(RT, NET_QUEUE_TX, VIRTQ_NUM_MAX, BIG_DATA + 0x10 - 1, 1, 0);
    uint32_t hdr_len = NET_HDR_LEN;
    uint64_t hdr = RAM_IPA + BIG_DATA;
    memcpy(at(RT, BIG_TX), &hdr, 8);
    memcpy(at(RT, BIG_TX + 8), &hdr_len, 4);
    uint8_t *f = at(RT, BIG_DATA + 0x10);
    memcpy(f, mac(LINUX), 6);
    memcpy(f + 6, mac(RT), 6);
    wr(RT, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
    assert_int_equal(ports[RT].st.tx_frames, NET_TX_DESCS_PER_EXIT / VIRTQ_NUM_MAX);
    assert_true(ports[RT].last_descs < NET_TX_DESCS_PER_EXIT + NET_FRAME_DESCS_MAX);
    assert_true(ports[RT].last_bytes < NET_TX_BYTES_PER_EXIT + NET_FRAME_BYTES_MAX);
    assert_int_equal(ports[LINUX].st.rx_frames, QN);
    rd(RT, VMMIO_INTERRUPT_STATUS);                     /* its handler: one more run */
    assert_int_equal(ports[RT].st.tx_frames, 2 * NET_TX_DESCS_PER_EXIT / VIRTQ_NUM_MAX);
    assert_int_equal(rd(RT, VMMIO_STATUS), 0xf);
    gn->budget = 16;
}

/* Largest frames broadcast to two members with a whole queue of buffers
 * each: one exit stops at NET_TX_BYTES_PER_EXIT */
static void test_byte_bound_per_exit(void **state)
{
    struct guest_net *gn = (struct guest_net *)ports[RT].cfg;
    gn->budget = NET_BUDGET_MAX;
    const uint32_t frame = NET_HDR_LEN + NET_FRAME_MAX;
    big_queue(RT, NET_QUEUE_TX, 1, BIG_DATA, frame, 0);
    uint8_t *f = at(RT, BIG_DATA + NET_HDR_LEN);
    memcpy(f, bcast, 6);
    memcpy(f + 6, mac(RT), 6);
    big_queue(LINUX, NET_QUEUE_RX, 1, BIG_DATA, 0x800, VIRTQ_DESC_F_WRITE);
    big_queue(ECHO, NET_QUEUE_RX, 1, BIG_DATA, 0x800, VIRTQ_DESC_F_WRITE);
    wr(RT, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
    /* each frame: copied out once, written at two members */
    uint32_t per_frame = 3 * frame, sent = ports[RT].st.tx_frames;
    assert_int_equal(sent, (NET_TX_BYTES_PER_EXIT + per_frame - 1) / per_frame);
    assert_int_equal(ports[RT].last_bytes, sent * per_frame);
    assert_int_equal(ports[LINUX].st.rx_frames, sent);
    assert_int_equal(ports[ECHO].st.rx_frames, sent);
    rd(RT, VMMIO_INTERRUPT_STATUS);                     /* the rest of the queue */
    assert_int_equal(ports[RT].st.tx_frames, VIRTQ_NUM_MAX);
    gn->budget = 16;
}

/* frame-rate: a burst of the frame budget, then one a period; the rest dropped */
static void test_frame_rate(void **state)
{
    struct guest_net *gn = (struct guest_net *)ports[RT].cfg;
    gn->rate = 10;                  /* a frame every 100 ticks */
    gn->budget = 2;
    give_rx(LINUX, QN, 0x800);
    for (unsigned int i = 0; i < 4; i++)
        send(RT, mac(LINUX), "r");
    assert_int_equal(ports[LINUX].st.rx_frames, 2);
    assert_int_equal(ports[RT].st.tx_dropped, 2);
    assert_int_equal(ports[RT].st.tx_frames, 4);       /* taken off its queue all the same */
    ticks += 100;
    send(RT, mac(LINUX), "r");
    send(RT, mac(LINUX), "r");
    assert_int_equal(ports[LINUX].st.rx_frames, 3);
    assert_int_equal(ports[RT].st.tx_dropped, 3);
    gn->rate = 0;
    gn->budget = 16;
}

/* ---- hostile drivers ---- */

static void expect_needs_reset(unsigned int g, const char *why)
{
    assert_true(rd(g, VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
    assert_true(rd(g, VMMIO_INTERRUPT_STATUS) & VMMIO_INT_CONFIG);
    assert_non_null(strstr(reported[g], why));
    assert_int_equal(ports[g].st.errors, 1);
    assert_true(raised[g] >= 1);
    /* the others go on */
    give_rx(ECHO, 1, 0x800);
    send(g == LINUX ? RT : LINUX, mac(ECHO), "still here");
    assert_string_equal(receive(ECHO), "still here");
    /* and the device works again after a reset */
    driver_init(g);
    assert_int_equal(rd(g, VMMIO_STATUS), 0xf);
    give_rx(g, 1, 0x800);
    send(ECHO, mac(g), "back");
    assert_string_equal(receive(g), "back");
}

static void test_tx_avail_idx_runs_ahead(void **state)
{
    put16(LINUX, RING(NET_QUEUE_TX) + 0x100 + 2, QN + 1);
    wr(LINUX, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
    expect_needs_reset(LINUX, "avail idx");
    /* nothing more is taken from a device in NEEDS_RESET */
}

static void test_tx_head_past_table(void **state)
{
    put16(LINUX, RING(NET_QUEUE_TX) + 0x100 + 4, QN);
    put16(LINUX, RING(NET_QUEUE_TX) + 0x100 + 2, 1);
    wr(LINUX, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
    expect_needs_reset(LINUX, "past the table");
}

static void test_tx_buffer_outside_ram(void **state)
{
    const uint64_t bad[] = { RAM_IPA - 4, RAM_IPA + RAM_SIZE - 8, 0x08000000, 0xfffffffffffffff0ull };
    for (unsigned int i = 0; i < 4; i++) {
        memset(raised, 0, sizeof(raised));
        put_desc(RT, NET_QUEUE_TX, 0, bad[i], 64, 0, 0);
        put16(RT, RING(NET_QUEUE_TX) + 0x100 + 2, 1);
        wr(RT, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
        expect_needs_reset(RT, "outside the guest's RAM");
        ports[RT].st.errors = 0;
    }
}

static void test_tx_descriptor_loop(void **state)
{
    put_desc(LINUX, NET_QUEUE_TX, 0, RAM_IPA + BUF(1, 0), 16, VIRTQ_DESC_F_NEXT, 1);
    put_desc(LINUX, NET_QUEUE_TX, 1, RAM_IPA + BUF(1, 1), 16, VIRTQ_DESC_F_NEXT, 0);
    put16(LINUX, RING(NET_QUEUE_TX) + 0x100 + 2, 1);
    wr(LINUX, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
    expect_needs_reset(LINUX, "loops");
}

static void test_tx_indirect_and_writable(void **state)
{
    put_desc(LINUX, NET_QUEUE_TX, 0, RAM_IPA + BUF(1, 0), 16, VIRTQ_DESC_F_INDIRECT, 0);
    put16(LINUX, RING(NET_QUEUE_TX) + 0x100 + 2, 1);
    wr(LINUX, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
    expect_needs_reset(LINUX, "indirect");
    ports[LINUX].st.errors = 0;
    put_desc(LINUX, NET_QUEUE_TX, 0, RAM_IPA + BUF(1, 0), 16, VIRTQ_DESC_F_WRITE, 0);
    put16(LINUX, RING(NET_QUEUE_TX) + 0x100 + 2, 1);
    wr(LINUX, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
    expect_needs_reset(LINUX, "wrong direction");
}

/* the receiver's ring is bad: the receiver's fault, not the sender's */
static void test_rx_ring_malformed(void **state)
{
    put_desc(RT, NET_QUEUE_RX, 0, RAM_IPA + BUF(0, 0), 0x800, 0, 0);   /* not writable */
    put16(RT, RING(NET_QUEUE_RX) + 0x100 + 2, 1);
    send(LINUX, mac(RT), "to a bad ring");
    assert_int_equal(ports[LINUX].st.errors, 0);
    assert_int_equal(rd(LINUX, VMMIO_STATUS), 0xf);
    expect_needs_reset(RT, "wrong direction");
}

static void test_queue_setup_malformed(void **state)
{
    const struct { uint32_t num, desc; const char *why; } bad[] = {
        { 0, RAM_IPA + RING(0), "queue size" },
        { 6, RAM_IPA + RING(0), "queue size" },
        { 512, RAM_IPA + RING(0), "queue size" },
        { 8, RAM_IPA + RING(0) + 8, "unaligned or outside" },
        { 8, RAM_IPA + RAM_SIZE - 64, "unaligned or outside" },
        { 8, 0x08000000, "unaligned or outside" },
    };
    for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        wr(ECHO, VMMIO_STATUS, 0);
        wr(ECHO, VMMIO_QUEUE_SEL, 0);
        wr(ECHO, VMMIO_QUEUE_NUM, bad[i].num);
        wr(ECHO, VMMIO_QUEUE_DESC_LOW, bad[i].desc);
        wr(ECHO, VMMIO_QUEUE_DRIVER_LOW, RAM_IPA + RING(0) + 0x100);
        wr(ECHO, VMMIO_QUEUE_DEVICE_LOW, RAM_IPA + RING(0) + 0x200);
        wr(ECHO, VMMIO_QUEUE_READY, 1);
        assert_int_equal(rd(ECHO, VMMIO_QUEUE_READY), 0);
        assert_true(rd(ECHO, VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
        assert_non_null(strstr(reported[ECHO], bad[i].why));
    }
    /* the high half of an address counts */
    wr(ECHO, VMMIO_STATUS, 0);
    wr(ECHO, VMMIO_QUEUE_NUM, 8);
    wr(ECHO, VMMIO_QUEUE_DESC_LOW, RAM_IPA + RING(0));
    wr(ECHO, VMMIO_QUEUE_DESC_HIGH, 1);
    wr(ECHO, VMMIO_QUEUE_DRIVER_LOW, RAM_IPA + RING(0) + 0x100);
    wr(ECHO, VMMIO_QUEUE_DEVICE_LOW, RAM_IPA + RING(0) + 0x200);
    wr(ECHO, VMMIO_QUEUE_READY, 1);
    assert_true(rd(ECHO, VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
    /* the driver cannot clear NEEDS_RESET but by a reset */
    wr(ECHO, VMMIO_STATUS, 0xf);
    assert_true(rd(ECHO, VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET);
    driver_init(ECHO);
    assert_int_equal(rd(ECHO, VMMIO_STATUS), 0xf);
}

/* random rings: never a crash (ASan), and the others keep going */
static void test_random_rings(void **state)
{
    srand(17);
    for (unsigned int round = 0; round < 2000; round++) {
        for (unsigned int i = 0; i < 0x300; i++)
            at(LINUX, RING(NET_QUEUE_TX) + i)[0] = (uint8_t)rand();
        if (rand() & 1)
            for (unsigned int i = 0; i < 0x300; i++)
                at(LINUX, RING(NET_QUEUE_RX) + i)[0] = (uint8_t)rand();
        wr(LINUX, VMMIO_QUEUE_NOTIFY, NET_QUEUE_TX);
        send(RT, mac(LINUX), "x");
        give_rx(ECHO, 1, 0x800);
        send(RT, mac(ECHO), "fine");
        assert_string_equal(receive(ECHO), "fine");
        if (rd(LINUX, VMMIO_STATUS) & VIRTIO_STATUS_NEEDS_RESET)
            driver_init(LINUX);
    }
    assert_int_equal(ports[RT].st.errors + ports[ECHO].st.errors, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_identity_and_config, setup, teardown),
        cmocka_unit_test_setup_teardown(test_features_ok_needs_version_1, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unicast, setup, teardown),
        cmocka_unit_test_setup_teardown(test_broadcast_and_multicast, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drops_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_ready_receives_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budget_bounds_one_exit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_descriptor_bound_per_exit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_byte_bound_per_exit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_frame_rate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tx_avail_idx_runs_ahead, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tx_head_past_table, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tx_buffer_outside_ram, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tx_descriptor_loop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tx_indirect_and_writable, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rx_ring_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_queue_setup_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_rings, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
