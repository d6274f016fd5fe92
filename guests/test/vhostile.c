/*
 * A hostile virtio driver (tests/system/test_virtio_hostile.py,
 * tests/system/configs/vhostile.dts): a network member with a virtio console
 * that names the most work its queues can and changes everything under
 * the device's feet, forever, from a fixed seed.  bootargs: "net=BASE,INTID
 * con=BASE,INTID seed=N".
 *
 * vCPU 0 sends one marker, floods its console, then takes random rounds of:
 *   - the console flood: both queues 256 entries, every avail entry the
 *     same chain of 256 descriptors, each the whole of its RAM (64 GiB a
 *     chain, 16 TiB a queue), then notify after notify;
 *   - the network flood: 256-descriptor TX chains of whole-RAM buffers (each
 *     frame 4 GiB long), RX chains of 256 buffers to the end of its RAM;
 *   - random queue sizes (valid, 0, odd, past 256), ring addresses (inside,
 *     outside, unaligned), descriptors, lengths, avail indices and register
 *     writes, with notifies of every queue;
 *   - rings moved while the queue is live: address and size writes while
 *     ready, QueueReady 0, new rings, QueueReady 1 in the middle of a flood;
 *   - one honest broadcast marker frame (0x88b6), so that the pinger sees
 *     the attack while it pings.
 * vCPU 1 resets either device (Status 0) or takes a queue's QueueReady
 * away at random moments, mid-transfer of vCPU 0's floods.
 * Device-writable buffers lie in its own scratch area (the top quarter of
 * its RAM): what the device writes there must not crash this guest.
 */
#include <string.h>
#include "guest.h"
#include "virtio_mmio_regs.h"

#define R_SPACE        0x200        /* the device's register window */
#define ST_ACK_DRIVER  (ST_ACK | ST_DRIVER)
#define F_VERSION_1    1u           /* high word: bit 32 */
#define D_NEXT         1u
#define D_WRITE        2u
#define QMAX           256u         /* QueueNumMax of Partita's devices */
#define NET_HDR        12u
#define ETH_MARK       0x88b6

enum { NET, CON, NDEV };

struct desc { uint64_t addr; uint32_t len; uint16_t flags, next; };

static uint32_t base[NDEV];
static uint32_t ram_end, rings, scratch;
static volatile uint32_t rounds, resets;
static uint32_t seed = 0x27c0ffee;

static void wr(unsigned int d, uint32_t off, uint32_t v) { mmio_write32(base[d] + off, v); }
static uint32_t rd(unsigned int d, uint32_t off) { return mmio_read32(base[d] + off); }

/* queue q of device d: its descriptor table, avail and used rings (16 KiB) */
static uint32_t ring(unsigned int d, unsigned int q) { return rings + (d * 2 + q) * 0x4000u; }
static struct desc *table(unsigned int d, unsigned int q) { return (struct desc *)ring(d, q); }
static volatile uint16_t *avail(unsigned int d, unsigned int q)
{
    return (volatile uint16_t *)(ring(d, q) + 0x1000);
}

/* The set-up of virtio 1.x 3.1.1 with queues of num entries at ring() */
static void dev_init(unsigned int d, uint32_t num)
{
    wr(d, R_STATUS, 0);
    wr(d, R_STATUS, ST_ACK_DRIVER);
    wr(d, R_DRV_FEAT_SEL, 1);
    wr(d, R_DRV_FEAT, F_VERSION_1);
    wr(d, R_STATUS, ST_ACK_DRIVER | ST_FEATURES_OK);
    for (unsigned int q = 0; q < 2; q++) {
        memset((void *)ring(d, q), 0, 0x4000);
        dsb();
        wr(d, R_QUEUE_SEL, q);
        wr(d, R_QUEUE_NUM, num);
        wr(d, R_DESC_LO, ring(d, q));
        wr(d, R_DRIVER_LO, ring(d, q) + 0x1000);
        wr(d, R_DEVICE_LO, ring(d, q) + 0x2000);
        wr(d, R_QUEUE_READY, 1);
    }
    wr(d, R_STATUS, ST_ACK_DRIVER | ST_FEATURES_OK | ST_DRIVER_OK);
}

