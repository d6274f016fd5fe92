/*
 * Networks at run time: the owner of every member's port (network.h).
 * A guest's RAM is contiguous and the hypervisor reaches it through its
 * identity map, so a port's window is [RAM IPA, + size) -> mem_base.
 */
#include <stdio.h>
#include <arch/sysregs.h>
#include "network.h"
#include "guest.h"
#include "hyp/vdev/virtio_net.h"
#include "hyp/lib/console.h"
#include "hyp/platform/hyp.h"
#include "hyp/platform/percpu.h"
#include "mm/page_alloc.h"
#include "timer/timer.h"
#include "vgic/vgic.h"

static const struct system_config *net_sys;
static struct net_switch switches[NETWORK_MAX];
/* a port per guest and network slot: a guest is in GUEST_MAX_NETS at most */
static struct net_port ports[GUEST_MAX][GUEST_MAX_NETS];
/* each CPU's frame buffer, from the page pool only when there is a network */
static uint8_t *frames;

static uint8_t *cpu_frame_buffer(void)
{
    return frames + this_cpu()->index * NET_BUF_SIZE;
}

static struct net_port *port_of(const struct guest *g, unsigned int slot)
{
    return &ports[g->id][slot];
}

static struct guest *port_guest(const struct net_port *p)
{
    return &guests[net_sys->networks[p->cfg->id].members[p->cfg->member].guest];
}

static void port_raise(struct net_port *p)
{
    struct guest *g = port_guest(p);
    if (g->state != GUEST_RUNNING) {
        return;     /* no interrupt state to raise: its restart resets the device */
    }
    /* the used ring and the frame are visible before the interrupt (A3.8.3) */
    dsb_ish();
    vgic_inject_edge(&g->vgic, 0, p->cfg->irq);
}

static void port_report(struct net_port *p, const char *why)
{
    struct guest *g = port_guest(p);
    guest_log(g, "guest '%s': network '%s': device needs reset: %s\n", g->cfg->name,
              p->cfg->name, why);
}

void networks_init(const struct system_config *sys)
{
    net_sys = sys;
    if (!sys->nnetworks) {
        return;
    }
    frames = page_alloc((host.ncpus * NET_BUF_SIZE + 0xfffu) / 0x1000u, 1);
    if (!frames) {
        pr_err("networks: out of hypervisor memory for frame buffers: no network devices\n");
        net_sys = NULL;
        return;
    }
    for (unsigned int i = 0u; i < sys->nnetworks; i++) {
        const struct network_config *net = &sys->networks[i];
        struct net_switch *sw = &switches[i];
        sw->raise = port_raise;
        sw->report = port_report;
        sw->frame_buffer = cpu_frame_buffer;
        sw->now = timer_now;
        sw->freq = timer_freq();
        char line[240];
        int n = snprintf(line, sizeof(line), "network '%s':", net->name);
        for (unsigned int m = 0u; m < net->nmembers; m++) {
            const struct guest_config *g = &sys->guest_cfg[net->members[m].guest];
            const struct guest_net *gn = &g->nets[net->members[m].slot];
            net_port_init(&ports[net->members[m].guest][net->members[m].slot], sw, gn);
            /* every port is set up, however long the line grows: a
             * member past a full line once kept a port with no
             * configuration, and the hypervisor faulted on its first
             * access (test_manage.py test_load_into_every_state) */
            if (n <= 0 || n >= (int)sizeof(line)) {
                continue;
            }
            n += snprintf(line + n, sizeof(line) - (size_t)n,
                          "%s %s %02x:%02x:%02x:%02x:%02x:%02x at 0x%08lx (SPI %lu)",
                          m ? "," : "", g->name, gn->mac[0], gn->mac[1], gn->mac[2],
                          gn->mac[3], gn->mac[4], gn->mac[5], (unsigned long)gn->ipa,
                          (unsigned long)gn->irq);
        }
        pr_info("%s\n", line);
    }
}

int network_guest_start(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    if (!net_sys) {
        return 0;
    }
    struct gmem ram = { guest_ram_ipa(c), c->mem_size, (uint8_t *)(uintptr_t)c->mem_base };
    for (unsigned int k = 0u; k < c->nnets; k++) {
        struct net_port *p = port_of(g, k);
        /* on the bus first: a port it cannot reach is never attached */
        if (guest_mmio_add(g, c->nets[k].name, c->nets[k].ipa, VIRTIO_MMIO_SIZE, net_port_mmio,
                           p) != 0) {
            return -1;
        }
        net_port_attach(p, ram);
    }
    return 0;
}

void network_guest_stop(struct guest *g)
{
    for (unsigned int k = 0u; net_sys && k < g->cfg->nnets; k++) {
        net_port_detach(port_of(g, k));
    }
}

void network_print_stats(const struct guest *g)
{
    for (unsigned int k = 0u; net_sys && k < g->cfg->nnets; k++) {
        const struct guest_net *gn = &g->cfg->nets[k];
        const struct net_port *p = port_of(g, k);
        /* counters of another CPU's making: a snapshot, each word read once */
        pr_info("  network '%s': member %u, frames sent %lu, received %lu, dropped sending %lu, "
                "dropped for want of RX buffers %lu, malformed rings %lu%s\n", gn->name,
                gn->member, (unsigned long)__atomic_load_n(&p->st.tx_frames, __ATOMIC_RELAXED),
                (unsigned long)__atomic_load_n(&p->st.rx_frames, __ATOMIC_RELAXED),
                (unsigned long)__atomic_load_n(&p->st.tx_dropped, __ATOMIC_RELAXED),
                (unsigned long)__atomic_load_n(&p->st.rx_dropped, __ATOMIC_RELAXED),
                (unsigned long)__atomic_load_n(&p->st.errors, __ATOMIC_RELAXED),
                (p->dev.status & VIRTIO_STATUS_NEEDS_RESET) ? " (needs reset)" : "");
    }
}
