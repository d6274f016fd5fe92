/*
 * The virtual GIC on the hardware: list registers through GICH, the
 * maintenance interrupt, and physical interrupts forwarded to guests
 * hardware-linked (the virtual timer, passthrough SPIs), so that a guest's
 * EOI of the virtual interrupt deactivates the physical one (GICv2 5.2.1).
 */
#include <arch/sysregs.h>
#include "vgic_hw.h"
#include "vgic_lr.h"
#include "gic.h"
#include "hyp/console.h"
#include "hyp/channel.h"
#include "hyp/guest.h"
#include "hyp/hyp.h"
#include "hyp/percpu.h"
#include "hyp/sched_share.h"

/* the list register count, read once (it is per CPU interface; GIC-400
 * gives every interface the same) */
static unsigned int nr_lrs;

static inline uint32_t h_rd(uint32_t off) { return *(volatile uint32_t *)(gic_gich() + off); }
static inline void h_wr(uint32_t off, uint32_t v) { *(volatile uint32_t *)(gic_gich() + off) = v; }

static inline unsigned int hw_nr_lrs(void *ctx) { return nr_lrs; }
static inline uint32_t hw_read_lr(void *ctx, unsigned int i) { return h_rd(GICH_LR0 + 4 * i); }
static inline void hw_write_lr(void *ctx, unsigned int i, uint32_t v)
{
    h_wr(GICH_LR0 + 4 * i, v);
}
static inline uint32_t hw_empty(void *ctx) { return h_rd(GICH_ELRSR0); }
static inline void hw_set_underflow(void *ctx, bool on)
{
    uint32_t hcr = h_rd(GICH_HCR);
    uint32_t want = on ? (hcr | GICH_HCR_UIE) : (hcr & ~GICH_HCR_UIE);
    if (want != hcr)
        h_wr(GICH_HCR, want);
}
static inline uint32_t hw_vmcr(void *ctx) { return h_rd(GICH_VMCR); }

/* GICH as list-register ops: static const, so the inline code of vgic_lr.h
 * calls these directly */
static const struct vgic_lr_ops hw_ops = {
    hw_nr_lrs, hw_read_lr, hw_write_lr, hw_empty, hw_set_underflow, hw_vmcr, NULL,
};

/* The vCPU loaded on this physical CPU, if any */
static struct vcpu *loaded_vcpu(void)
{
    struct vcpu *v = this_cpu()->vcpu;
    return v && v->loaded ? v : NULL;
}

void vgic_vcpu_flush(struct vcpu *v)
{
    vgic_flush_with(&v->guest->vgic, v->id, &hw_ops);
}

bool vgic_vcpu_wants_wake(struct vcpu *v)
{
    return vgic_has_pending_with(&v->guest->vgic, v->id, &hw_ops);
}

/* Maintenance interrupt: list registers ended (EOI) or ran low (underflow) */
static bool maintenance_irq(unsigned int irq, void *arg)
{
    struct vcpu *v = loaded_vcpu();
    if (!v) {
        h_wr(GICH_HCR, 0);  /* nobody here: silence it */
        return true;
    }
    v->vgic.stats.maintenance++;
    /* the flush below writes GICH_HCR.UIE only when it changes; take the
     * hardware's word for it here, where a stale copy would mean a storm */
    v->vgic.underflow = (h_rd(GICH_HCR) & GICH_HCR_UIE) != 0;
    /* syncing frees the ended list registers (their EISR bits with them)
     * and flushing refills them or clears UIE: the condition is gone
     * before the EOI, so it does not fire again */
    vgic_flush_with(&v->guest->vgic, v->id, &hw_ops);
    return true;
}

/* The virtual timer fired for the vCPU on this CPU: forward it linked */
static bool vtimer_irq(unsigned int irq, void *arg)
{
    struct vcpu *v = loaded_vcpu();
    if (!v) {
        sysreg_write_cntv_ctl(0);   /* a stale timer: mask it at the source */
        return true;
    }
    vgic_inject_edge(&v->guest->vgic, v->id, VBOARD_VTIMER_IRQ);
    return false;
}

/* A passthrough SPI: taken on the physical CPU of its target vCPU */
static bool passthrough_irq(unsigned int irq, void *arg)
{
    struct guest *g = arg;
    if (g->state != GUEST_RUNNING)
        return true;
    vgic_inject_edge(&g->vgic, 0, irq);
    return false;
}

