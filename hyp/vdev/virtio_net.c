/*
 * The network switch (virtio_net.h).  Locks: a port's tx_lock serializes
 * its sending and is taken first; a port's lock guards its device and is
 * never held with another: a sender copies the frame out (into its CPU's
 * frame buffer) under its own lock, drops it, then takes each receiver's
 * lock in turn.  Work per exit is bounded by the sender's frame budget and
 * NET_TX_DESCS_PER_EXIT / NET_TX_BYTES_PER_EXIT; frames left on the queue
 * go out on its next notify or when its driver reads InterruptStatus
 * (which its interrupt handler does first).
 */
#include <string.h>
#include "virtio_net.h"

_Static_assert((size_t)offsetof(struct net_port, dev) == 0u, "the transport's device is the port");

static const uint8_t group_bit = 1;     /* I/G bit of the first octet: broadcast, multicast */

static uint32_t net_config_read(struct vmmio *d, uint32_t off, unsigned int size)
{
    struct net_port *p = (struct net_port *)d;     /* dev is the first member */
    uint8_t cfg[NET_CONFIG_SIZE] = { 0 };
    (void)memcpy(cfg, p->cfg->mac, NET_MAC_LEN);
    cfg[NET_CONFIG_STATUS] = VIRTIO_NET_S_LINK_UP;
    uint32_t v = 0u;
    for (unsigned int i = 0u; i < size; i++) {
        if (off + i < NET_CONFIG_SIZE) {
            v |= (uint32_t)cfg[off + i] << (8u * i);
        }
    }
    return v;
}

static const struct vmmio_ops net_ops = {
    .device_id = VIRTIO_ID_NET,
    .features = VIRTIO_F_VERSION_1 | VIRTIO_NET_F_MAC | VIRTIO_NET_F_STATUS,
    .nqueues = 2,
    .config_read = net_config_read,
};

void net_port_init(struct net_port *p, struct net_switch *sw, const struct guest_net *cfg)
{
    (void)memset(p, 0, sizeof(*p));
    vmmio_init(&p->dev, &net_ops, (struct gmem){ 0, 0, NULL });
    p->cfg = cfg;
    p->sw = sw;
    sw->ports[cfg->member] = p;
    if (cfg->member >= sw->n) {
        sw->n = cfg->member + 1u;
    }
}

void net_port_attach(struct net_port *p, struct gmem mem)
{
    spin_lock(&p->tx_lock);
    spin_lock(&p->lock);
    vmmio_init(&p->dev, &net_ops, mem);
    (void)memset(&p->st, 0, sizeof(p->st));
    (void)memset(&p->rate, 0, sizeof(p->rate));
    p->attached = true;
    spin_unlock(&p->lock);
    spin_unlock(&p->tx_lock);
}

void net_port_detach(struct net_port *p)
{
    spin_lock(&p->tx_lock);
    spin_lock(&p->lock);
    p->attached = false;
    vmmio_init(&p->dev, &net_ops, (struct gmem){ 0, 0, NULL });
    spin_unlock(&p->lock);
    spin_unlock(&p->tx_lock);
}

/* under p->lock: the device stopped on a malformed ring (dev.error) */
static void port_fail_report(struct net_port *p)
{
    p->st.errors++;
    p->sw->report(p, virtq_strerror(p->dev.error));
}

/* under p->lock: a malformed ring stops the device; true the first time
 * (its configuration interrupt is due) */
static bool port_fail(struct net_port *p, int err)
{
    bool first = !(p->dev.status & VIRTIO_STATUS_NEEDS_RESET);
    vmmio_fail(&p->dev, err);
    if (first) {
        port_fail_report(p);
    }
    return first;
}

/* Work an exit has done so far (NET_TX_*_PER_EXIT) */
struct net_work {
    uint32_t descs, bytes;
};

/* One frame into p's RX queue: true when p's interrupt is due.  A buffer
 * too small for the frame (the driver SHOULD give at least 1526 bytes,
 * virtio 1.x 5.1.6.3.1) is consumed: handed back with used len 0, the
 * frame dropped and counted; put back at the head, it would stop every
 * later frame. */
static bool port_receive(struct net_port *p, const uint8_t *frame, uint32_t len,
                         struct net_work *w)
{
    static const uint8_t hdr[NET_HDR_LEN] = { [NET_HDR_NUM_BUFFERS] = 1 };
    struct virtq *q = &p->dev.q[NET_QUEUE_RX];
    uint16_t head = 0;
    uint32_t written = 0u;
    bool irq = false, used = false;
    spin_lock(&p->lock);
    int r = p->attached && vmmio_live(&p->dev) && q->ready ? virtq_pop(q, &head) : 0;
    if (r > 0) {
        r = virtq_scatter(q, &p->dev.mem, head, hdr, NET_HDR_LEN, frame, len, &written,
                          &w->descs);
        w->bytes += written;
        if (r >= 0) {
            virtq_push(q, head, r > 0 ? written : 0u);
            used = true;
        }
    }
    if (r > 0) {
        p->st.rx_frames++;
    } else {
        p->st.rx_dropped++;
        if (r < 0) {
            irq = port_fail(p, r);
        }
    }
    if (used && virtq_wants_interrupt(q)) {
        p->dev.isr |= VMMIO_INT_VRING;
        irq = true;
    }
    spin_unlock(&p->lock);
    return irq;
}

