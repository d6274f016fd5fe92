/*
 * The virtual GIC: the distributor
 * is emulated per guest; the CPU interface is the hardware GICV, fed through
 * the GICH list registers.  Guests acknowledge and end interrupts without
 * trapping.  GICv2 spec (IHI 0048B) chapters 4 (distributor) and 5
 * (virtualization extensions).
 */
#ifndef VGIC_VGIC_H
#define VGIC_VGIC_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/vdev/mmio.h"
#include "hyp/lib/spinlock.h"
#include "gicd_regs.h"

#define VGIC_MAX_IRQS    256u     /* INTIDs a guest can have: SGI, PPI, SPIs */
#define VGIC_MAX_VCPUS   8u
#define VGIC_MAX_LRS     32u      /* GICv2 allows 64; GIC-400 has 4 */
#define VGIC_NR_PRIVATE  32u

struct vgic_irq {
    uint8_t priority;
    uint8_t targets;            /* ITARGETSR byte (SPIs) */
    uint8_t sgi_src;            /* SGIs: source vCPUs with a pending request */
    uint8_t pt;                 /* a passthrough SPI's VGIC_PT_* (vgic_pt.c) */
    uint16_t hwirq;             /* physical INTID when hw */
    bool enabled, pending, active;
    bool edge;                  /* ICFGR: edge-triggered */
    bool level;                 /* line level of a level-sensitive source */
    bool hw;                    /* hardware-linked: the guest's EOI deactivates hwirq */
    bool group1;
    bool in_lr;
};

/* made pending by the guest (ISPENDR): pending until the guest takes it
 * or clears it, whatever its line does (4.3.7); TAKEN once a list register
 * holds it (the physical latch is then spent) */
#define VGIC_PT_LATCHED 1u
#define VGIC_PT_TAKEN   2u
/* cleared pending by the guest (ICPENDR) while a list register holds it
 * pending: its owner's flush takes it back */
#define VGIC_PT_UNPEND  4u

/* The list registers of the physical CPU a vCPU runs on, or a model of them */
struct vgic_lr_ops {
    /* the list registers implemented, as a mask of the low ones: GICH_VTR
     * ListRegs + 1 of them, at most VGIC_MAX_LRS (5.3.3) */
    uint32_t (*lr_mask)(void *ctx);
    uint32_t (*read_lr)(void *ctx, unsigned int i);
    void (*write_lr)(void *ctx, unsigned int i, uint32_t v);
    /* GICH_ELRSR0: bit set, the list register is empty (no state, no EOI
     * maintenance pending, GICv2 5.3.10) */
    uint32_t (*empty)(void *ctx);
    void (*set_underflow)(void *ctx, bool on);  /* GICH_HCR.UIE */
    uint32_t (*vmcr)(void *ctx);
    void *ctx;
};

/* queued's bit for a flush that only looks again at a passthrough SPI a
 * list register holds pending (hw_withdraw); not work a WFI wakes for */
#define VGIC_QUEUED_WATCH 2u

struct vgic_vcpu_stats {
    uint32_t injected, maintenance, sgis_sent, overflow;
};

struct vgic_cpu {
    /* something waits to go into a list register.  A word, and first: the
     * guest entry (hyp/arch/entry.S) loads it with the vCPU's requests
     * before it in one LDRD.  VGIC_QUEUED_WATCH alone: nothing waits, but
     * the next entry flushes to look at a passthrough SPI again */
    uint32_t queued;
    struct vgic_irq priv[VGIC_NR_PRIVATE];
    uint32_t lr_used;           /* list registers holding our interrupts */
    uint16_t lr_intid[VGIC_MAX_LRS];    /* what each of them holds */
    /* INTIDs that may want a list register (a superset: set whenever one
     * becomes deliverable, cleared when a flush finds it does not), so a
     * flush looks at a few bits instead of every interrupt's state */
    uint32_t maybe[VGIC_MAX_IRQS / 32u];
    uint32_t maybe_words;       /* bit w: maybe[w] may be non-zero */
    bool lr_stale;              /* a group or priority changed under a list register */
    bool underflow;             /* GICH_HCR.UIE as last set for this vCPU */
    /* forwarded PPIs (virtual timer, PMU; bit n: INTID 16 + n) taken on the
     * vCPU's own CPU and not yet pending in the model (vgic_ppi_fired):
     * written by that CPU only, taken in under the lock by its next flush
     * or sync.  In what was padding: the vCPU's size stays */
    uint16_t ppi_fired;
    /* GICH state while the vCPU is away from its physical CPU */
    uint32_t hcr, vmcr, apr;
    uint32_t lrs[VGIC_MAX_LRS];
    struct vgic_vcpu_stats stats;
    struct vgic *dist;          /* the distributor it belongs to (vgic_init) */
    unsigned int id;            /* its vCPU number there */
};

struct vgic;

/* What the distributor model needs from the rest of the hypervisor */
struct vgic_env {
    /* a vCPU has new work: kick it if it runs elsewhere */
    void (*kick)(void *ctx, unsigned int vcpu);
    /* a passthrough SPI's guest-visible state changed: mirror it */
    void (*hw_update)(void *ctx, unsigned int intid, const struct vgic_irq *irq,
                      unsigned int target_vcpu);
    void *ctx;
    /* The physical distributor's pending and active banks (GICD_ISPENDR to
     * GICD_ICACTIVER, off a word offset there): a word read, or bits set or
     * cleared.  A passthrough SPI's pending and active state is the
     * physical interrupt's (GICv2 5.2.1); with none given, the model's */
    uint32_t (*hw_read)(void *ctx, uint32_t off);
    void (*hw_write)(void *ctx, uint32_t off, uint32_t bits);
};

