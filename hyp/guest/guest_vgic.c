/*
 * A guest's virtual GIC: its distributor model set up at start (size,
 * vCPUs, the hardware-linked virtual timer), and its passthrough SPIs,
 * forwarded hardware-linked so that the guest's EOI deactivates the
 * physical interrupt (GICv2 5.2.1).
 */
#include "guest.h"
#include "guest_vgic.h"
#include "hyp/config/channel_query.h"
#include "hyp/platform/hyp.h"
#include "hyp/sched/sched.h"
#include "vgic/gic.h"
#include "vgic/vgic_hw.h"
#include "vgic/vgic_pt.h"

/* A passthrough SPI: taken on the physical CPU of its target vCPU */
static bool passthrough_irq(unsigned int irq, void *arg)
{
    struct guest *g = arg;
    if (g->state != GUEST_RUNNING) {
        return true;
    }
    vgic_hw_acked(&g->vgic, irq);
    vgic_inject_edge(&g->vgic, 0, irq);
    return false;
}

static void env_kick(void *ctx, unsigned int vcpu)
{
    struct guest *g = ctx;
    vcpu_kick(&g->vcpu[vcpu]);  /* a shared CPU: it may have to switch to it */
}

static void env_hw_update(void *ctx, unsigned int intid, const struct vgic_irq *irq,
                          unsigned int target)
{
    struct guest *g = ctx;
    if (target < g->cfg->ncpus) {
        gic_irq_set_target(intid, g->vcpu[target].pcpu);
    }
    /* keep forwarded interrupts above the hypervisor's priority mask; a
     * direct guest's priorities are its own, compared with its own PMR in
     * the non-secure view of both (GICv2 3.6.2), always below Group 0's.
     * Its PPIs are written here on its own CPU (banked): it trapped here */
    if (guest_vm(g)->vgic.direct) {
        gic_irq_set_priority(intid, irq->priority);
    } else {
        gic_irq_set_priority(intid, (uint8_t)(0x80u | (irq->priority >> 1u)));
    }
    if (irq->enabled) {
        gic_irq_enable(intid, 0);
    } else {
        gic_irq_disable(intid);
    }
}

/* A passthrough SPI's physical pending and active state (vgic_env) */
static uint32_t env_hw_read(void *ctx, uint32_t off)
{
    return gic_state_read(off);
}

static void env_hw_write(void *ctx, uint32_t off, uint32_t bits)
{
    gic_state_write(off, bits);
}

/*
 * A direct guest's GICD_SGIR (docs/direct-interrupts.md): its vCPUs own
 * their CPUs' physical interfaces, so an SGI between them is a physical
 * Group 1 SGI to the CPUs of the target vCPUs (GICv2 4.3.15: the target
 * filters as the guest gave them, over its own vCPUs only).  SGI 15 is the
 * hypervisor's kick there (Group 0): a non-secure write cannot send it, so
 * the guest's SGI 15 is lost.  The receiver reads the source CPU field of
 * GICC_IAR as the physical CPU interface number.
 */
static void direct_sgi(struct guest *g, uint32_t sgir)
{
    unsigned int self = this_cpu()->vcpu->id, n = g->cfg->ncpus;
    uint32_t vcpus;
    switch ((sgir >> 24) & 3u) {
    case 0: vcpus = (sgir >> 16) & 0xffu; break;
    case 1: vcpus = 0xffu & ~(1u << self); break;
    case 2: vcpus = 1u << self; break;
    default: return;
    }
    uint32_t cpu_mask = 0u;
    for (unsigned int i = 0u; i < n; i++) {
        if ((vcpus & (1u << i)) != 0u) {
            cpu_mask |= 1u << g->vcpu[i].pcpu;
        }
    }
    gic_send_sgi_cpus(sgir & 0xfu, cpu_mask);
}

/* The bits of bank word n (interrupts 32n to 32n + 31) that are a direct
 * guest's own hardware interrupts: its passthrough SPIs, and its vCPU's
 * SGIs (but the kick, SGI_KICK_G0) and timer PPI, which are banked: this
 * CPU's, where that vCPU runs and trapped */
