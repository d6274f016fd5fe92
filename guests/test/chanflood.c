/*
 * Channel tests (tests/system/test_channels.py,
 * tests/system/configs/channel.dts): one image, three roles by member index
 * on the channel.
 *
 *   member 0, the sender: COUNT messages, a doorbell after each (by
 *     hypercall and by the doorbell page in turn), waiting when the ring
 *     is full; then it waits for the receiver's summary.
 *   member 1, the receiver: drains the ring after every doorbell
 *     interrupt; every message must come, once, in order.  Doorbells
 *     coalesce while one is pending (docs/channels.md), so it takes at most
 *     as many interrupts as Partita raised, and Partita raised one per ring.
 *   member 2, the reader (access = "ro"): sees what the sender wrote, and
 *     its write to the memory is refused with a data abort.
 * The sender also reads a hostile member's ring with junk= (junk_reader).
 */
#include "chan.h"

#define GICC_IAR  (GICC_BASE + 0x00c)
#define GICC_EOIR (GICC_BASE + 0x010)
#define SUMMARY_SEQ 0xffffffffu

static struct chan ch;
static volatile uint32_t irqs;
static uint32_t count = 20000;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) == ch.irq)
        irqs++;
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

static inline void irq_on(void) { __asm__ volatile("cpsie i" ::: "memory"); }
static inline void irq_off(void) { __asm__ volatile("cpsid i" ::: "memory"); }

/* Sleep until a doorbell, without missing one that came before the WFI */
static void wait_doorbell(uint32_t seen)
{
    irq_off();
    if (irqs == seen)
        __asm__ volatile("wfi" ::: "memory");
    irq_on();
}

static void sender(void)
{
    test_begin("doorbell_hypercall_membership");
    CHECK(chan_ring_hvc(ch.id + 5) == PSCI_INVALID_PARAMETERS,
          "ringing a channel it is no member of was not refused");
    test_end();

    /* a doorbell for a guest that has not started yet is dropped (it has
     * no interrupt state yet): wait for the receiver's hello first */
    uint32_t hello[CHAN_MSG_WORDS], hlen, hseq, hseen = 0;
    irq_on();
    while (!chan_get(ch.rx, hello, &hlen, &hseq))
        wait_doorbell(hseen), hseen = irqs;

    test_begin("flood_send");
    uint32_t full = 0;
    for (uint32_t seq = 1; seq <= count; seq++) {
        uint32_t word[2] = { seq, ~seq };
        while (!chan_put(ch.tx, word, sizeof(word), seq))
            full++;             /* the receiver makes room; no doorbell needed */
        if (seq & 1)
            chan_ring_mmio(&ch);
        else
            CHECK(chan_ring_hvc(ch.id) == 0, "the doorbell hypercall failed");
    }
    uint32_t sent = mmio_read32(ch.db + CHAN_DB_SENT);
    CHECK(sent == count, "Partita counted %lu rings, %lu were rung", (unsigned long)sent,
          (unsigned long)count);     /* the counter restarted with this guest */
    gprintf("chanflood: sent %lu messages (%lu polls of a full ring)\n", (unsigned long)count,
            (unsigned long)full);
    test_end();

    test_begin("flood_summary");
    uint32_t buf[CHAN_MSG_WORDS], len, seq, seen = irqs;
    while (!chan_get(ch.rx, buf, &len, &seq))
        wait_doorbell(seen), seen = irqs;
    CHECK(seq == SUMMARY_SEQ && len == 12, "a summary of %lu bytes, seq 0x%lx",
          (unsigned long)len, (unsigned long)seq);
    CHECK(buf[0] == count, "the receiver got %lu messages of %lu", (unsigned long)buf[0],
          (unsigned long)count);
    gprintf("chanflood: receiver: %lu messages, %lu doorbells raised, %lu interrupts taken\n",
            (unsigned long)buf[0], (unsigned long)buf[1], (unsigned long)buf[2]);
    test_end();
}

/*
 * With bootargs junk=IPA,SIZE (tests/system/configs/chanhostile.dts) the sender
 * is also a member of a channel whose other member is hostile: it reads
 * that member's ring while the hostile one rewrites it (indices, lengths
 * out of range), a bounded number of times.  Whatever the ring says, a
 * message read is at most CHAN_MSG_BYTES long and lands in the buffer
 * given, nothing past it: the consumer's checks (chan_get) hold against a
 * member that breaks the protocol.
 */
#define JUNK_READS 20000u
#define CANARY     0xa5u

