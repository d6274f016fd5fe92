/*
 * A Partita channel's doorbell page (docs/channels.md): the 4 KiB after
 * the channel's memory in each member, 32-bit registers only; the
 * hypervisor's side is hyp/vdev/doorbell.c.  Included by chan_ring.h;
 * defines only, so that both the guests and the hypervisor read it.
 */
#ifndef CHAN_DOORBELL_H
#define CHAN_DOORBELL_H

#define CHAN_DB_RING       0x00u       /* W: ring the other members */
#define CHAN_DB_ID         0x04u       /* R: the channel id */
#define CHAN_DB_MEMBER     0x08u       /* R: [7:0] own index, [15:8] members, bit 16 read-only */
#define CHAN_DB_MEMBER_COUNT_SHIFT 8u              /* the members: a byte from here */
#define CHAN_DB_MEMBER_READ_ONLY   (1u << 16)      /* its memory is read-only to it */
#define CHAN_DB_RECEIVED   0x0cu       /* R: doorbells raised in this guest */
#define CHAN_DB_SENT       0x10u       /* R: doorbells this guest rang */

#endif