static uint32_t direct_own(struct guest *g, unsigned int vcpu, unsigned int n)
{
    uint32_t own = n == 0u ? ((unsigned int)1u << SGI_KICK_G0) - 1u : 0u;
    unsigned int first = 0u;
    if (n == 0u) {
        first = 16u;            /* the SGIs: the kick's, above */
    }
    for (unsigned int i = first; i < 32u; i++) {
        if (vgic_get_irq(&g->vgic, vcpu, 32u * n + i)->hw) {
            own |= 1u << i;
        }
    }
    return own;
}

/*
 * A direct guest's pending and active bits (GICD_ISPENDR to GICD_ICACTIVER,
 * GICv2 4.3.7-4.3.10) are the physical distributor's: its interrupts come
 * through the physical CPU interface, which never sees the model's.  So a
 * word read gives the hardware's bits of its own interrupts (others read
 * 0), and a write sets or clears those alone (others are ignored, as a
 * distributor ignores 0s).  Other sizes go to the model: RAZ/WI, as for
 * every word-only register (GICv2 4.1.4), or an abort if unaligned.
 */
static bool direct_state(struct guest *g, struct mmio_access *a, uint32_t offset)
{
    unsigned int n = (offset % 0x80u) / 4u;
    if (32u * n >= g->vgic.nr_irqs) {
        return vgic_dist_handler(&g->vgic, a, offset);     /* past its interrupts */
    }
    uint32_t own = direct_own(g, a->vcpu, n);
    if (a->write) {
        gic_state_write(offset, a->value & own);
    } else {
        a->value = gic_state_read(offset) & own;
    }
    return true;
}

bool guest_vgic_direct_dist(void *dev, struct mmio_access *a, uint32_t offset)
{
    struct guest *g = dev;
    if (a->write && (offset == (uint32_t)GICD_SGIR) && (a->size == 4u)) {
        direct_sgi(g, a->value);
        return true;
    }
    if ((offset >= (uint32_t)GICD_ISPENDR) && (offset < (uint32_t)GICD_IPRIORITYR) &&
        (a->size == 4u) && ((offset & 3u) == 0u)) {
        return direct_state(g, a, offset);
    }
    return vgic_dist_handler(&g->vgic, a, offset);
}

void guest_vgic_init(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    unsigned int nr = 64u;
    for (unsigned int i = 0u; i < c->npt_irqs; i++) {
        if (c->pt_irqs[i] + 1u > nr) {
            nr = c->pt_irqs[i] + 1u;
        }
    }
    if (channel_max_doorbell(c) + 1u > nr) {
        nr = channel_max_doorbell(c) + 1u;      /* doorbells, network devices: virtual SPIs */
    }
    struct vgic_cpu *cpus[VGIC_MAX_VCPUS];
    for (unsigned int i = 0u; i < c->ncpus; i++) {
        cpus[i] = &g->vcpu[i].vgic;
    }
    struct vgic_env env = { .kick = env_kick, .hw_update = env_hw_update, .ctx = g,
                            .hw_read = env_hw_read, .hw_write = env_hw_write };
    vgic_init(&g->vgic, nr, c->ncpus, cpus, &env);
    g->vgic.direct = c->irq_mode == IRQ_DIRECT;
    for (unsigned int i = 0u; i < c->ncpus; i++) {
        vgic_set_hw(&g->vgic, i, VBOARD_VTIMER_IRQ, host.timer.irq_virt);
        if (g->vcpu[i].pmu && host.pmu_irq) {
            vgic_set_hw(&g->vgic, i, VBOARD_PMU_IRQ, host.pmu_irq);     /* its overflows */
        }
    }
    for (unsigned int i = 0u; i < c->npt_irqs; i++) {
        unsigned int irq = c->pt_irqs[i];
        vgic_set_hw(&g->vgic, 0, irq, irq);
        gic_irq_disable(irq);
        gic_irq_deactivate(irq);
        gic_irq_register(irq, passthrough_irq, g);
        gic_irq_set_target(irq, g->vcpu[0].pcpu);
    }
}

void guest_vgic_release(struct guest *g)
{
    for (unsigned int i = 0u; i < g->cfg->npt_irqs; i++) {
        gic_irq_disable(g->cfg->pt_irqs[i]);
        gic_irq_deactivate(g->cfg->pt_irqs[i]);
    }
}