/* Every avail entry of queue q names head 0, the index a whole queue on */
static void avail_all(unsigned int d, unsigned int q, uint32_t num)
{
    volatile uint16_t *a = avail(d, q);
    for (uint32_t i = 0; i < num; i++)
        a[2 + i] = 0;
    dsb();
    a[1] = (uint16_t)(a[1] + num);
    dsb();
}

/* Queue q's table one chain of num descriptors [addr, +len) */
static void max_chain(unsigned int d, unsigned int q, uint32_t num, uint32_t addr, uint32_t len,
                      uint16_t flags)
{
    struct desc *t = table(d, q);
    for (uint32_t i = 0; i < num; i++)
        t[i] = (struct desc){ addr, len, (uint16_t)(flags | (i + 1 < num ? D_NEXT : 0)),
                              (uint16_t)(i + 1) };
}

static void notify_many(unsigned int d, unsigned int q, unsigned int n)
{
    for (unsigned int i = 0; i < n; i++) {
        wr(d, R_NOTIFY, q);
        wr(d, R_ISR_ACK, rd(d, R_ISR));
    }
}

/* The flood: 256 x 256 descriptors of the whole RAM */
static void console_flood(void)
{
    uint32_t size = ram_end - RAM_BASE;
    dev_init(CON, QMAX);
    max_chain(CON, 1, QMAX, RAM_BASE, size, 0);
    max_chain(CON, 0, QMAX, scratch, ram_end - scratch, D_WRITE);
    avail_all(CON, 0, QMAX);
    avail_all(CON, 1, QMAX);
    notify_many(CON, 1, 50 + rand_next(&seed) % 200);
}

static void net_flood(void)
{
    uint32_t size = ram_end - RAM_BASE;
    dev_init(NET, QMAX);
    max_chain(NET, 1, QMAX, RAM_BASE, size, 0);
    table(NET, 1)[0].len = NET_HDR;
    max_chain(NET, 0, QMAX, scratch, ram_end - scratch, D_WRITE);
    avail_all(NET, 0, QMAX);
    avail_all(NET, 1, QMAX);
    wr(NET, R_NOTIFY, 0);
    notify_many(NET, 1, 20 + rand_next(&seed) % 50);
}

/* A number that a driver may or may not write */
static uint32_t any_num(void)
{
    static const uint32_t odd[] = { 0, 3, 255, 257, 512, 0xffff, 0xffffffffu };
    uint32_t r = rand_next(&seed);
    return r & 1 ? 1u << (r >> 1) % 9 : odd[(r >> 1) % (sizeof(odd) / sizeof(odd[0]))];
}

static uint32_t any_addr(void)
{
    uint32_t r = rand_next(&seed);
    switch (r % 5) {
    case 0: return RAM_BASE;
    case 1: return scratch + rand_next(&seed) % (ram_end - scratch);
    case 2: return ram_end - (r >> 8) % 64;
    case 3: return rand_next(&seed);
    default: return rings + rand_next(&seed) % 0x10000;
    }
}

/* A device set up anyhow, rings full of random entries, random writes */
static void random_round(void)
{
    unsigned int d = rand_next(&seed) % NDEV;
    dev_init(d, any_num());
    for (unsigned int q = 0; q < 2; q++) {
        struct desc *t = table(d, q);
        for (uint32_t i = 0; i < QMAX; i++) {
            uint32_t r = rand_next(&seed);
            uint32_t len = r & 1 ? rand_next(&seed) : r & 2 ? ram_end - RAM_BASE : r % 2048;
            uint16_t flags = (uint16_t)(q == 0 ? D_WRITE : 0) | (uint16_t)(r & 4 ? D_NEXT : 0);
            if ((r & 0x70) == 0)
                flags = (uint16_t)rand_next(&seed);
            /* writable buffers only where a write cannot hurt this guest */
            uint32_t addr = flags & D_WRITE && !(r & 8) ? scratch + r % 0x1000 : any_addr();
            if ((flags & D_WRITE) && addr < scratch)
                flags &= (uint16_t)~D_WRITE;
            t[i] = (struct desc){ addr, len, flags, (uint16_t)rand_next(&seed) };
        }
        volatile uint16_t *a = avail(d, q);
        for (uint32_t i = 0; i < QMAX; i++)
            a[2 + i] = (uint16_t)(rand_next(&seed) % (QMAX + 8));
        dsb();
        a[1] = (uint16_t)rand_next(&seed);
    }
    dsb();
    for (unsigned int i = 0; i < 64; i++) {
        uint32_t r = rand_next(&seed);
        if (r % 8 == 0)
            wr(d, rand_next(&seed) % R_SPACE & ~3u, any_num());
        wr(d, R_NOTIFY, r % 3);
        rd(d, R_ISR);
    }
}

