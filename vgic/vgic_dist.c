/*
 * The virtual distributor: a table of register ranges with one generic
 * per-interrupt field accessor (as Linux's vgic-mmio.c), over the guest's
 * interrupt state.  GICv2 spec IHI 0048B, 4.3 (register descriptions).
 * Pure model: the list registers and the hardware come in through ops, so
 * the host unit tests run all of it.  The lock is taken without masking
 * IRQs: HYP never unmasks them (see vgic_lr.h).
 */
#include <stddef.h>
#include <string.h>
#include "vgic.h"
#include "vgic_lr.h"

/* ---- interrupt state ---- */

struct vgic_irq *vgic_get_irq(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    if (intid < VGIC_NR_PRIVATE) {
        return vcpu < d->nr_vcpus ? &d->cpu[vcpu]->priv[intid] : NULL;
    }
    if (intid >= d->nr_irqs) {
        return NULL;
    }
    return &d->spi[intid - VGIC_NR_PRIVATE];
}

static int irq_owner(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    if (intid < VGIC_NR_PRIVATE) {
        return (int)vcpu;
    }
    return spi_target(d, vgic_get_irq(d, vcpu, intid));
}

/* Note new work for the owner of intid and kick it. */
static void irq_queue(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    int owner = irq_owner(d, vcpu, intid);
    bool pend = irq->pending || (intid < 16u && irq->sgi_src);
    /* queued even while in a list register: the owner's flush syncs first
     * and finds out whether the guest has finished with that one (a
     * hardware-linked interrupt ends without a maintenance interrupt) */
    if (owner < 0 || !(d->ctlr & 1u) || !pend || !irq->enabled) {
        return;
    }
    d->cpu[owner]->queued = true;
    mark(d->cpu[owner], intid);
    if (d->env.kick != NULL) {
        d->env.kick(d->env.ctx, (unsigned int)owner);
    }
}

/* ---- sources ---- */

void vgic_inject_edge(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    spin_lock(&d->lock);
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq != NULL) {
        irq->pending = true;
        irq_queue(d, vcpu, intid);
    }
    spin_unlock(&d->lock);
}

void vgic_set_level(struct vgic *d, unsigned int vcpu, unsigned int intid, bool level)
{
    spin_lock(&d->lock);
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq != NULL) {
        irq->level = level;
        if (level && !irq->edge) {
            irq->pending = true;
            irq_queue(d, vcpu, intid);
        } else if (!level && !irq->edge && !irq->in_lr) {
            irq->pending = false;   /* the line dropped before delivery */
        } else {
            /* otherwise nothing to do */
        }
    }
    spin_unlock(&d->lock);
}

bool vgic_send_sgi(struct vgic *d, unsigned int src, uint32_t sgir)
{
    unsigned int sgi = sgir & 0xfu;
    unsigned int filter = (sgir >> 24) & 3u;
    uint32_t targets;
    /* (GICv2 4.3.15) the target list first: the filter Linux's IPIs use */
    if (__builtin_expect(filter == 0u, 1) != 0) {
        targets = (sgir >> 16) & 0xffu;                      /* CPUTargetList */
    } else if (filter == 1u) {
        targets = 0xffu & ~((unsigned int)1u << src);                     /* all but self */
    } else if (filter == 2u) {
        targets = (unsigned int)1u << src;                                /* self */
    } else {
        return true;                                        /* reserved */
    }
    targets &= ((unsigned int)1u << d->nr_vcpus) - 1u;
    uint32_t from = (unsigned int)1u << src;      /* < 0x100: src is a vCPU */
    spin_lock(&d->lock);
    d->cpu[src]->stats.sgis_sent++;
    /* irq_queue for SGIs, always enabled and owned by their target: the
     * IPI fast path.  With forwarding off (GICD_CTLR, 4.3.1) they wait */
    if (!(d->ctlr & GICD_CTLR_ENABLE)) {
        for (uint32_t t = targets; t; t &= t - 1u) {
            d->cpu[__builtin_ctz(t)]->priv[sgi].sgi_src |= from;
        }
    } else {
        for (uint32_t t = targets; t; t &= t - 1u) {
            unsigned int i = (unsigned int)__builtin_ctz(t);
            struct vgic_cpu *c = d->cpu[i];
            c->priv[sgi].sgi_src |= from;
            c->queued = true;
            mark(c, sgi);
            if (d->env.kick != NULL) {
                d->env.kick(d->env.ctx, i);
            }
        }
    }
    spin_unlock(&d->lock);
    return true;
}

