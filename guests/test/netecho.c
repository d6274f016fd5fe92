/*
 * A bare-metal member of a Partita network (docs/networks.md) over the
 * virtio-mmio driver of guests/lib/vnet.c.  bootargs: "net=BASE,INTID
 * ip=ADDR" (an IPv4 link-local address as a number, 169.254.0.0/16) and
 *   peer=ADDR count=N   ping: polled; ARP for the peer, then N ICMP echo
 *                       requests each answered in time and intact; tests,
 *                       then power off;
 *   (no peer)           echo: interrupt-driven; answers ARP requests for
 *                       its address and ICMP echo requests, forever;
 *   flood=1             flood: broadcasts marker frames as fast as its
 *                       queue takes them, a burst per notify, forever;
 *   hostile=1           hostile: broadcasts a marker frame, then writes
 *                       random descriptors, ring indices and registers,
 *                       resets its device when Partita stopped it, forever.
 * With marks=1 the pinger goes on until it has seen a hostile marker
 * while pinging (so the two overlap whatever the speed of each); with
 * reset-every=N it resets and sets its device up again every N requests
 * (frames in flight then are lost; the request is sent again); with
 * bench=N it then times N more round trips for `make bench` (a BENCH line:
 * instructions under -icount shift=0, 16 per CNTVCT tick at 62.5 MHz);
 * with sleep=1 it waits for replies in WFI (interrupt-driven) instead of
 * polling; with canary=1 it fills a quarter of its RAM with a pattern
 * before it pings and checks it afterwards (nothing wrote into its
 * memory but its own device, into its own buffers: TEST canary).
 * tests/system/test_network.py (tests/system/configs/network.dts).
 */
#include <string.h>
#include "vnet.h"

#define GICC_IAR  (GICC_BASE + 0x00c)
#define GICC_EOIR (GICC_BASE + 0x010)
#define ETH_ARP   0x0806
#define ETH_IPV4  0x0800
#define ARP_REQUEST 1
#define ARP_REPLY   2
#define IP_ICMP     1
#define ICMP_ECHO_REPLY   0
#define ICMP_ECHO_REQUEST 8
#define PING_DATA   56
#define ETH_MARK    0x88b6      /* the hostile member's broadcast */
#define ETH_HLEN    14
#define IP_HLEN     20
#define ICMP_HLEN   8

static struct vnet net;
static uint32_t my_ip, marks;
static uint8_t frame[VNET_BUF], out[VNET_BUF];
static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t get32(const uint8_t *p) { return (uint32_t)get16(p) << 16 | get16(p + 2); }
static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)(v >> 16)); put16(p + 2, (uint16_t)v); }

/* the Internet checksum (RFC 1071) */
static uint16_t csum(const uint8_t *p, uint32_t len)
{
    uint32_t s = 0;
    for (uint32_t i = 0; i + 1 < len; i += 2)
        s += get16(p + i);
    if (len & 1)
        s += (uint32_t)p[len - 1] << 8;
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return (uint16_t)~s;
}

static uint32_t eth_header(uint8_t *f, const uint8_t *dst, uint16_t type)
{
    memcpy(f, dst, 6);
    memcpy(f + 6, net.mac, 6);
    put16(f + 12, type);
    return ETH_HLEN;
}

static void send_arp(uint16_t op, const uint8_t *tha, uint32_t tpa)
{
    uint8_t *a = out + eth_header(out, op == ARP_REQUEST ? bcast : tha, ETH_ARP);
    put16(a, 1);                /* Ethernet */
    put16(a + 2, ETH_IPV4);
    a[4] = 6;
    a[5] = 4;
    put16(a + 6, op);
    memcpy(a + 8, net.mac, 6);
    put32(a + 14, my_ip);
    memcpy(a + 18, op == ARP_REQUEST ? (const uint8_t *)"\0\0\0\0\0\0" : tha, 6);
    put32(a + 24, tpa);
    vnet_send(&net, out, ETH_HLEN + 28);
}

/* an IPv4 ICMP message: header and data (len bytes at icmp) to ip at mac */
static void send_icmp(const uint8_t *mac, uint32_t ip, const uint8_t *icmp, uint32_t len)
{
    uint8_t *h = out + eth_header(out, mac, ETH_IPV4);
    memset(h, 0, IP_HLEN);
    h[0] = 0x45;
    put16(h + 2, (uint16_t)(IP_HLEN + len));
    h[8] = 64;
    h[9] = IP_ICMP;
    put32(h + 12, my_ip);
    put32(h + 16, ip);
    put16(h + 10, csum(h, IP_HLEN));
    memcpy(h + IP_HLEN, icmp, len);
    put16(h + IP_HLEN + 2, 0);
    put16(h + IP_HLEN + 2, csum(h + IP_HLEN, len));
    vnet_send(&net, out, ETH_HLEN + IP_HLEN + len);
}