/* Rings changed while the queue is live, in the middle of a flood */
static void moved_round(void)
{
    unsigned int d = rand_next(&seed) % NDEV;
    uint32_t size = ram_end - RAM_BASE;
    dev_init(d, QMAX);
    max_chain(d, 1, QMAX, RAM_BASE, size, 0);
    avail_all(d, 1, QMAX);
    notify_many(d, 1, 10);
    wr(d, R_QUEUE_SEL, 1);
    wr(d, R_DESC_LO, any_addr() & ~15u);        /* live: ignored */
    wr(d, R_QUEUE_NUM, any_num());
    notify_many(d, 1, 10);
    wr(d, R_QUEUE_READY, 0);
    notify_many(d, 1, 3);
    uint32_t other = ring(d, 0);                /* the RX queue's rings, now TX's too */
    wr(d, R_DESC_LO, other);
    wr(d, R_DRIVER_LO, other + 0x1000);
    wr(d, R_DEVICE_LO, other + 0x2000);
    wr(d, R_QUEUE_NUM, any_num());
    wr(d, R_QUEUE_READY, 1);
    notify_many(d, 1, 10);
    notify_many(d, 0, 10);
}

/* One well-formed broadcast frame: the pinger counts these */
static void marker_round(void)
{
    dev_init(NET, 16);
    uint8_t *f = (uint8_t *)scratch;
    memset(f, 0, NET_HDR);
    uint8_t *e = f + NET_HDR;
    memset(e, 0xff, 6);
    for (unsigned int i = 0; i < 6; i++)
        e[6 + i] = (uint8_t)mmio_read8(base[NET] + R_CONFIG + i);
    e[12] = ETH_MARK >> 8;
    e[13] = ETH_MARK & 0xff;
    memcpy(e + 14, "hostile", 7);
    table(NET, 1)[0] = (struct desc){ (uint32_t)f, NET_HDR + 21, 0, 0 };
    volatile uint16_t *a = avail(NET, 1);
    a[2] = 0;
    dsb();
    a[1] = 1;
    dsb();
    wr(NET, R_NOTIFY, 1);
}

void guest_secondary(unsigned int cpu)
{
    mmu_enable();
    uint32_t s = 0x5eed0000u + cpu;
    for (;;) {
        for (uint32_t spin = rand_next(&s) % 200000; spin; spin--)
            __asm__ volatile("" ::: "memory");
        unsigned int d = rand_next(&s) % NDEV;
        if (rand_next(&s) & 1) {
            wr(d, R_STATUS, 0);                 /* a reset mid-transfer */
        } else {
            wr(d, R_QUEUE_SEL, rand_next(&s) & 1);
            wr(d, R_QUEUE_READY, 0);
        }
        atomic_add(&resets, 1);
    }
}

void guest_main(uint32_t dtb)
{
    uint32_t v[2];
    mmu_enable();           /* the devices are DMA coherent: cacheable rings */
    if (bootarg_u32s("net", v, 2) != 2)
        return;
    base[NET] = v[0];
    if (bootarg_u32s("con", v, 2) != 2)
        return;
    base[CON] = v[0];
    bootarg_u32("seed", &seed);
    ram_end = RAM_BASE + guest_dt.mem_size;
    rings = RAM_BASE + guest_dt.mem_size / 2;
    scratch = RAM_BASE + guest_dt.mem_size / 4 * 3;
    gprintf("vhostile: attacking, seed 0x%08lx\n", (unsigned long)seed);
    if (guest_dt.ncpus > 1)
        hvc_call(PSCI_CPU_ON, 1, (uint32_t)secondary_start, 1);
    /* first the marker (the pinger's start), then the flood: a
     * hypervisor without a bound per exit never comes back from it */
    marker_round();
    console_flood();
    for (;;) {
        switch (rand_next(&seed) % 6) {
        case 0: console_flood(); break;
        case 1: net_flood(); break;
        case 2: moved_round(); break;
        case 3: marker_round(); break;
        default: random_round(); break;
        }
        rounds++;
    }
}