/* ---- the distributor's registers ---- */

/* A 1-bit bank's (IGROUPR..ICACTIVER, 4.3.4-4.3.10) word write: v for the 32
 * interrupts from first, irq their state (whole: nr_irqs is 32n), under the lock */
typedef void bank_write_fn(struct vgic *d, struct vgic_irq *irq, unsigned int first, uint32_t v);

/* Whose: the private bank's vCPU (irq is in its record), for SPIs any one */
#define BANK_VCPU(irq, first) \
    (((first) != 0u) ? 0u : ((struct vgic_cpu *)((char *)(irq) - offsetof(struct vgic_cpu, priv)))->id)

struct vgic_reg {
    uint32_t base, len;
    uint8_t bits;           /* per-interrupt field width */
    bool byte_ok;           /* byte accesses allowed (4.3: IPRIORITYR, ITARGETSR, ...) */
    uint32_t (*read)(struct vgic *d, unsigned int vcpu, unsigned int intid);
    /* a field's write (the 8- and 2-bit registers; the 1-bit ones: bank_writers) */
    void (*write)(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t val);
};

#define FIELD_RD(name, expr)                                                        \
    static uint32_t name(struct vgic *d, unsigned int vcpu, unsigned int intid)     \
    {                                                                               \
        struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);                        \
        return (expr);                                                              \
    }

FIELD_RD(rd_group, irq->group1)
FIELD_RD(rd_enable, irq->enabled)
FIELD_RD(rd_pending, vgic_irq_pending(d, irq, intid))
FIELD_RD(rd_active, irq->active)
FIELD_RD(rd_priority, irq->priority)
FIELD_RD(rd_config, irq->edge ? 2u : 0u)

static uint32_t rd_targets(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    if (intid < VGIC_NR_PRIVATE) {
        return (unsigned int)1u << vcpu;  /* SGIs/PPIs: the reading CPU itself (4.3.12) */
    }
    return vgic_get_irq(d, vcpu, intid)->targets;
}

/* A list register holds a copy of the group and priority: have its owner
 * refresh it at its next flush (lr_refresh) */
static void lr_mark_stale(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    int owner = irq_owner(d, vcpu, intid);
    if (!irq->in_lr || owner < 0) {
        return;
    }
    d->cpu[owner]->lr_stale = true;
    d->cpu[owner]->queued = true;
    if (d->env.kick != NULL) {
        d->env.kick(d->env.ctx, (unsigned int)owner);
    }
}

/* A bank word's bits that are not SGIs' (bank 0's low half): those are
 * always enabled here (4.3.5) and made pending through SPENDSGIR (4.3.7) */
#define NOT_SGIS(first) (((first) != 0u) ? ~0u : ~0xffffu)

static void wr_group(struct vgic *d, struct vgic_irq *irq, unsigned int first, uint32_t v)
{
    for (unsigned int i = 0u; i < 32u; i++, v >>= 1) {
        if (irq[i].group1 != (v & 1u)) {
            irq[i].group1 = v & 1u;
            lr_mark_stale(d, BANK_VCPU(irq, first), first + i);
        }
    }
}

/* A 1-bit bank's writer: stmt for each interrupt i whose bit is set in
 * v & mask (writing 0 to a set/clear bit has no effect, 4.3.5-4.3.10) */
#define BANK_WR(name, mask, stmt)                                                   \
    static void name(struct vgic *d, struct vgic_irq *irq, unsigned int first, uint32_t v) \
    {                                                                               \
        for (uint32_t bits = v & (mask); bits != 0u; bits &= bits - 1u) {           \
            unsigned int i = (unsigned int)__builtin_ctz(bits);                     \
            stmt;                                                                   \
        }                                                                           \
    }

