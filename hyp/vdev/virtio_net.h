/*
 * A virtio network device per member of a network (virtio 1.x section
 * 5.1), and the switch between them: a frame a member puts on its TX
 * queue is copied into a free RX buffer of its destination(s) - the member
 * whose MAC it names, or every other member for broadcast and multicast.
 * Pure: the owner gives each port its guest's RAM and the hooks that raise
 * interrupts and report faults (hyp/guest/network.c).
 */
#ifndef HYP_VIRTIO_NET_H
#define HYP_VIRTIO_NET_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/config/guest_config.h"
#include "hyp/lib/ratelimit.h"
#include "hyp/lib/spinlock.h"
#include "virtio_mmio.h"

#define VIRTIO_ID_NET          1u
#define VIRTIO_NET_F_MAC       (1ull << 5)
#define VIRTIO_NET_F_STATUS    (1ull << 16)
#define VIRTIO_NET_S_LINK_UP   1u
#define NET_QUEUE_RX           0u
#define NET_QUEUE_TX           1u
/* struct virtio_net_hdr with VERSION_1: 12 bytes, num_buffers last (5.1.6) */
#define NET_HDR_LEN            12u
#define NET_HDR_NUM_BUFFERS    10u
#define NET_ETH_HLEN           14u      /* destination, source, type */
#define NET_FRAME_MAX          1518u    /* 1500 bytes of payload, a VLAN tag */
#define NET_BUF_SIZE           (NET_HDR_LEN + NET_FRAME_MAX)    /* a TX chain copied out */
/*
 * The work of one exit (docs/networks.md, "Bounded work";
 * docs/threat-model.md): a notifying member sends frames while it has sent
 * fewer than its frame-budget, and the descriptors visited and bytes copied -
 * its TX chains' and its receivers' RX chains' - are under these bounds.
 * They are checked between frames, and one frame costs at most VIRTQ_NUM_MAX
 * descriptors and NET_BUF_SIZE bytes at each of NETWORK_MAX_MEMBERS ports,
 * so an exit visits fewer than NET_TX_DESCS_PER_EXIT + NET_FRAME_DESCS_MAX
 * descriptors and copies fewer than NET_TX_BYTES_PER_EXIT +
 * NET_FRAME_BYTES_MAX bytes.  The frames left go on at the next notify or
 * InterruptStatus read.  A member's honest frame (a descriptor or two, one
 * RX buffer at each receiver) never meets the descriptor bound before its
 * frame-budget; broadcast at the largest frame-budget meets the byte bound.
 */
#define NET_TX_DESCS_PER_EXIT  4096u
#define NET_TX_BYTES_PER_EXIT  ((unsigned int)1u << 20)
#define NET_FRAME_DESCS_MAX    (VIRTQ_NUM_MAX * NETWORK_MAX_MEMBERS)
#define NET_FRAME_BYTES_MAX    (NET_BUF_SIZE * NETWORK_MAX_MEMBERS)
/* the configuration space: mac[6], status (5.1.4) */
#define NET_CONFIG_STATUS      6u
#define NET_CONFIG_SIZE        8u

struct net_stats {
    uint32_t tx_frames, rx_frames;
    uint32_t tx_dropped;        /* its frames to nobody, too short or long, spoofed,
                                 * over its frame-rate */
    uint32_t rx_dropped;        /* frames for it while it had no free RX buffer, or
                                 * the next was too small (consumed empty) */
    uint32_t errors;            /* malformed rings (NEEDS_RESET) */
};

struct net_switch;

struct net_port {
    struct vmmio dev;
    spinlock_t lock;            /* dev and stats: its vCPUs and other members' senders */
    spinlock_t tx_lock;         /* its TX run (two vCPUs may notify); taken before any lock */
    const struct guest_net *cfg;
    struct net_switch *sw;
    bool attached;              /* its guest's RAM may be written */
    struct ratelimit rate;      /* its frame-rate (tx_lock) */
    struct net_stats st;
    /* the work of its last TX run, descriptors and bytes (tx_lock; for
     * the unit tests and fuzzing, which assert the bounds above) */
    uint32_t last_descs, last_bytes;
};

struct net_switch {
    unsigned int n;
    struct net_port *ports[NETWORK_MAX_MEMBERS];
    /* raise port's interrupt (outside every lock) */
    void (*raise)(struct net_port *port);
    /* port's device stopped on a malformed ring (under its lock) */
    void (*report)(struct net_port *port, const char *why);
    /* NET_BUF_SIZE bytes of this CPU's own, for the frame a TX run copies
     * out (a CPU runs one exit at a time: one buffer each, not one a port) */
    uint8_t *(*frame_buffer)(void);
    /* the time for frame-rate: a tick counter and its ticks a second */
    uint64_t (*now)(void);
    uint64_t freq;
};

/* Join port to sw as member cfg->member (boot) */
void net_port_init(struct net_port *p, struct net_switch *sw, const struct guest_net *cfg);
/* Its guest starts (a reset device over this RAM) or stops (no more frames) */
void net_port_attach(struct net_port *p, struct gmem mem);
void net_port_detach(struct net_port *p);
/* The guest's access to the device's registers (mmio_handler_t) */
bool net_port_mmio(void *port, struct mmio_access *a, uint32_t off);
/* Send up to the member's frame budget from its TX queue: the frames sent */
unsigned int net_port_tx(struct net_port *p);

#endif
