/*
 * A hostile channel member (tests/system/test_channels.py,
 * tests/system/configs/chanhostile.dts).  It shares the channel 'junk' with the
 * honest sender of the channel 'flood' and, while that pair moves its
 * messages, it:
 *   - writes garbage over all of the junk channel's memory, the rings'
 *     indices and lengths included (out of range, all ones, all zeros),
 *     and keeps changing them while its peer could be reading;
 *   - floods its peer with doorbells, through the doorbell page and the
 *     hypercall in turn, and rings channel ids it is no member of
 *     (refused) and every word of the doorbell page, read and written;
 *   - halts itself mid-flood in its first life (PSCI SYSTEM_OFF); after the
 *     operator's restart it floods until it is stopped.
 * What it may not do: reach the flood channel, other guests' memory or the
 * hypervisor, or keep the monitor from answering.
 * Deterministic: a fixed-seed generator, a fixed count per round.
 */
#include "chan.h"

#define GICC_IAR   (GICC_BASE + 0x00c)
#define GICC_EOIR  (GICC_BASE + 0x010)
#define DB_PAGE    0x1000u
#define ROUNDS_FIRST_LIFE 3u
#define RINGS_PER_ROUND   20000u
#define GARBAGE_PER_ROUND 4u     /* passes over the whole channel memory */
#define FOREIGN_IDS       64u    /* channel ids it is no member of, tried per round */
#define LIFE_MARK         0x11fe0002u

static struct chan ch;
static uint32_t seed = 0x2701c4a7u;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

static uint32_t rnd(void)
{
    seed = seed * 1664525u + 1013904223u;   /* Numerical Recipes' LCG */
    return seed ^ (seed >> 15);
}

/* the boundary values an index or a length is tried with */
static uint32_t nasty(void)
{
    static const uint32_t edge[] = { 0, 1, CHAN_RING_SLOTS, CHAN_RING_SLOTS + 1, CHAN_MSG_BYTES,
                                     CHAN_MSG_BYTES + 1, 0x7fffffffu, 0x80000000u, 0xffffffffu };
    uint32_t r = rnd();
    return r & 1 ? edge[(r >> 1) % (sizeof(edge) / sizeof(edge[0]))] : rnd();
}

static void garbage(void)
{
    volatile uint32_t *w = (volatile uint32_t *)ch.ipa;
    for (uint32_t i = 0; i < ch.size / 4; i++)
        w[i] = nasty();
    /* and the rings' indices and lengths once more, as its peer would read them */
    for (unsigned int k = 0; k < 2; k++) {
        volatile struct chan_ring *r = chan_ring_of((volatile void *)ch.ipa, k);
        r->head = nasty();
        r->tail = nasty();
        for (unsigned int s = 0; s < CHAN_RING_SLOTS; s++)
            r->slot[s].len = nasty();
    }
}

static unsigned int doorbell_page(void)
{
    unsigned int refused = 0;
    for (uint32_t off = 0; off < DB_PAGE; off += 4) {
        uint32_t v;
        if (try_read32(ch.db + off, &v))
            refused++;
        if (off != CHAN_DB_RING && try_write32(ch.db + off, rnd()))
            refused++;
    }
    return refused;
}

static void round_(unsigned int n)
{
    for (unsigned int g = 0; g < GARBAGE_PER_ROUND; g++)
        garbage();
    unsigned int bad = 0, foreign = 0;
    for (uint32_t i = 0; i < RINGS_PER_ROUND; i++) {
        if (i & 1)
            chan_ring_mmio(&ch);
        else if (chan_ring_hvc(ch.id) != 0)
            bad++;
        if (!(i % 2048))
            garbage();      /* changed again while the doorbells fly */
    }
    unsigned int tried = 0;
    for (uint32_t i = 0; i < FOREIGN_IDS; i++) {
        uint32_t id = nasty();
        if (id == ch.id)
            continue;
        tried++;
        if (chan_ring_hvc(id) == PSCI_INVALID_PARAMETERS)
            foreign++;
    }
    unsigned int refused = doorbell_page();
    if (n > ROUNDS_FIRST_LIFE && n % 50)
        return;             /* the first rounds and every 50th are told */
    gprintf("chanhostile: round %u: %lu rings (%u refused), %u of %u foreign ids refused, "
            "%u doorbell page accesses aborted\n", n, (unsigned long)RINGS_PER_ROUND, bad,
            foreign, tried, refused);
}

void guest_main(uint32_t dtb)
{
    uint32_t life = 0;
    if (!chan_setup(&ch)) {
        gprintf("chanhostile: no channel= in bootargs\n");
        guest_poweroff();
    }
    /* the first life leaves a mark at the end of the channel before it
     * halts (the memory was zeroed at boot and is never zeroed again) */
    volatile uint32_t *mark = (volatile uint32_t *)(ch.ipa + ch.size - 4);
    life = *mark == LIFE_MARK ? 2 : 1;
    gprintf("chanhostile: life %lu, channel %u member %u of %u\n", (unsigned long)life, ch.id,
            ch.member, ch.nmembers);
    __asm__ volatile("cpsie i" ::: "memory");
    for (unsigned int n = 1;; n++) {
        round_(n);
        if (life == 1 && n == ROUNDS_FIRST_LIFE) {
            *mark = LIFE_MARK;
            gprintf("chanhostile: halting mid-flood\n");
            guest_poweroff();
        }
    }
}