struct vgic {
    spinlock_t lock;
    uint32_t ctlr;
    unsigned int nr_irqs;       /* multiple of 32 */
    unsigned int nr_vcpus;
    uint32_t typer;             /* GICD_TYPER, constant: from the two above */
    struct vgic_irq spi[VGIC_MAX_IRQS - VGIC_NR_PRIVATE];
    struct vgic_cpu *cpu[VGIC_MAX_VCPUS];
    struct vgic_env env;
    /* a direct guest's (docs/direct-interrupts.md): its interrupts are
     * delivered by the physical CPU interface; the distributor model checks
     * and mirrors what the guest may set (hw_update), its PPIs included.
     * Last: the offsets of the fields above stay those of the trap paths
     * make bench-check counts */
    bool direct;
};

void vgic_init(struct vgic *d, unsigned int nr_irqs, unsigned int nr_vcpus,
               struct vgic_cpu *const *cpus, const struct vgic_env *env);
/* Declare a hardware-linked interrupt (passthrough SPI, virtual timer PPI) */
void vgic_set_hw(struct vgic *d, unsigned int vcpu, unsigned int intid, unsigned int hwirq);
struct vgic_irq *vgic_get_irq(struct vgic *d, unsigned int vcpu, unsigned int intid);
/* A direct guest's vCPU comes (back) to its CPU, whose interface was reset:
 * its hardware PPIs' enable and priority, as the model has them, to the
 * hardware again (hw_update, on that CPU: they are banked) */
void vgic_hw_resync_private(struct vgic *d, unsigned int vcpu);

/* The distributor's registers, for the MMIO bus (GICD at 0x08000000).
 * vcpu: the caller's, for the banked registers; a word read of the control
 * block (off < GICD_IGROUPR) depends on no vCPU.  Its first three
 * arguments are a bus handler's (mmio_handler_t), so that the bus handler
 * reaches it with no argument moved. */
bool vgic_dist_mmio(struct vgic *d, struct mmio_access *a, uint32_t off, unsigned int vcpu);
/* The same past the control block's constant registers, which
 * vgic_dist_mmio tests first.  A word write to a 1-bit bank (IGROUPR to
 * ICACTIVER: an enable, a pending bit...) goes to its register's writer
 * (vgic_dist_bank_write), the rest to vgic_dist_other.  Inline, so that the
 * trap's handler (vgic_hw.c) reaches the writer with no call between */
bool vgic_dist_bank_write(struct vgic *d, const struct mmio_access *a, uint32_t off,
                          unsigned int vcpu);
bool vgic_dist_other(struct vgic *d, struct mmio_access *a, uint32_t off, unsigned int vcpu);
static inline bool vgic_dist_access(struct vgic *d, struct mmio_access *a, uint32_t off,
                                    unsigned int vcpu)
{
    if ((a->info == MMIO_INFO(4, true)) &&
        ((off - GICD_IGROUPR) < (GICD_IPRIORITYR - GICD_IGROUPR)) && ((off & 3u) == 0u)) {
        return vgic_dist_bank_write(d, a, off, vcpu);
        }
    return vgic_dist_other(d, a, off, vcpu);
}

/* Sources of interrupts */
void vgic_inject_edge(struct vgic *d, unsigned int vcpu, unsigned int intid);
/* A forwarded PPI fired for c's vCPU, on the CPU it runs on (in HYP's
 * interrupt path): pending from its next flush, which runs before the guest
 * does - no lock, no kick, no second look at the distributor.  The same
 * edge as vgic_inject_edge for the one CPU that ever delivers it. */
static inline void vgic_ppi_fired(struct vgic_cpu *c, unsigned int intid)
{
    c->ppi_fired |= (uint16_t)((unsigned int)1u << ((intid - 16u) % 16u));  /* a PPI: 16-31 */
    c->queued = true;
}
void vgic_set_level(struct vgic *d, unsigned int vcpu, unsigned int intid, bool level);
/* a guest's SGIR write: filter 0 list / 1 all-but-self / 2 self.  True:
 * the write is always taken (so an MMIO handler can tail-call it) */
bool vgic_send_sgi(struct vgic *d, unsigned int src, uint32_t sgir);

/* List registers (sync, flush): vgic_lr.h */
/* Forget every interrupt of a vCPU (reset, CPU_OFF); LRs must be cleared too */
void vgic_vcpu_reset(struct vgic *d, unsigned int vcpu);

/* GICH list register fields (GICv2 5.3.13) */
#define LR_VIRTID(x)     ((x) & 0x3ffu)
#define LR_PHYSID(x)     (((x) & 0x3ffu) << 10)
#define LR_CPUID(x)      (((x) & 7u) << 10)
#define LR_EOI           ((unsigned int)1u << 19)
#define LR_PRIO(p)       ((uint32_t)((p) >> 3) << 23)
#define LR_PENDING       ((unsigned int)1u << 28)
#define LR_ACTIVE        ((unsigned int)1u << 29)
#define LR_STATE_MASK    ((unsigned int)3u << 28)
#define LR_GROUP1        ((unsigned int)1u << 30)
#define LR_HW            ((unsigned int)1u << 31)

#endif
