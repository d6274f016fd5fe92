/*
 * A bare-metal driver partition (docs/disks.md) serving its frontends
 * from RAM disks: the queue of include/partita/blk_queue.h at the IPA of
 * bootargs "blkq=IPA", polled; frontend i's disk is DISK_SIZE bytes at
 * i * DISK_SIZE of its RAM after its image, or of the memory at
 * "store=IPA" (a channel: it outlives a restart, as a real disk would).
 * Each life prints the queue's generation; with crash-after=N the first life crashes (its vectors
 * pointed at nothing) after answering N requests, with requests left in its
 * slots, for its next life to get again.  With hostile=1 it answers like a
 * hostile partner instead: slots it was never given, wrong tags, lengths
 * and statuses, every third request; the others honestly.  With hold=1
 * it starts holding its requests unanswered (each said once, with its
 * frontend's index), and every character on its console turns holding
 * off and on again: requests stay in its slots as long as a test needs.
 * tests/system/test_disk.py (guests/configs/disk*.dts).
 */
#include <string.h>
#include <partita/blk_queue.h>
#include "guest.h"

#define DISK_SIZE  0x200000u            /* 4096 sectors */
#define NOWHERE    0x7f000000u          /* no memory, no device of the guest's */
#define SECTOR     512u
#define UART_FR    0x18u                /* PL011 flag register */
#define UART_FR_RXFE (1u << 4)          /* receive FIFO empty */

static uint32_t answered, hostile_count, store;
static uint32_t hold, held_said;        /* held_said: a bit per slot said held */

/* a character on its console turns holding off or on */
static void hold_input(void)
{
    if (mmio_read32(VUART_BASE + UART_FR) & UART_FR_RXFE)
        return;
    (void)mmio_read32(VUART_BASE);
    hold = !hold;
    gprintf("blkserve: %s\n", hold ? "holding its requests" : "serving");
}

/* slot i held: said once while it holds this request */
static bool held(const struct partita_blkq_slot *s, unsigned int i)
{
    if (!hold)
        return false;
    if (!(held_said & 1u << i)) {
        held_said |= 1u << i;
        gprintf("blkserve: holding a request of frontend %lu in slot %u\n",
                (unsigned long)s->frontend, i);
    }
    return true;
}

static uint8_t *disk_of(unsigned int fe)
{
    uint32_t base = store ? store : (image_end() + 0xfffff) & ~0xfffffu;
    return (uint8_t *)(base + fe * DISK_SIZE);
}

/* one request in slot i: the honest answer */
static void serve(const struct partita_blkq_header *h, struct partita_blkq_slot *s,
                  uint8_t *data)
{
    uint32_t status = PARTITA_BLKQ_S_OK, len = 0;
    uint64_t bytes = (uint64_t)s->sector * SECTOR + s->len;
    if (s->frontend >= h->nfrontends || bytes > DISK_SIZE ||
        bytes > h->fe[s->frontend].capacity * SECTOR)
        status = PARTITA_BLKQ_S_IOERR;
    else if (s->type == PARTITA_BLKQ_T_IN) {
        memcpy(data, disk_of(s->frontend) + s->sector * SECTOR, s->len);
        len = s->len;
    } else if (s->type == PARTITA_BLKQ_T_OUT)
        memcpy(disk_of(s->frontend) + s->sector * SECTOR, data, s->len);
    s->len = len;
    s->status = status;
}

/* every third request answered wrongly, in turn: a wrong tag, a wrong
 * length, a wrong status; and a slot never given is marked done */
static void serve_hostile(const struct partita_blkq_header *h, struct partita_blkq_slot *s,
                          uint8_t *data, unsigned int i)
{
    serve(h, s, data);
    if (answered % 3)
        return;
    switch (hostile_count++ % 4) {
    case 0: s->tag ^= 0x100; break;
    case 1: s->len += SECTOR; break;
    case 2: s->status = 7; break;
    default: {
        struct partita_blkq_slot *o = s + (i + 1 < h->nslots ? 1 : -(int)i);
        if (o->state == PARTITA_BLKQ_FREE)
            o->state = PARTITA_BLKQ_DONE;
    } }
}

void guest_main(uint32_t dtb)
{
    uint32_t ipa = 0, crash_after = 0, hostile = 0;
    if (!bootarg_u32("blkq", &ipa)) {
        gprintf("blkserve: no blkq= in bootargs\n");
        return;
    }
    bootarg_u32("crash-after", &crash_after);
    bootarg_u32("hostile", &hostile);
    bootarg_u32("store", &store);
    bootarg_u32("hold", &hold);
    mmu_enable();
    struct partita_blkq_header *h = (struct partita_blkq_header *)ipa;
    while (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != PARTITA_BLKQ_MAGIC)
        __asm__ volatile("yield");
    gprintf("blkserve: generation %lu, %lu slots, %lu frontends\n",
            (unsigned long)h->generation, (unsigned long)h->nslots,
            (unsigned long)h->nfrontends);
    struct partita_blkq_slot *slots = (void *)(ipa + PARTITA_BLKQ_SLOTS_OFF);
    for (;;) {
        unsigned int n = 0;
        hold_input();
        for (unsigned int i = 0; i < h->nslots; i++) {
            struct partita_blkq_slot *s = &slots[i];
            if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != PARTITA_BLKQ_REQUEST ||
                held(s, i))
                continue;
            held_said &= ~(1u << i);
            if (crash_after && h->generation == 1 && answered == crash_after) {
                /* its vectors point at nothing, then an abort: Partita
                 * finds it crashed (as guests/test/crashloop.c does) */
                gprintf("blkserve: crashing with requests in its slots\n");
                uint32_t v;
                mmu_disable();      /* the fetch at nowhere reaches Stage 2 */
                __asm__ volatile("mcr p15, 0, %0, c12, c0, 0\n isb" : : "r"(NOWHERE));
                try_read32(NOWHERE + 0x100000, &v);
            }
            uint8_t *data = (uint8_t *)(ipa + PARTITA_BLKQ_DATA_OFF + i * PARTITA_BLKQ_DATA_SIZE);
            if (hostile)
                serve_hostile(h, s, data, i);
            else
                serve(h, s, data);
            answered++;
            __atomic_store_n(&s->state, PARTITA_BLKQ_DONE, __ATOMIC_RELEASE);
            n++;
        }
        if (n)
            while ((int32_t)hvc_call(PARTITA_HC_BLK_DONE, 0, 0, 0).r0 > 0)
                ;
        __asm__ volatile("yield");
    }
}