/* Only an enable that changes does anything: writing 1 to an enabled
 * interrupt has no effect (4.3.5), the hardware already mirrors it and
 * its owner was told when it became enabled and pending (irq_queue) */
BANK_WR(wr_set_enable, NOT_SGIS(first), if (!irq[i].enabled) {
    irq[i].enabled = true;
    hw_mirror(d, BANK_VCPU(irq, first), first + i);
    irq_queue(d, BANK_VCPU(irq, first), first + i);
})
BANK_WR(wr_clear_enable, NOT_SGIS(first), if (irq[i].enabled) {
    irq[i].enabled = false;
    hw_mirror(d, BANK_VCPU(irq, first), first + i);
    hw_recheck(d, &irq[i], first + i);
})
BANK_WR(wr_set_pending, NOT_SGIS(first), if (!hw_set_pending(d, &irq[i], first + i)) {
    irq[i].pending = true;
    irq_queue(d, BANK_VCPU(irq, first), first + i);
})
BANK_WR(wr_clear_pending, NOT_SGIS(first), if (!hw_clear_pending(d, &irq[i], first + i)) {
    irq[i].pending = false;
})
BANK_WR(wr_set_active, ~0u, hw_set_active(d, &irq[i], first + i, true);
        irq[i].active = true)
BANK_WR(wr_clear_active, ~0u, hw_set_active(d, &irq[i], first + i, false);
        irq[i].active = false)

static void wr_priority(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    /* 5 bits of priority, like the list registers and GIC-400 (4.3.11) */
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq->priority != (uint8_t)(v & 0xf8u)) {
        irq->priority = (uint8_t)(v & 0xf8u);
        lr_mark_stale(d, vcpu, intid);
    }
    hw_mirror(d, vcpu, intid);
}

static void wr_targets(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if ((intid < VGIC_NR_PRIVATE) || (d->nr_vcpus == 1u)) {
        return;             /* read-only for SGIs and PPIs, and uniprocessors' */
    }
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    irq->targets = (uint8_t)(v & (((unsigned int)1u << d->nr_vcpus) - 1u));
    hw_mirror(d, vcpu, intid);
    irq_queue(d, vcpu, intid);
}

static void wr_config(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if (intid < VGIC_NR_PRIVATE) {
        return;             /* SGIs are edge, PPIs fixed by the implementation */
    }
    vgic_get_irq(d, vcpu, intid)->edge = (v & 2u) != 0u;
}

/* Sorted by the GICv2 map (4.1.2): the 1-bit banks are entries (off >> 7) - 1 */
static const struct vgic_reg dist_regs[] = {
    { GICD_IGROUPR, 0x80, 1, false, rd_group, NULL },
    { GICD_ISENABLER, 0x80, 1, false, rd_enable, NULL },
    { GICD_ICENABLER, 0x80, 1, false, rd_enable, NULL },
    { GICD_ISPENDR, 0x80, 1, false, rd_pending, NULL },
    { GICD_ICPENDR, 0x80, 1, false, rd_pending, NULL },
    { GICD_ISACTIVER, 0x80, 1, false, rd_active, NULL },
    { GICD_ICACTIVER, 0x80, 1, false, rd_active, NULL },
    { GICD_IPRIORITYR, 0x400, 8, true, rd_priority, wr_priority },
    { GICD_ITARGETSR, 0x400, 8, true, rd_targets, wr_targets },
    { GICD_ICFGR, 0x100, 2, false, rd_config, wr_config },
};

/* The 1-bit banks' word writers, by off >> 7 */
static bank_write_fn *const bank_writers[GICD_IPRIORITYR >> 7] = {
    [GICD_IGROUPR >> 7] = wr_group,
    [GICD_ISENABLER >> 7] = wr_set_enable,
    [GICD_ICENABLER >> 7] = wr_clear_enable,
    [GICD_ISPENDR >> 7] = wr_set_pending,
    [GICD_ICPENDR >> 7] = wr_clear_pending,
    [GICD_ISACTIVER >> 7] = wr_set_active,
    [GICD_ICACTIVER >> 7] = wr_clear_active,
};

