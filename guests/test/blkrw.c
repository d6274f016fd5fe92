/*
 * A bare-metal frontend of a Partita disk (docs/disks.md) over the driver
 * of guests/lib/blkfront.c.  bootargs "blk=BASE,INTID seed=S sectors=N
 * rounds=R": each round writes the first N sectors with pseudo-random data
 * of its seed and round (32 KiB requests), flushes, reads them all back
 * and compares the checksum of what it read with what it wrote; then a
 * read and a write past the capacity and across its end must be I/O
 * errors.  With ro=1 the disk is read-only: a write must be an I/O error,
 * a read must work.  With retries=N a request that fails is tried again
 * up to N times (beside a hostile driver partition, which fails some on
 * purpose), and the errors are counted.  Prints a line per round, TEST
 * lines, powers off.  With hostile=N it instead writes N rounds of random
 * descriptors, ring indices, sectors and registers into its own device,
 * setting it up again whenever Partita stopped it, then powers off.
 * With bait=1 or reset-in-flight=1 it fills a buffer with a canary
 * pattern and puts a read into it in flight, held by the driver partition
 * (blkserve hold=1): bait=1 waits for a character on its console, 'b' to
 * make that read and wait (the test stops it there, and starts it again),
 * 'r' to go on without it; reset-in-flight=1 resets its device with the
 * read in flight.  Either then does its rounds and checks that the canary
 * is intact: the read's answer, dropped, never reached its memory.
 * With bench=N (`make bench`, tests/bench/configs/disk.dts) it instead
 * makes N 4 KiB reads, N 4 KiB writes, N 64 KiB reads and N 64 KiB
 * writes, after two of each as a warm-up, calling blkrw_bench_mark before
 * and after each kind: scripts/bench.py counts the hypervisor's
 * instructions between the marks in QEMU's trace.
 * tests/system/test_disk.py (guests/configs/disk*.dts).
 */
#include <string.h>
#include "blkfront.h"

#define SECTOR 512u
#define CHUNK  (32u * 1024u)            /* a round's requests */
#define BENCH_SMALL (4u * 1024u)
#define BENCH_LARGE (64u * 1024u)
#define BENCH_WARMUP 2u

static struct blkfront blk;
static uint8_t buf[BLKFRONT_MAX] __attribute__((aligned(64)));
static uint32_t retries, ioerrs;
/* the canary: a read in flight into it must never land */
#define CANARY 0xc5u
#define UART_FR 0x18u                   /* PL011 flag register */
#define UART_FR_RXFE (1u << 4)          /* receive FIFO empty */
static uint8_t bait[4096] __attribute__((aligned(64)));

static char console_getc(void)
{
    while (mmio_read32(VUART_BASE + UART_FR) & UART_FR_RXFE)
        __asm__ volatile("yield");
    return (char)mmio_read32(VUART_BASE);
}

static bool canary_intact(void)
{
    for (uint32_t i = 0; i < sizeof(bait); i++)
        if (bait[i] != CANARY)
            return false;
    return true;
}

/* a read into the canary put in flight; true: go on with the rounds */
static bool put_bait(bool reset)
{
    memset(bait, CANARY, sizeof(bait));
    gprintf("blkrw: canary set\n");
    if (reset) {
        blkfront_post(&blk, BLKFRONT_T_IN, 0, bait, sizeof(bait));
        bool up = blkfront_setup(&blk);
        gprintf("blkrw: device reset with a read in flight%s\n", up ? "" : ", not set up again");
        return up;
    }
    for (;;) {
        char c = console_getc();
        if (c == 'r')
            return true;
        if (c == 'b') {
            gprintf("blkrw: a read in flight into the canary\n");
            uint8_t st = blkfront_rw(&blk, BLKFRONT_T_IN, 0, bait, sizeof(bait));
            gprintf("blkrw: the read into the canary came back (status %u)\n", st);
            return true;
        }
    }
}

/* a request, tried again while it fails and retries are left */
static uint8_t rw(uint32_t type, uint64_t sector, void *p, uint32_t len)
{
    uint8_t st = blkfront_rw(&blk, type, sector, p, len);
    for (uint32_t k = 0; st != BLKFRONT_S_OK && k < retries; k++) {
        ioerrs++;
        st = blkfront_rw(&blk, type, sector, p, len);
    }
    return st;
}