/* Answer what asks for an answer: ARP requests for us, echo requests */
static void answer(const uint8_t *f, uint32_t len)
{
    if (len >= ETH_HLEN && get16(f + 12) == ETH_MARK) {
        marks++;
        return;
    }
    if (len >= ETH_HLEN + 28 && get16(f + 12) == ETH_ARP && get16(f + 20) == ARP_REQUEST &&
        get32(f + 38) == my_ip) {
        send_arp(ARP_REPLY, f + 22, get32(f + 28));
        return;
    }
    const uint8_t *h = f + ETH_HLEN;
    if (len < ETH_HLEN + IP_HLEN + ICMP_HLEN || get16(f + 12) != ETH_IPV4 || h[0] != 0x45 ||
        h[9] != IP_ICMP || get32(h + 16) != my_ip || csum(h, IP_HLEN) != 0)
        return;
    uint32_t ilen = get16(h + 2) - IP_HLEN;
    if (ilen > len - ETH_HLEN - IP_HLEN || h[IP_HLEN] != ICMP_ECHO_REQUEST)
        return;
    static uint8_t reply[VNET_BUF];
    memcpy(reply, h + IP_HLEN, ilen);
    reply[0] = ICMP_ECHO_REPLY;
    send_icmp(f + 6, get32(h + 12), reply, ilen);
}

void guest_irq_handler(uint32_t *regs)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    vnet_irq(&net, iar & 0x3ff);
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

static void echo_forever(void)
{
    uint32_t answered = 0;
    for (;;) {
        /* with IRQs masked a frame that comes after the drain still ends
         * the WFI (B1.8.12): none waits for the next one */
        __asm__ volatile("cpsid i" ::: "memory");
        uint32_t len;
        while ((len = vnet_recv(&net, frame, sizeof(frame)))) {
            answer(frame, len);
            if (++answered % 10000 == 0)
                gprintf("netecho: %lu frames answered or ignored, %lu interrupts\n",
                        (unsigned long)answered, (unsigned long)net.irqs);
        }
        __asm__ volatile("wfi" ::: "memory");
        __asm__ volatile("cpsie i" ::: "memory");
    }
}

/* A random address: outside its RAM, or inside its own RX buffers (what
 * the device writes there must not crash the hostile guest itself) */
static uint32_t wild_address(uint32_t *seed)
{
    uint32_t r = rand_next(seed);
    if (r & 1)
        return (uint32_t)net.rx.buf + r % sizeof(net.rx.buf);
    return r - RAM_BASE < 0x01000000u ? r ^ 0x80000000u : r;
}

/* One random field of one of its queues: a descriptor's address, length,
 * flags or next, or an avail ring entry or index */
static void scribble(uint32_t *seed)
{
    struct vnet_queue *q = rand_next(seed) & 1 ? &net.tx : &net.rx;
    struct vnet_desc *d = &q->desc[rand_next(seed) % VNET_QN];
    switch (rand_next(seed) % 6) {
    case 0: d->addr = wild_address(seed); break;
    case 1: d->len = rand_next(seed); break;
    case 2: d->flags = (uint16_t)(rand_next(seed) & 7); break;
    case 3: d->next = (uint16_t)rand_next(seed); break;
    case 4: q->avail[2 + rand_next(seed) % VNET_QN] = (uint16_t)rand_next(seed); break;
    default: q->avail[1] = (uint16_t)rand_next(seed); break;
    }
}

/* Rounds of garbage in its own rings and registers (the others must not notice) */
static void hostile_forever(void)
{
    uint32_t seed = 0x5054, rounds = 0, resets = 0;
    for (;;) {
        uint32_t l = eth_header(out, bcast, ETH_MARK);
        memcpy(out + l, "hostile", 7);
        if (rounds % 4 == 0)
            vnet_send(&net, out, l + 7);
        for (unsigned int k = 0; k < 4; k++)
            scribble(&seed);
        dsb();
        vnet_raw_write(&net, 0x050, rand_next(&seed) % 3);         /* QueueNotify */
        if (rand_next(&seed) % 4 == 0)                              /* any register */
            vnet_raw_write(&net, rand_next(&seed) % 0x200 & ~3u, rand_next(&seed));
        if (vnet_status(&net) & VNET_NEEDS_RESET)
            resets++;
        if ((vnet_status(&net) & VNET_NEEDS_RESET) || rounds % 8 == 7)
            vnet_start(&net);
        if (++rounds % 10000 == 0)
            gprintf("netecho: hostile: %lu rounds, %lu times stopped by Partita\n",
                    (unsigned long)rounds, (unsigned long)resets);
    }
}