static void env_kick(void *ctx, unsigned int vcpu)
{
    struct guest *g = ctx;
    struct vcpu *v = &g->vcpu[vcpu];
    if (v->share) {
        sched_kick(v);      /* a shared CPU: it may have to switch to v */
        return;
    }
    unsigned int pcpu = v->pcpu;
    if (pcpu != this_cpu()->index)
        gic_kick_cpu(pcpu);
}

static void env_hw_update(void *ctx, unsigned int intid, const struct vgic_irq *irq,
                          unsigned int target)
{
    struct guest *g = ctx;
    if (target < g->cfg->ncpus)
        gic_irq_set_target(intid, g->vcpu[target].pcpu);
    /* keep forwarded interrupts above the hypervisor's priority mask */
    gic_irq_set_priority(intid, (uint8_t)(0x80 | (irq->priority >> 1)));
    if (irq->enabled)
        gic_irq_enable(intid, 0);
    else
        gic_irq_disable(intid);
}

void vgic_hw_cpu_init(void)
{
    h_wr(GICH_HCR, 0);
    unsigned int n = (h_rd(GICH_VTR) & 0x3f) + 1;
    nr_lrs = n;
    for (unsigned int i = 0; i < n; i++)
        h_wr(GICH_LR0 + 4 * i, 0);
    gic_irq_register(host.gic.maint_irq, maintenance_irq, NULL);
    gic_irq_register(host.timer.irq_virt, vtimer_irq, NULL);
    gic_irq_enable(host.gic.maint_irq, 0);
    gic_irq_enable(host.timer.irq_virt, 0);
}

void vgic_guest_init(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    unsigned int nr = 64;
    for (unsigned int i = 0; i < c->npt_irqs; i++)
        if (c->pt_irqs[i] + 1 > nr)
            nr = c->pt_irqs[i] + 1;
    if (channel_max_doorbell(c) + 1 > nr)
        nr = channel_max_doorbell(c) + 1;      /* channel doorbells are virtual SPIs */
    struct vgic_cpu *cpus[VGIC_MAX_VCPUS];
    for (unsigned int i = 0; i < c->ncpus; i++)
        cpus[i] = &g->vcpu[i].vgic;
    struct vgic_env env = { env_kick, env_hw_update, g };
    vgic_init(&g->vgic, nr, c->ncpus, cpus, &env);
    for (unsigned int i = 0; i < c->ncpus; i++)
        vgic_set_hw(&g->vgic, i, VBOARD_VTIMER_IRQ, host.timer.irq_virt);
    for (unsigned int i = 0; i < c->npt_irqs; i++) {
        unsigned int irq = c->pt_irqs[i];
        vgic_set_hw(&g->vgic, 0, irq, irq);
        gic_irq_disable(irq);
        gic_irq_deactivate(irq);
        gic_irq_register(irq, passthrough_irq, g);
        gic_irq_set_target(irq, g->vcpu[0].pcpu);
    }
}

void vgic_guest_release(struct guest *g)
{
    for (unsigned int i = 0; i < g->cfg->npt_irqs; i++) {
        gic_irq_disable(g->cfg->pt_irqs[i]);
        gic_irq_deactivate(g->cfg->pt_irqs[i]);
    }
}

bool vgic_dist_handler(void *dev, struct mmio_access *a, uint32_t offset)
{
    struct guest *g = dev;
    /* the hot ones first: constant reads, and SGIR (every IPI) */
    if (!a->write && a->size == 4 && vgic_dist_const_read(&g->vgic, offset, &a->value))
        return true;
    unsigned int vcpu = this_cpu()->vcpu->id;
    if (a->write && offset == 0xf00 && a->size == 4) {
        vgic_send_sgi(&g->vgic, vcpu, a->value);
        return true;
    }
    /* the list registers of this vCPU hold the freshest state of its
     * interrupts: take it back before the guest reads the distributor */
    if (!a->write && offset >= 0x200 && offset < 0x400)
        vgic_sync_with(&g->vgic, vcpu, &hw_ops);
    return vgic_dist_mmio(&g->vgic, vcpu, a, offset);
}