/* random descriptors (anywhere, any length and flags), ring indices,
 * sectors and register writes into its own device; NEEDS_RESET: set up
 * again.  Never waits for an answer. */
static void hostile(uint32_t rounds)
{
    uint32_t st = 0x1234567u, resets = 0;
    for (uint32_t r = 0; r < rounds; r++) {
        for (unsigned int d = 0; d < BLKFRONT_QN; d++) {
            uint32_t a = rand_next(&st);
            blk.desc[d].addr = a & 1 ? (uint32_t)buf + (a >> 8) % sizeof(buf) : a;
            blk.desc[d].len = rand_next(&st) % 0x3000;
            blk.desc[d].flags = (uint16_t)(rand_next(&st) & 7);
            blk.desc[d].next = (uint16_t)(rand_next(&st) % (BLKFRONT_QN + 2));
            blk.avail[2 + d] = (uint16_t)(rand_next(&st) % (BLKFRONT_QN + 2));
        }
        blk.hdr.type = rand_next(&st) % 10;
        blk.hdr.sector = rand_next(&st) % (blk.capacity + 16);
        blk.avail[1] = (uint16_t)(blk.avail[1] + rand_next(&st) % 20);
        dsb();
        mmio_write32(blk.base + 0x050, 0);
        if ((rand_next(&st) & 15) == 0)
            mmio_write32(blk.base + (rand_next(&st) % 0x40) * 4, rand_next(&st));
        if ((mmio_read32(blk.base + 0x070) & 0x40) || (rand_next(&st) & 63) == 0) {
            resets++;
            if (!blkfront_setup(&blk))
                break;
        }
    }
    gprintf("blkrw: hostile: %lu rounds, %lu resets\n", (unsigned long)rounds,
            (unsigned long)resets);
}

/* A mark in QEMU's trace (scripts/bench.py): a function of its own,
 * entered by a branch, so that it starts a translation block */
void __attribute__((noinline)) blkrw_bench_mark(void)
{
    __asm__ volatile("" ::: "memory");
}

/* `make bench`: n requests of each kind between marks */
static void bench(uint32_t n)
{
    static const struct { uint32_t type, len; } kinds[] = {
        { BLKFRONT_T_IN, BENCH_SMALL }, { BLKFRONT_T_OUT, BENCH_SMALL },
        { BLKFRONT_T_IN, BENCH_LARGE }, { BLKFRONT_T_OUT, BENCH_LARGE },
    };
    bool ok = true;
    for (unsigned int k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        for (uint32_t i = 0; i < BENCH_WARMUP; i++)
            ok &= blkfront_rw(&blk, kinds[k].type, 0, buf, kinds[k].len) == BLKFRONT_S_OK;
        blkrw_bench_mark();
        for (uint32_t i = 0; i < n; i++)
            ok &= blkfront_rw(&blk, kinds[k].type, 0, buf, kinds[k].len) == BLKFRONT_S_OK;
        blkrw_bench_mark();
    }
    gprintf("blkrw: bench: %lu requests of each kind%s\n", (unsigned long)n,
            ok ? "" : ", BENCHERR a request failed");
}

/* the data of a chunk: its seed, round and first sector decide it */
static uint32_t fill(uint32_t seed, uint32_t round, uint32_t sector, uint32_t len)
{
    uint32_t st = seed * 2654435761u ^ round * 40503u ^ sector * 97u ^ 1u;
    uint32_t sum = 0;
    for (uint32_t i = 0; i < len; i += 4) {
        uint32_t v = rand_next(&st);
        memcpy(buf + i, &v, 4);
        sum = sum * 31 + v;
    }
    return sum;
}

static uint32_t sum_of(uint32_t len)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i < len; i += 4) {
        uint32_t v;
        memcpy(&v, buf + i, 4);
        sum = sum * 31 + v;
    }
    return sum;
}