static bool sleepy;     /* bootargs sleep=1: wait in WFI, not by polling */

/* canary=1: a quarter of its RAM, above its image and below its DT */
#define CANARY_WORDS(size)  ((size) / 4 / 4)
static volatile uint32_t *canary;

static uint32_t canary_value(uint32_t i)
{
    return 0xca7a0000u ^ (i * 0x9e3779b9u);
}

static void canary_arm(void)
{
    uint32_t v = 0;
    if (!bootarg_u32("canary", &v) || !v)
        return;
    canary = (volatile uint32_t *)(RAM_BASE + guest_dt.mem_size / 2);
    for (uint32_t i = 0; i < CANARY_WORDS(guest_dt.mem_size); i++)
        canary[i] = canary_value(i);
}

static void canary_check(void)
{
    if (!canary)
        return;
    test_begin("canary");
    uint32_t bad = 0, first = 0;
    for (uint32_t i = 0; i < CANARY_WORDS(guest_dt.mem_size); i++)
        if (canary[i] != canary_value(i) && !bad++)
            first = i;
    CHECK(!bad, "%lu words of its RAM changed, the first at 0x%08lx", (unsigned long)bad,
          (unsigned long)(uint32_t)&canary[first]);
    test_end();
}

/* Sleep until the device's interrupt or the virtual timer at `end` (IRQs
 * stay masked: WFI wakes on a pending one, which is then taken off the
 * GIC here).  Under -icount a polling vCPU would hold the one TCG thread
 * from the peer's vCPU until its budget runs out. */
static void sleep_until(uint64_t end)
{
    vtimer_arm(end);
    __asm__ volatile("wfi" ::: "memory");
    vtimer_off();
    for (uint32_t iar; ((iar = mmio_read32(GICC_IAR)) & 0x3ff) < 1020;) {
        vnet_irq(&net, iar & 0x3ff);
        mmio_write32(GICC_EOIR, iar);
    }
}

/* Broadcast bursts forever, dropping whatever it receives */
static void flood_forever(void)
{
    uint32_t sent = 0, next = 100000;
    uint32_t l = eth_header(out, bcast, ETH_MARK);
    memcpy(out + l, "flood", 5);
    for (;;) {
        sent += vnet_send_burst(&net, out, l + 5);
        while (vnet_recv(&net, frame, sizeof(frame)))
            ;
        if (sent >= next) {
            gprintf("netecho: flood: %lu frames sent\n", (unsigned long)sent);
            next += 100000;
        }
    }
}

/* Wait for a frame that match() accepts until ms pass; others are answered */
static uint32_t wait_frame(bool (*match)(const uint8_t *, uint32_t, uint32_t), uint32_t arg,
                           uint32_t ms)
{
    uint64_t end = cntvct() + ms_to_ticks(ms);
    while (cntvct() < end) {
        uint32_t len = vnet_recv(&net, frame, sizeof(frame));
        if (len && match(frame, len, arg))
            return len;
        if (len)
            answer(frame, len);
        else if (sleepy)
            sleep_until(end);
    }
    return 0;
}

static bool is_arp_reply(const uint8_t *f, uint32_t len, uint32_t peer)
{
    return len >= ETH_HLEN + 28 && get16(f + 12) == ETH_ARP && get16(f + 20) == ARP_REPLY &&
           get32(f + 28) == peer && memcmp(f + 32, net.mac, 6) == 0;
}

static bool is_echo_reply(const uint8_t *f, uint32_t len, uint32_t seq)
{
    const uint8_t *i = f + ETH_HLEN + IP_HLEN;
    return len >= ETH_HLEN + IP_HLEN + ICMP_HLEN && get16(f + 12) == ETH_IPV4 &&
           f[ETH_HLEN + 9] == IP_ICMP && i[0] == ICMP_ECHO_REPLY && get16(i + 6) == seq;
}

/* One echo request and its reply, intact (up to 10 tries: a flood may drop some): 1, else 0 */
static uint32_t ping_one(uint32_t peer, const uint8_t *peer_mac, uint32_t seq)
{
    static uint8_t req[ICMP_HLEN + PING_DATA];
    for (unsigned int tries = 0; tries < 10; tries++) {
        memset(req, 0, sizeof(req));
        req[0] = ICMP_ECHO_REQUEST;
        put16(req + 4, 0x5054);
        put16(req + 6, (uint16_t)seq);
        for (unsigned int i = 0; i < PING_DATA; i++)
            req[ICMP_HLEN + i] = (uint8_t)(seq + i);
        send_icmp(peer_mac, peer, req, sizeof(req));
        uint32_t len = wait_frame(is_echo_reply, seq, 1000);
        const uint8_t *r = frame + ETH_HLEN + IP_HLEN;
        req[0] = ICMP_ECHO_REPLY;
        req[2] = r[2];
        req[3] = r[3];
        if (len >= ETH_HLEN + IP_HLEN + sizeof(req) && memcmp(r, req, sizeof(req)) == 0 &&
            csum(r, sizeof(req)) == 0)
            return 1;
        gprintf("netecho: echo request %lu: no intact reply, again\n", (unsigned long)seq);
    }
    return 0;
}