/* The generic per-interrupt accessor: bits-wide fields packed in a word
 * (the 1-bit banks' word writes are bank_write's) */
static void field_access(struct vgic *d, unsigned int vcpu, const struct vgic_reg *r,
                         struct mmio_access *a, uint32_t off)
{
    unsigned int first = (off - r->base) * 8u / r->bits;
    unsigned int n = a->size * 8u / r->bits;
    uint32_t mask = (r->bits == 32u) ? ~0u : (((unsigned int)1u << r->bits) - 1u);
    if (a->write) {
        for (unsigned int i = 0u; i < n; i++) {
            if (first + i < d->nr_irqs) {
                r->write(d, vcpu, first + i, (a->value >> (i * r->bits)) & mask);
            }
        }
    } else {
        uint32_t v = 0u;
        for (unsigned int i = 0u; i < n; i++) {
            if (first + i < d->nr_irqs) {
                v |= (r->read(d, vcpu, first + i) & mask) << (i * r->bits);
            }
        }
        a->value = v;
    }
}

#define GICD_IIDR_ARM_V2 0x0000043bu

/* PrimeCell/CoreLink IDs of a GICv2 (GIC-400): PIDR4..7, PIDR0..3, CIDR0..3 */
static const uint8_t dist_id[12] = { 0x04, 0, 0, 0, 0x90, 0xb4, 0x2b, 0x00,
                                     0x0d, 0xf0, 0x05, 0xb1 };

static uint32_t sgi_pend_read(struct vgic *d, unsigned int vcpu, uint32_t off)
{
    uint32_t v = 0u;
    unsigned int first = off & 0xcu;
    for (unsigned int i = 0u; i < 4u; i++) {
        v |= (uint32_t)d->cpu[vcpu]->priv[first + i].sgi_src << (8u * i);
    }
    return v;
}

static void sgi_pend_write(struct vgic *d, unsigned int vcpu, uint32_t off, uint32_t v,
                           unsigned int size, bool set)
{
    unsigned int first = off & 0xfu;
    for (unsigned int i = 0u; i < size; i++) {
        uint8_t bits = (uint8_t)(v >> (8u * i));
        struct vgic_irq *irq = &d->cpu[vcpu]->priv[first + i];
        if (set) {
            irq->sgi_src |= bits;
            irq_queue(d, vcpu, first + i);
        } else {
            irq->sgi_src &= (uint8_t)~bits;
        }
    }
}

static bool misc_access(struct vgic *d, unsigned int vcpu, struct mmio_access *a,
                        uint32_t off)
{
    if ((off >= GICD_CPENDSGIR) && (off < (GICD_SPENDSGIR + 0x10u))) {     /* byte ok */
        if (a->write) {
            sgi_pend_write(d, vcpu, off, a->value, a->size, off >= GICD_SPENDSGIR);
        } else {
            a->value = sgi_pend_read(d, vcpu, off) >> (8u * (off & 3u));
        }
        return true;
    }
    if (a->size != 4u) {     /* other registers are word-only: RAZ/WI */
        if (!a->write) {
            a->value = 0u;
        }
        return true;
    }
    if (a->write) {
        if (off == GICD_CTLR) {
            bool was = d->ctlr & GICD_CTLR_ENABLE;
            d->ctlr = a->value & GICD_CTLR_ENABLE;
            for (unsigned int i = 0u; !was && d->ctlr && i < d->nr_vcpus; i++) {
                d->cpu[i]->queued = true;   /* forwarding starts: look again */
                (void)memset(d->cpu[i]->maybe, 0xff, sizeof(d->cpu[i]->maybe));
                d->cpu[i]->maybe_words = ((unsigned int)1u << (d->nr_irqs / 32u)) - 1u;
                if (d->env.kick != NULL) {
                    d->env.kick(d->env.ctx, i);
                }
            }
        }
        return true;        /* read-only and reserved registers: WI */
    }
    if (off == GICD_CTLR) {
        a->value = d->ctlr;
    } else if (off >= GICD_PIDR4) {
        a->value = dist_id[(off - GICD_PIDR4) / 4u];
    } else {
        a->value = 0u;       /* reserved: RAZ */
    }
    return true;
}

