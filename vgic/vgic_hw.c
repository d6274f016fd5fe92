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
#include "hyp/lib/console.h"
#include "hyp/platform/hyp.h"
#include "hyp/platform/percpu.h"
#include "hyp/config/guest_config.h"    /* VBOARD_VTIMER_IRQ */

/* the list registers implemented, as a mask, read once (it is per CPU
 * interface; GIC-400 gives every interface the same) */
static uint32_t lr_mask;

static inline uint32_t h_rd(uint32_t off) { return *(volatile uint32_t *)(gic_gich() + off); }
static inline void h_wr(uint32_t off, uint32_t v) { *(volatile uint32_t *)(gic_gich() + off) = v; }

static inline uint32_t hw_lr_mask(void *ctx) { return lr_mask; }
static inline uint32_t hw_read_lr(void *ctx, unsigned int i) { return h_rd(GICH_LR0 + 4u * i); }
static inline void hw_write_lr(void *ctx, unsigned int i, uint32_t v)
{
    h_wr(GICH_LR0 + (4u * i), v);
}
static inline uint32_t hw_empty(void *ctx) { return h_rd(GICH_ELRSR0); }
static inline void hw_set_underflow(void *ctx, bool on)
{
    uint32_t hcr = h_rd(GICH_HCR);
    uint32_t want = on ? (hcr | GICH_HCR_UIE) : (hcr & ~GICH_HCR_UIE);
    if (want != hcr) {
        h_wr(GICH_HCR, want);
    }
}
static inline uint32_t hw_vmcr(void *ctx) { return h_rd(GICH_VMCR); }

/* GICH as list-register ops: static const, so the inline code of vgic_lr.h
 * calls these directly */
static const struct vgic_lr_ops hw_ops = {
    hw_lr_mask, hw_read_lr, hw_write_lr, hw_empty, hw_set_underflow, hw_vmcr, NULL,
};

/* The virtual CPU interface loaded on this physical CPU (vgic_sr.c), if any */
static struct vgic_cpu *loaded(void)
{
    return this_cpu()->vgic;
}

void vgic_cpu_flush(struct vgic_cpu *c)
{
    vgic_flush_with(c->dist, c->id, &hw_ops);
}

bool vgic_cpu_wants_wake(struct vgic_cpu *c)
{
    return vgic_has_pending_with(c->dist, c->id, &hw_ops);
}

/* A read the list registers' state goes into (pending and active bits:
 * they hold the freshest state of this vCPU's interrupts): taken back
 * first, by the flush the guest's entry would run anyway (what it places
 * reads as pending, in a list register and not active).  Out of line, so
 * that the handler's other paths need no frame. */
static bool __attribute__((noinline)) synced_read(struct vgic *d, struct mmio_access *a,
                                                  uint32_t offset, unsigned int vcpu)
{
    vgic_cpu_flush(d->cpu[vcpu]);
    return vgic_dist_access(d, a, offset, vcpu);
}

bool vgic_dist_handler(void *dev, struct mmio_access *a, uint32_t offset)
{
    struct vgic *d = dev;
    /* the control block (CTLR, TYPER, IIDR) is nobody's in particular */
    if (offset < GICD_IGROUPR) {
        return vgic_dist_mmio(d, a, offset, 0);
    }
    /* the caller (a->vcpu): the trapping vCPU, whose interface is loaded
     * here.  The hot one first: SGIR (every IPI), a word write (one
     * compare) */
    if ((offset == GICD_SGIR) && (a->info == MMIO_INFO(4, true))) {
        return vgic_send_sgi(d, a->vcpu, a->value);
    }
    if (!a->write && (offset >= GICD_ISPENDR) && (offset < GICD_IPRIORITYR)) {
        return synced_read(d, a, offset, a->vcpu);
    }
    return vgic_dist_access(d, a, offset, a->vcpu);   /* past the control block */
}

/* Maintenance interrupt: list registers ended (EOI) or ran low (underflow) */
static bool maintenance_irq(unsigned int irq, void *arg)
{
    struct vgic_cpu *c = loaded();
    if (!c) {
        h_wr(GICH_HCR, 0);  /* nobody here: silence it */
        return true;
    }
    c->stats.maintenance++;
    /* the flush below writes GICH_HCR.UIE only when it changes; take the
     * hardware's word for it here, where a stale copy would mean a storm */
    c->underflow = (h_rd(GICH_HCR) & GICH_HCR_UIE) != 0u;
    /* syncing frees the ended list registers (their EISR bits with them)
     * and flushing refills them or clears UIE: the condition is gone
     * before the EOI, so it does not fire again */
    vgic_flush_with(c->dist, c->id, &hw_ops);
    return true;
}

/* The virtual timer fired for the vCPU on this CPU: forward it linked */
static bool vtimer_irq(unsigned int irq, void *arg)
{
    struct vgic_cpu *c = loaded();
    if (!c) {
        sysreg_write_cntv_ctl(0);   /* a stale timer: mask it at the source */
        return true;
    }
    vgic_ppi_fired(c, VBOARD_VTIMER_IRQ);
    return false;
}

/*
 * The PMU's overflow interrupt: the loaded vCPU's, forwarded linked like
 * the virtual timer's.  With none loaded (an exclusive CPU between
 * vcpu_put and vcpu_load: shared CPUs quiet the PMU when they switch) it is
 * masked at the source until its vCPU is back (hyp/arch/vcpu.c).
 */
static bool (*pmu_reserved_irq)(void);
static uint32_t pmu_guest_inten = ~0u;

void vgic_hw_pmu_reserve(uint32_t guest_bits, bool (*own)(void))
{
    pmu_guest_inten = guest_bits;
    pmu_reserved_irq = own;
}

static bool pmu_irq(unsigned int irq, void *arg)
{
    /* the hypervisor's counter first: an interrupt of its alone ends here */
    if (pmu_reserved_irq && pmu_reserved_irq()) {
        return true;
    }
    struct vgic_cpu *c = loaded();
    if (!c) {
        this_cpu()->pmu_inten_parked |= sysreg_read_pmintenset() & pmu_guest_inten;
        sysreg_write_pmintenclr(pmu_guest_inten);
        return true;
    }
    vgic_ppi_fired(c, VBOARD_PMU_IRQ);
    return false;
}

void vgic_hw_cpu_init(void)
{
    h_wr(GICH_HCR, 0);
    unsigned int n = (h_rd(GICH_VTR) & 0x3fu) + 1u;
    lr_mask = (n >= VGIC_MAX_LRS) ? ~0u : (((unsigned int)1u << n) - 1u);    /* we use 32 at most */
    for (unsigned int i = 0u; i < n; i++) {
        h_wr(GICH_LR0 + (4u * i), 0);
    }
    gic_irq_register(host.gic.maint_irq, maintenance_irq, NULL);
    gic_irq_register(host.timer.irq_virt, vtimer_irq, NULL);
    gic_irq_enable(host.gic.maint_irq, 0);
    gic_irq_enable(host.timer.irq_virt, 0);
    if (host.pmu_irq != 0u) {
        gic_irq_register(host.pmu_irq, pmu_irq, NULL);
        gic_irq_enable(host.pmu_irq, 0);
    }
}