/* `make bench` (tests/bench/configs/net.dts): N round trips, timed */
static void bench(uint32_t peer, const uint8_t *peer_mac, uint32_t n)
{
    uint32_t ok = 0;
    uint64_t t0 = cntvct();
    for (uint32_t seq = 1; seq <= n; seq++)
        ok += ping_one(peer, peer_mac, 0x8000 + seq);
    uint64_t per100 = (cntvct() - t0) * 16 * 100 / n;
    if (ok != n)
        gprintf("BENCHERR net_frame_roundtrip: %lu of %lu round trips\n", (unsigned long)ok,
                (unsigned long)n);
    gprintf("BENCH net_frame_roundtrip %lu.%02lu insns %lu\n", (unsigned long)(per100 / 100),
            (unsigned long)(per100 % 100), (unsigned long)n);
}

static void ping(uint32_t peer, uint32_t count)
{
    uint8_t peer_mac[6];
    test_begin("arp");
    uint32_t len = 0;
    for (unsigned int tries = 0; tries < 300 && !len; tries++) {      /* the peer may boot late */
        send_arp(ARP_REQUEST, NULL, peer);
        len = wait_frame(is_arp_reply, peer, 100);
    }
    CHECK(len, "no ARP reply from 0x%08lx", (unsigned long)peer);
    test_end();
    if (!len)
        return;
    memcpy(peer_mac, frame + 22, 6);
    gprintf("netecho: 0x%08lx is at %02x:%02x:%02x:%02x:%02x:%02x\n", (unsigned long)peer,
            peer_mac[0], peer_mac[1], peer_mac[2], peer_mac[3], peer_mac[4], peer_mac[5]);

    test_begin("ping");
    uint32_t ok = 0, seq, want_marks = 0, marks0 = marks, every = 0, resets = 0;
    bootarg_u32("marks", &want_marks);
    bootarg_u32("reset-every", &every);
    uint64_t t0 = cntvct(), limit = t0 + ms_to_ticks(120000);
    for (seq = 1; seq <= count || (want_marks && marks == marks0 && cntvct() < limit); seq++) {
        if (every && seq % every == 0)
            resets += vnet_start(&net);     /* mid-transfer: the peer's reply may be lost */
        ok += ping_one(peer, peer_mac, seq);
    }
    count = seq - 1;
    uint64_t us = (cntvct() - t0) * 1000000ull / cntfrq();
    CHECK(ok == count, "%lu of %lu echo replies intact", (unsigned long)ok, (unsigned long)count);
    test_end();
    gprintf("netecho: %lu of %lu echo replies, %lu us per round trip, %lu hostile frames seen, "
            "%lu device resets\n", (unsigned long)ok, (unsigned long)count,
            (unsigned long)(us / (count ? count : 1)), (unsigned long)(marks - marks0),
            (unsigned long)resets);
    canary_check();
    uint32_t n = 0;
    if (bootarg_u32("bench", &n) && n)
        bench(peer, peer_mac, n);
}

void guest_main(uint32_t dtb)
{
    uint32_t peer = 0, count = 100;
    mmu_enable();           /* the device is DMA coherent: cacheable rings */
    canary_arm();
    test_begin("setup");
    bool up = bootarg_u32("ip", &my_ip) && vnet_setup(&net);
    CHECK(up, "no network device (bootargs net= and ip=)");
    test_end();
    if (!up) {
        tests_finish();
        return;
    }
    gprintf("netecho: %02x:%02x:%02x:%02x:%02x:%02x is 0x%08lx\n", net.mac[0], net.mac[1],
            net.mac[2], net.mac[3], net.mac[4], net.mac[5], (unsigned long)my_ip);
    uint32_t hostile = 0, flood = 0;
    if (bootarg_u32("hostile", &hostile) && hostile)
        hostile_forever();
    if (bootarg_u32("flood", &flood) && flood)
        flood_forever();
    if (!bootarg_u32("peer", &peer))
        echo_forever();
    bootarg_u32("count", &count);
    uint32_t v = 0;
    sleepy = bootarg_u32("sleep", &v) && v;
    if (sleepy)     /* the virtual timer's PPI (27) wakes the WFI too */
        mmio_write32(GICD_BASE + 0x100, 1u << 27);
    ping(peer, count);
    tests_finish();
}