static bool round_trip(uint32_t seed, uint32_t round, uint32_t sectors)
{
    uint32_t wrote = 0, read = 0;
    uint32_t per = CHUNK / SECTOR;
    for (uint32_t s = 0; s < sectors; s += per) {
        uint32_t n = sectors - s < per ? sectors - s : per;
        wrote += fill(seed, round, s, n * SECTOR);
        uint8_t st = rw(BLKFRONT_T_OUT, s, buf, n * SECTOR);
        test_check(st == BLKFRONT_S_OK, "write of sector %lu: status %u", (unsigned long)s, st);
    }
    test_check(rw(BLKFRONT_T_FLUSH, 0, buf, 0) == BLKFRONT_S_OK, "flush");
    for (uint32_t s = 0; s < sectors; s += per) {
        uint32_t n = sectors - s < per ? sectors - s : per;
        memset(buf, 0, n * SECTOR);
        uint8_t st = rw(BLKFRONT_T_IN, s, buf, n * SECTOR);
        test_check(st == BLKFRONT_S_OK, "read of sector %lu: status %u", (unsigned long)s, st);
        read += sum_of(n * SECTOR);
    }
    gprintf("blkrw: round %lu: %lu KiB written and read back, checksums 0x%08lx 0x%08lx\n",
            (unsigned long)round, (unsigned long)(sectors / 2), (unsigned long)wrote,
            (unsigned long)read);
    return wrote == read;
}

void guest_main(uint32_t dtb)
{
    uint32_t seed = 1, sectors = 256, rounds = 1, ro = 0, hostile_rounds = 0, bench_n = 0;
    uint32_t bait_console = 0, reset_in_flight = 0;
    bootarg_u32("seed", &seed);
    bootarg_u32("sectors", &sectors);
    bootarg_u32("rounds", &rounds);
    bootarg_u32("ro", &ro);
    bootarg_u32("retries", &retries);
    bootarg_u32("hostile", &hostile_rounds);
    bootarg_u32("bench", &bench_n);
    bootarg_u32("bait", &bait_console);
    bootarg_u32("reset-in-flight", &reset_in_flight);
    mmu_enable();
    test_begin("setup");
    bool up = blkfront_setup(&blk);
    test_check(up, "no disk");
    test_end();
    if (!up) {
        tests_finish();
        guest_poweroff();
    }
    gprintf("blkrw: disk of %lu sectors%s\n", (unsigned long)blk.capacity,
            blk.features & BLKFRONT_F_RO ? ", read-only" : "");
    if (hostile_rounds) {
        hostile(hostile_rounds);
        guest_poweroff();
    }
    if (bench_n) {
        bench(bench_n);
        guest_poweroff();
    }
    bool baited = bait_console || reset_in_flight;
    /* the canary's TEST line comes after the rounds: the test has given
     * the console back by then, so it is its guest's line */
    bool set_up = !baited || put_bait(reset_in_flight);
    if (ro) {
        test_begin("read-only");
        test_check(blk.features & BLKFRONT_F_RO, "no VIRTIO_BLK_F_RO");
        test_check(blkfront_rw(&blk, BLKFRONT_T_OUT, 0, buf, SECTOR) == BLKFRONT_S_IOERR,
                   "a write was not refused");
        test_check(blkfront_rw(&blk, BLKFRONT_T_IN, 0, buf, SECTOR) == BLKFRONT_S_OK,
                   "a read failed");
        test_end();
    } else {
        test_begin("write-read");
        for (uint32_t r = 0; r < rounds; r++)
            test_check(round_trip(seed, r, sectors), "round %lu: checksums differ",
                       (unsigned long)r);
        test_end();
        if (retries)
            gprintf("blkrw: %lu I/O errors retried\n", (unsigned long)ioerrs);
    }
    if (baited) {
        test_begin("canary");
        bool intact = canary_intact();
        test_check(set_up, "the device was not set up again");
        test_check(intact, "a read it gave up was written into its memory");
        test_end();
        gprintf("blkrw: canary %s\n", intact ? "intact" : "overwritten");
    }
    test_begin("past-capacity");
    uint64_t cap = blk.capacity;
    test_check(blkfront_rw(&blk, BLKFRONT_T_IN, cap, buf, SECTOR) == BLKFRONT_S_IOERR,
               "a read past the capacity");
    test_check(blkfront_rw(&blk, BLKFRONT_T_IN, cap - 1, buf, 2 * SECTOR) == BLKFRONT_S_IOERR,
               "a read across the end");
    test_check(blkfront_rw(&blk, BLKFRONT_T_OUT, cap, buf, SECTOR) == BLKFRONT_S_IOERR,
               "a write past the capacity");
    test_end();
    tests_finish();
    guest_poweroff();
}
