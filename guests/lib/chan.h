/*
 * A test guest's side of a Partita channel: where it is (bootargs
 * "channel=IPA,SIZE,DOORBELL-INTID", the member's view the configuration
 * gives it), its doorbell interrupt enabled on vCPU 0, and ringing the
 * peer through the doorbell page or the hypercall.
 */
#ifndef GUEST_CHAN_H
#define GUEST_CHAN_H

#include "guest.h"
#include <partita/chan_ring.h>

struct chan {
    uint32_t ipa, size, irq;
    uint32_t db;                    /* the doorbell page: ipa + size */
    unsigned int id, member, nmembers;
    bool read_only;
    volatile struct chan_ring *tx, *rx;     /* own ring, the peer's (two members) */
    uint32_t answered;
};

/* From bootargs; enables the doorbell SPI (IRQs stay masked). False: no channel= */
bool chan_setup(struct chan *c);
static inline void chan_ring_mmio(const struct chan *c) { mmio_write32(c->db + CHAN_DB_RING, 1); }
/*
 * The answering peer: every message waiting from the other member is sent
 * back with its text in capitals and the same sequence number, then the
 * doorbell is rung once.  Call it after every doorbell interrupt (they
 * coalesce: drain everything).  Prints the first few and every 1000th
 * behind `who`.  Returns how many it answered.
 */
unsigned int chan_answer(struct chan *c, const char *who);
/* PARTITA_HC_DOORBELL: 0, or -2 if the guest is no member of channel id */
static inline int32_t chan_ring_hvc(unsigned int id)
{
    return (int32_t)hvc_call(PARTITA_HC_DOORBELL, id, 0, 0).r0;
}

#endif