/* The members a frame from member src goes to (bit per member) */
static uint32_t destinations(const struct net_switch *sw, unsigned int src, const uint8_t *dst)
{
    uint32_t mask = 0u;
    for (unsigned int m = 0u; m < sw->n; m++) {
        const struct net_port *p = sw->ports[m];
        if (m == src || !p) {
            continue;
        }
        if ((dst[0] & group_bit) || memcmp(dst, p->cfg->mac, NET_MAC_LEN) == 0) {
            mask |= 1u << m;
        }
    }
    return mask;
}

/* Switch the frame of len bytes after the header in buf: the members
 * whose interrupt is due */
static uint32_t port_switch(struct net_port *s, const uint8_t *buf, uint32_t len,
                            struct net_work *w)
{
    const uint8_t *f = &buf[NET_HDR_LEN];
    uint32_t mask = 0u, raise = 0u, unused;
    /* its frame-rate: a burst of its frame budget, then one a period */
    bool over = s->cfg->rate &&
                !ratelimit_pass(&s->rate, s->sw->now(), s->sw->freq / s->cfg->rate,
                                s->cfg->budget, &unused);
    /* the source must be its own address: no member speaks for another */
    bool drop = over || (len < NET_ETH_HLEN) || (len > NET_FRAME_MAX) ||
                (memcmp(&f[NET_MAC_LEN], s->cfg->mac, NET_MAC_LEN) != 0);
    if (!drop) {
        mask = destinations(s->sw, s->cfg->member, f);
        drop = mask == 0u;
    }
    if (drop) {
        spin_lock(&s->lock);
        s->st.tx_dropped++;
        spin_unlock(&s->lock);
        return 0;
    }
    for (unsigned int m = 0u; m < s->sw->n; m++) {
        if ((mask & (1u << m)) && port_receive(s->sw->ports[m], f, len, w)) {
            raise |= 1u << m;
        }
    }
    return raise;
}

/* Under s->lock: one chain off s's TX queue into buf.  1: a frame of
 * *len bytes (maybe too short or long: the switch drops it); 0: none left
 * or the device stopped.  *irq: s's own interrupt is due. */
static int port_take(struct net_port *s, uint8_t *buf, uint32_t *len, bool *irq,
                     struct net_work *w)
{
    struct virtq *q = &s->dev.q[NET_QUEUE_TX];
    uint16_t head = 0;
    uint32_t total = 0u;
    int r = s->attached && vmmio_live(&s->dev) && q->ready ? virtq_pop(q, &head) : 0;
    if (r > 0) {
        int g = virtq_gather(q, &s->dev.mem, head, buf, NET_BUF_SIZE, &total, &w->descs);
        w->bytes += total < NET_BUF_SIZE ? total : NET_BUF_SIZE;
        r = g < 0 ? g : r;
    }
    if (r < 0) {
        *irq |= port_fail(s, r);
    }
    if (r <= 0) {
        return 0;
    }
    virtq_push(q, head, 0);
    if (virtq_wants_interrupt(q)) {
        s->dev.isr |= VMMIO_INT_VRING;
        *irq = true;
    }
    s->st.tx_frames++;
    *len = total < NET_HDR_LEN ? 0u : total - NET_HDR_LEN;
    return 1;
}

static void raise_members(struct net_switch *sw, uint32_t mask)
{
    for (unsigned int m = 0u; m < sw->n; m++) {
        if ((mask & (1u << m)) != 0u) {
            sw->raise(sw->ports[m]);
        }
    }
}

unsigned int net_port_tx(struct net_port *s)
{
    unsigned int sent = 0u;
    uint32_t raise = 0u;
    bool own = false;
    struct net_work w = { 0, 0 };
    uint8_t *buf = s->sw->frame_buffer();
    spin_lock(&s->tx_lock);
    while (sent < s->cfg->budget && w.descs < NET_TX_DESCS_PER_EXIT &&
           w.bytes < NET_TX_BYTES_PER_EXIT) {
        uint32_t len = 0u;
        spin_lock(&s->lock);
        int r = port_take(s, buf, &len, &own, &w);
        spin_unlock(&s->lock);
        if (!r) {
            break;
        }
        raise |= port_switch(s, buf, len, &w);
        sent++;
    }
    s->last_descs = w.descs;
    s->last_bytes = w.bytes;
    spin_unlock(&s->tx_lock);
    if (own) {
        raise |= 1u << s->cfg->member;
    }
    raise_members(s->sw, raise);
    return sent;
}

bool net_port_mmio(void *port, struct mmio_access *a, uint32_t off)
{
    struct net_port *p = port;
    spin_lock(&p->lock);
    bool was_failed = p->dev.status & VIRTIO_STATUS_NEEDS_RESET;
    bool ok = vmmio_access(&p->dev, a, off);
    uint32_t notified = p->dev.notified;
    p->dev.notified = 0u;
    /* its interrupt handler reads the status first: send what the budget left */
    bool more = ok && !a->write && (off == VMMIO_INTERRUPT_STATUS) &&
                virtq_has_avail(&p->dev.q[NET_QUEUE_TX]);
    /* a ring found malformed at QueueReady: its configuration interrupt */
    bool failed = !was_failed && (p->dev.status & VIRTIO_STATUS_NEEDS_RESET);
    if (failed) {
        port_fail_report(p);
    }
    spin_unlock(&p->lock);
    if (failed) {
        p->sw->raise(p);
    }
    /* RX notifies need nothing: frames find the buffers when they come */
    if ((notified & (1u << NET_QUEUE_TX)) || more) {
        (void)net_port_tx(p);
    }
    return ok;
}