/* Decoded before the lock, which only the state change takes */
bool vgic_dist_bank_write(struct vgic *d, const struct mmio_access *a, uint32_t off,
                          unsigned int vcpu)
{
    unsigned int first = (off & 0x7fu) * 8u;
    if (first >= d->nr_irqs) {
        return true;        /* past ITLinesNumber: RAZ/WI (4.3.2) */
    }
    struct vgic_irq *irq = (first != 0u) ? &d->spi[first - VGIC_NR_PRIVATE] : d->cpu[vcpu]->priv;
    bank_write_fn *w = bank_writers[off >> 7];
    spin_lock(&d->lock);
    w(d, irq, first, a->value);
    spin_unlock(&d->lock);
    return true;
}

bool vgic_dist_other(struct vgic *d, struct mmio_access *a, uint32_t off, unsigned int vcpu)
{
    if ((off & (a->size - 1u)) != 0u) {
        return false;       /* unaligned: the guest gets an abort */
    }
    if (a->size == 2u) {
        /* halfword accesses are not supported by the GIC (4.1.4): RAZ/WI */
        if (!a->write) {
            a->value = 0u;
        }
        return true;
    }
    if ((off == GICD_SGIR) && a->write) {
        return (a->size == 4u) ? vgic_send_sgi(d, vcpu, a->value) : true;
    }
    /* the table is sorted and its ranges follow the GICv2 map: index it */
    const struct vgic_reg *r = NULL;
    if ((off >= GICD_IGROUPR) && (off < GICD_IPRIORITYR)) {
        r = &dist_regs[(off >> 7) - 1u];     /* each filling its bank */
    } else if ((off >= GICD_IPRIORITYR) && (off < GICD_ICFGR_END)) {
        unsigned int i = 9u;
        if (off < GICD_ITARGETSR) {
            i = 7u;
        } else if (off < GICD_ICFGR) {
            i = 8u;
        } else {
            /* GICD_ICFGR: 9 */
        }
        if (off < dist_regs[i].base + dist_regs[i].len) {
            r = &dist_regs[i];
        }
    } else {
        /* otherwise nothing to do */
    }
    bool ok = true;
    spin_lock(&d->lock);
    if ((r != NULL) && ((a->size == 4u) || r->byte_ok)) {
        field_access(d, vcpu, r, a, off);
    } else if (r != NULL) {
        a->value = a->write ? a->value : 0u;     /* byte access to a word register: RAZ/WI */
    } else {
        ok = misc_access(d, vcpu, a, off);
    }
    spin_unlock(&d->lock);
    return ok;
}

/* Out of line: the constant registers' path keeps no frame */
static bool __attribute__((noinline)) dist_access(struct vgic *d, struct mmio_access *a,
                                                  uint32_t off, unsigned int vcpu)
{
    return vgic_dist_access(d, a, off, vcpu);
}

bool vgic_dist_mmio(struct vgic *d, struct mmio_access *a, uint32_t off, unsigned int vcpu)
{
    /* the constant ones, the only place they are read: first, without the
     * lock and without vgic_dist_access's frame (one halfword compare tells a
     * word read).  GICD_TYPER (set up by vgic_init) and GICD_IIDR (ARM,
     * GICv2, ProductID 0; 4.3.3) */
    if ((a->info == MMIO_INFO(4, false)) && ((off == GICD_TYPER) || (off == GICD_IIDR))) {
        a->value = (off == GICD_TYPER) ? d->typer : GICD_IIDR_ARM_V2;
        return true;
    }
    return dist_access(d, a, off, vcpu);
}