static void junk_reader(void)
{
    uint32_t junk[2];
    if (bootarg_u32s("junk", junk, 2) != 2)
        return;
    test_begin("hostile_ring_read");
    /* the hostile one is member 0 there: its ring is ring 0 */
    volatile struct chan_ring *r = chan_ring_of((volatile void *)junk[0], 0);
    struct {
        uint32_t buf[CHAN_MSG_WORDS];
        uint8_t canary[64];
    } m;
    for (unsigned int i = 0; i < sizeof(m.canary); i++)
        m.canary[i] = CANARY;
    uint32_t got = 0, longest = 0, len, seq;
    for (uint32_t i = 0; i < JUNK_READS; i++) {
        if (chan_get(r, m.buf, &len, &seq)) {
            got++;
            if (len > longest)
                longest = len;
        }
    }
    bool intact = true;
    for (unsigned int i = 0; i < sizeof(m.canary); i++)
        intact = intact && m.canary[i] == CANARY;
    CHECK(longest <= CHAN_MSG_BYTES, "a message of %lu bytes", (unsigned long)longest);
    CHECK(intact, "the bytes past the message buffer were written");
    gprintf("chanflood: read %lu messages of the hostile ring, the longest %lu bytes\n",
            (unsigned long)got, (unsigned long)longest);
    test_end();
}

static void receiver(void)
{
    test_begin("flood_receive");
    uint32_t expect = 1, bad = 0, got = 0, seen = 0;
    irq_on();
    chan_put(ch.tx, "hello", 5, 0);
    chan_ring_mmio(&ch);
    while (expect <= count) {
        uint32_t buf[CHAN_MSG_WORDS], len, seq;
        seen = irqs;
        while (chan_get(ch.rx, buf, &len, &seq)) {
            if (seq != expect || len != 8 || buf[0] != seq || buf[1] != ~seq) {
                if (bad++ < 4)
                    gprintf("chanflood: message %lu: seq %lu len %lu data 0x%lx 0x%lx\n",
                            (unsigned long)expect, (unsigned long)seq, (unsigned long)len,
                            (unsigned long)buf[0], (unsigned long)buf[1]);
            }
            expect = seq + 1;
            got++;
        }
        if (expect <= count)
            wait_doorbell(seen);
    }
    /* the last doorbell may still be on its way: let it land */
    delay_ms(20);
    uint32_t raised = mmio_read32(ch.db + CHAN_DB_RECEIVED), taken = irqs;
    CHECK(got == count && !bad, "%lu messages, %lu out of order or corrupt", (unsigned long)got,
          (unsigned long)bad);
    CHECK(raised == count, "Partita raised %lu doorbells for %lu rings", (unsigned long)raised,
          (unsigned long)count);
    CHECK(taken >= 1 && taken <= raised, "%lu interrupts taken for %lu doorbells raised",
          (unsigned long)taken, (unsigned long)raised);
    gprintf("chanflood: received %lu messages; %lu doorbells raised, %lu interrupts taken "
            "(%lu coalesced)\n", (unsigned long)got, (unsigned long)raised,
            (unsigned long)taken, (unsigned long)(raised - taken));
    uint32_t summary[3] = { got, raised, taken };
    CHECK(chan_put(ch.tx, summary, sizeof(summary), SUMMARY_SEQ), "no room for the summary");
    chan_ring_mmio(&ch);
    test_end();
}

static void reader(void)
{
    test_begin("read_only_member");
    CHECK(ch.read_only, "the doorbell page does not say read-only (0x%08lx)",
          (unsigned long)mmio_read32(ch.db + CHAN_DB_MEMBER));
    /* the sender's ring as it fills: this member sees the same memory */
    volatile struct chan_ring *r0 = chan_ring_of((volatile void *)ch.ipa, 0);
    uint64_t t0 = cntvct();
    while (r0->head < count && cntvct() - t0 < ms_to_ticks(120000))
        ;
    uint32_t head = r0->head;
    CHECK(head == count, "the sender's head reads %lu", (unsigned long)head);
    volatile struct chan_msg *last = &r0->slot[(head - 1) % CHAN_RING_SLOTS];
    CHECK(last->seq == count && last->data[0] == count, "the last message reads seq %lu",
          (unsigned long)last->seq);
    test_end();

    test_begin("read_only_write_aborts");
    uint32_t n0 = fault_count();
    bool aborted = try_write32((uint32_t)&r0->head, 0x5a5a5a5a);
    struct fault_record *f = my_fault();
    CHECK(aborted && fault_count() == n0 + 1, "the write did not abort");
    CHECK(f->kind == FAULT_DABT && f->far == (uint32_t)&r0->head,
          "fault kind %lu at 0x%08lx", (unsigned long)f->kind, (unsigned long)f->far);
    CHECK(r0->head == head, "the memory changed: head 0x%08lx", (unsigned long)r0->head);
    /* a write to a read-only register of the doorbell page is ignored */
    mmio_write32(ch.db + CHAN_DB_ID, 77);
    CHECK(mmio_read32(ch.db + CHAN_DB_ID) == ch.id, "the channel id changed");
    test_end();
}

void guest_main(uint32_t dtb)
{
    if (!chan_setup(&ch)) {
        gprintf("chanflood: no channel= in bootargs\n");
        guest_poweroff();
    }
    bootarg_u32("count", &count);
    gprintf("chanflood: channel %u member %u of %u%s\n", ch.id, ch.member, ch.nmembers,
            ch.read_only ? " (read-only)" : "");
    if (ch.member == 0) {
        sender();
        junk_reader();
    }
    else if (ch.member == 1)
        receiver();
    else
        reader();
    tests_finish();
    guest_poweroff();
}
