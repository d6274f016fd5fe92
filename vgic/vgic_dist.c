/*
 * The virtual distributor: a table of register ranges with one generic
 * per-interrupt field accessor (as Linux's vgic-mmio.c), over the guest's
 * interrupt state.  GICv2 spec IHI 0048B, 4.3 (register descriptions).
 * Pure model: the list registers and the hardware come in through ops, so
 * the host unit tests run all of it.
 */
#include <string.h>
#include "vgic.h"

/* ---- interrupt state ---- */

struct vgic_irq *vgic_get_irq(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    if (intid < VGIC_NR_PRIVATE)
        return vcpu < d->nr_vcpus ? &d->cpu[vcpu]->priv[intid] : NULL;
    if (intid >= d->nr_irqs)
        return NULL;
    return &d->spi[intid - VGIC_NR_PRIVATE];
}

/* The vCPU an SPI is delivered to: the lowest one in its target list */
static int spi_target(struct vgic *d, const struct vgic_irq *irq)
{
    for (unsigned int i = 0; i < d->nr_vcpus; i++)
        if (irq->targets & (1u << i))
            return (int)i;
    return -1;
}

static int irq_owner(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    if (intid < VGIC_NR_PRIVATE)
        return (int)vcpu;
    return spi_target(d, vgic_get_irq(d, vcpu, intid));
}

static bool irq_wants_lr(const struct vgic_irq *irq, unsigned int intid)
{
    bool pend = irq->pending || (intid < 16 && irq->sgi_src);
    return pend && irq->enabled && !irq->in_lr;
}

/* Note new work for the owner of intid and kick it. */
static void irq_queue(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    int owner = irq_owner(d, vcpu, intid);
    bool pend = irq->pending || (intid < 16 && irq->sgi_src);
    /* queued even while in a list register: the owner's flush syncs first
     * and finds out whether the guest has finished with that one (a
     * hardware-linked interrupt ends without a maintenance interrupt) */
    if (owner < 0 || !(d->ctlr & 1) || !pend || !irq->enabled)
        return;
    d->cpu[owner]->queued = true;
    if (d->env.kick)
        d->env.kick(d->env.ctx, (unsigned int)owner);
}

void vgic_init(struct vgic *d, unsigned int nr_irqs, unsigned int nr_vcpus,
               struct vgic_cpu *const *cpus, const struct vgic_env *env)
{
    memset(d->spi, 0, sizeof(d->spi));
    d->ctlr = 0;
    d->nr_irqs = nr_irqs > VGIC_MAX_IRQS ? VGIC_MAX_IRQS : (nr_irqs + 31) & ~31u;
    d->nr_vcpus = nr_vcpus > VGIC_MAX_VCPUS ? VGIC_MAX_VCPUS : nr_vcpus;
    d->env = *env;
    for (unsigned int i = 0; i < d->nr_vcpus; i++) {
        d->cpu[i] = cpus[i];
        memset(d->cpu[i], 0, sizeof(*d->cpu[i]));
        for (unsigned int j = 0; j < 16; j++) {
            d->cpu[i]->priv[j].edge = true;     /* SGIs are edge (4.3.13) */
            d->cpu[i]->priv[j].enabled = true;  /* and always enabled here */
        }
    }
}

void vgic_vcpu_reset(struct vgic *d, unsigned int vcpu)
{
    /* under the lock: the guest's other vCPUs may be sending it SGIs or
     * retargeting SPIs this very moment (a CPU_ON racing an SGI flood) */
    uint32_t f = spin_lock_irqsave(&d->lock);
    struct vgic_cpu *c = d->cpu[vcpu];
    for (unsigned int j = 0; j < VGIC_NR_PRIVATE; j++) {
        struct vgic_irq *irq = &c->priv[j];
        irq->pending = irq->active = irq->in_lr = false;
        irq->sgi_src = 0;
        irq->level = false;
    }
    for (unsigned int j = 0; j < d->nr_irqs - VGIC_NR_PRIVATE; j++)
        if (d->spi[j].in_lr && spi_target(d, &d->spi[j]) == (int)vcpu)
            d->spi[j].in_lr = false;
    c->lr_used = 0;
    c->queued = false;
    c->hcr = c->vmcr = c->apr = 0;
    memset(c->lrs, 0, sizeof(c->lrs));
    spin_unlock_irqrestore(&d->lock, f);
}

void vgic_set_hw(struct vgic *d, unsigned int vcpu, unsigned int intid, unsigned int hwirq)
{
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq) {
        irq->hw = true;
        irq->hwirq = (uint16_t)hwirq;
    }
}

/* ---- sources ---- */

void vgic_inject_edge(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    uint32_t f = spin_lock_irqsave(&d->lock);
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq) {
        irq->pending = true;
        irq_queue(d, vcpu, intid);
    }
    spin_unlock_irqrestore(&d->lock, f);
}

void vgic_set_level(struct vgic *d, unsigned int vcpu, unsigned int intid, bool level)
{
    uint32_t f = spin_lock_irqsave(&d->lock);
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq) {
        irq->level = level;
        if (level && !irq->edge) {
            irq->pending = true;
            irq_queue(d, vcpu, intid);
        } else if (!level && !irq->edge && !irq->in_lr) {
            irq->pending = false;   /* the line dropped before delivery */
        }
    }
    spin_unlock_irqrestore(&d->lock, f);
}

void vgic_send_sgi(struct vgic *d, unsigned int src, uint32_t sgir)
{
    unsigned int sgi = sgir & 0xf;
    unsigned int filter = (sgir >> 24) & 3;
    uint32_t targets;
    switch (filter) {
    case 0: targets = (sgir >> 16) & 0xff; break;           /* CPUTargetList */
    case 1: targets = 0xffu & ~(1u << src); break;          /* all but self */
    case 2: targets = 1u << src; break;                     /* self */
    default: return;                                        /* reserved */
    }
    uint32_t f = spin_lock_irqsave(&d->lock);
    d->cpu[src]->stats.sgis_sent++;
    for (unsigned int t = 0; t < d->nr_vcpus; t++) {
        if (!(targets & (1u << t)))
            continue;
        d->cpu[t]->priv[sgi].sgi_src |= (uint8_t)(1u << src);
        irq_queue(d, t, sgi);
    }
    spin_unlock_irqrestore(&d->lock, f);
}

/* ---- list registers ---- */

/*
 * The guest changed the group or priority of an interrupt waiting in a
 * list register: a real distributor would signal it with the new ones
 * (4.3.4, 4.3.11), so the list register takes them while it is only
 * pending.  (Changing the priority of an active interrupt is UNPREDICTABLE.)
 */
static uint32_t lr_refresh(const struct vgic_irq *irq, uint32_t v)
{
    if ((v & LR_STATE_MASK) != LR_PENDING)
        return v;
    v &= ~(LR_GROUP1 | LR_PRIO(0xff));
    return v | LR_PRIO(irq->priority) | (irq->group1 ? LR_GROUP1 : 0);
}

/* Take back what the hardware did with our list registers. */
static void lr_sync_locked(struct vgic *d, unsigned int vcpu, const struct vgic_lr_ops *lr)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    uint64_t used = c->lr_used;
    while (used) {
        unsigned int i = (unsigned int)__builtin_ctzll(used);
        used &= used - 1;
        uint32_t v = lr->read_lr(lr->ctx, i);
        unsigned int intid = LR_VIRTID(v);
        struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
        if (!irq)
            continue;
        irq->active = (v & LR_ACTIVE) != 0;
        if (v & LR_STATE_MASK) {
            /* still pending or active in the hardware; if it came again
             * meanwhile, hear when the guest ends this one (EOI maintenance,
             * 5.3.9), or nothing brings the next one in */
            uint32_t nv = v;
            if (!(v & (LR_HW | LR_EOI)) && (irq->pending || (intid < 16 && irq->sgi_src)))
                nv |= LR_EOI;
            if (c->lr_stale)
                nv = lr_refresh(irq, nv);
            if (nv != v)
                lr->write_lr(lr->ctx, i, nv);
            continue;
        }
        /* the guest has EOIed it: the list register is free again */
        irq->in_lr = false;
        c->lr_used &= ~(1ull << i);
        lr->write_lr(lr->ctx, i, 0);    /* clears its EISR bit (5.3.9) */
        if (!irq->edge && !irq->hw && irq->level)
            irq->pending = true;        /* a level source still asserted */
        if (irq_wants_lr(irq, intid))
            c->queued = true;
    }
    c->lr_stale = false;
}

void vgic_sync(struct vgic *d, unsigned int vcpu, const struct vgic_lr_ops *lr)
{
    uint32_t f = spin_lock_irqsave(&d->lock);
    lr_sync_locked(d, vcpu, lr);
    spin_unlock_irqrestore(&d->lock, f);
}

static uint32_t lr_value(struct vgic_irq *irq, unsigned int intid)
{
    uint32_t v = LR_VIRTID(intid) | LR_PRIO(irq->priority) | LR_PENDING;
    if (irq->group1)
        v |= LR_GROUP1;
    if (irq->hw) {
        irq->pending = false;   /* the list register owns it now */
        v |= LR_HW | LR_PHYSID(irq->hwirq);
        /* never pending and active with HW set (GICv2 5.3.13; KVM's
         * populate_lr alike): a guest that wrote ISACTIVER gets it active */
        if (irq->active)
            v = (v & ~LR_PENDING) | LR_ACTIVE;
        return v;
    }
    if (intid < 16) {
        unsigned int src = (unsigned int)__builtin_ctz(irq->sgi_src);
        irq->sgi_src &= (uint8_t)~(1u << src);
        v |= LR_CPUID(src);
        if (irq->sgi_src)
            v |= LR_EOI;    /* more sources wait: hear when this one ends */
    } else {
        irq->pending = false;
        if (!irq->edge)
            v |= LR_EOI;    /* re-sample the level at EOI (5.2.2) */
    }
    return v;
}

struct candidate {
    unsigned int intid;
    struct vgic_irq *irq;
};

/*
 * The best max pending, enabled interrupts of the vCPU not yet in a list
 * register, highest priority (lowest value) first, ties by INTID.  Returns
 * how many there are in all, which may exceed max.
 */
static void keep_best(struct candidate *out, unsigned int max, unsigned int *n,
                      unsigned int id, struct vgic_irq *irq)
{
    if (*n == max && out[*n - 1].irq->priority <= irq->priority)
        return;
    unsigned int j = *n < max ? (*n)++ : *n - 1;
    while (j > 0 && out[j - 1].irq->priority > irq->priority) {
        out[j] = out[j - 1];
        j--;
    }
    out[j] = (struct candidate){ id, irq };
}

static unsigned int collect(struct vgic *d, unsigned int vcpu, struct candidate *out,
                            unsigned int max, unsigned int *kept)
{
    unsigned int total = 0, n = 0;
    struct vgic_irq *priv = d->cpu[vcpu]->priv;
    for (unsigned int id = 0; id < VGIC_NR_PRIVATE; id++) {
        if (irq_wants_lr(&priv[id], id)) {
            total++;
            keep_best(out, max, &n, id, &priv[id]);
        }
    }
    /* SPIs: the cheap test first, the target only for the few pending */
    for (unsigned int id = VGIC_NR_PRIVATE; id < d->nr_irqs; id++) {
        struct vgic_irq *irq = &d->spi[id - VGIC_NR_PRIVATE];
        if (!irq->pending || !irq->enabled || irq->in_lr || spi_target(d, irq) != (int)vcpu)
            continue;
        total++;
        keep_best(out, max, &n, id, irq);
    }
    *kept = n;
    return total;
}

/* A pending-only list register of lower priority than prio, to make room */
static int lr_victim(struct vgic *d, unsigned int vcpu, const struct vgic_lr_ops *lr,
                     uint8_t prio)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    int victim = -1;
    uint32_t worst = (uint32_t)prio >> 3;
    for (uint64_t used = c->lr_used; used; used &= used - 1) {
        unsigned int i = (unsigned int)__builtin_ctzll(used);
        uint32_t v = lr->read_lr(lr->ctx, i);
        uint32_t p = (v >> 23) & 0x1f;
        if ((v & LR_STATE_MASK) == LR_PENDING && p > worst) {
            worst = p;
            victim = (int)i;
        }
    }
    return victim;
}

static void lr_evict(struct vgic *d, unsigned int vcpu, const struct vgic_lr_ops *lr,
                     unsigned int i)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    uint32_t v = lr->read_lr(lr->ctx, i);
    unsigned int intid = LR_VIRTID(v);
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (intid < 16 && !(v & LR_HW))
        irq->sgi_src |= (uint8_t)(1u << ((v >> 10) & 7));
    else
        irq->pending = true;
    irq->in_lr = false;
    c->lr_used &= ~(1ull << i);
    lr->write_lr(lr->ctx, i, 0);
}

void vgic_flush(struct vgic *d, unsigned int vcpu, const struct vgic_lr_ops *lr)
{
    struct candidate cand[VGIC_MAX_LRS];
    uint32_t f = spin_lock_irqsave(&d->lock);
    struct vgic_cpu *c = d->cpu[vcpu];
    lr_sync_locked(d, vcpu, lr);
    c->queued = false;
    unsigned int nlr = lr->nr_lrs(lr->ctx);
    unsigned int n = 0, total = 0;
    if (d->ctlr & 1)
        total = collect(d, vcpu, cand, nlr < VGIC_MAX_LRS ? nlr : VGIC_MAX_LRS, &n);
    bool left = total > n;
    if (left)
        c->stats.overflow++;
    for (unsigned int k = 0; k < n; k++) {
        uint64_t free = lr->elrsr(lr->ctx) & ~c->lr_used;
        if (nlr < 64)
            free &= (1ull << nlr) - 1;
        int i = free ? __builtin_ctzll(free) : -1;
        if (i < 0) {
            i = lr_victim(d, vcpu, lr, cand[k].irq->priority);
            if (i < 0) {
                left = true;    /* all list registers busy with better ones */
                break;
            }
            lr_evict(d, vcpu, lr, (unsigned int)i);
            left = true;        /* the evicted one waits again */
        }
        struct vgic_irq *irq = cand[k].irq;
        lr->write_lr(lr->ctx, (unsigned int)i, lr_value(irq, cand[k].intid));
        irq->in_lr = true;
        irq->lr = (uint8_t)i;
        c->lr_used |= 1ull << i;
        c->stats.injected++;
        if (irq_wants_lr(irq, cand[k].intid))
            left = true;        /* an SGI with more sources */
    }
    /* interrupts still waiting: ask for a maintenance interrupt when the
     * list registers run (nearly) empty - underflow, GICv2 5.3.2 */
    lr->set_underflow(lr->ctx, left);
    if (left)
        c->queued = true;
    spin_unlock_irqrestore(&d->lock, f);
}

bool vgic_vcpu_has_pending(struct vgic *d, unsigned int vcpu, const struct vgic_lr_ops *lr)
{
    struct vgic_cpu *c = d->cpu[vcpu];
    if (c->queued)
        return true;
    /* a pending list register above the guest's priority mask (VMCR.VMPriMask) */
    uint32_t pmr = (lr->vmcr(lr->ctx) >> 27) & 0x1f;
    for (uint64_t used = c->lr_used; used; used &= used - 1) {
        uint32_t v = lr->read_lr(lr->ctx, (unsigned int)__builtin_ctzll(used));
        if ((v & LR_PENDING) && ((v >> 23) & 0x1f) < pmr)
            return true;
    }
    return false;
}

/* ---- the distributor's registers ---- */

struct vgic_reg {
    uint32_t base, len;
    uint8_t bits;           /* per-interrupt field width; 0 = not per interrupt */
    bool byte_ok;           /* byte accesses allowed (4.3: IPRIORITYR, ITARGETSR, ...) */
    uint32_t (*read)(struct vgic *d, unsigned int vcpu, unsigned int intid);
    void (*write)(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t val);
};

#define FIELD_RD(name, expr)                                                        \
    static uint32_t name(struct vgic *d, unsigned int vcpu, unsigned int intid)     \
    {                                                                               \
        struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);                        \
        (void)irq;                                                                  \
        return (expr);                                                              \
    }

FIELD_RD(rd_group, irq->group1)
FIELD_RD(rd_enable, irq->enabled)
FIELD_RD(rd_pending, irq->pending || (irq->in_lr && !irq->active) || (intid < 16 && irq->sgi_src))
FIELD_RD(rd_active, irq->active)
FIELD_RD(rd_priority, irq->priority)
FIELD_RD(rd_config, irq->edge ? 2u : 0u)

static uint32_t rd_targets(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    if (intid < VGIC_NR_PRIVATE)
        return 1u << vcpu;  /* SGIs/PPIs: the reading CPU itself (4.3.12) */
    return vgic_get_irq(d, vcpu, intid)->targets;
}

/* A list register holds a copy of the group and priority: have its owner
 * refresh it at its next flush (lr_refresh) */
static void lr_mark_stale(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    int owner = irq_owner(d, vcpu, intid);
    if (!irq->in_lr || owner < 0)
        return;
    d->cpu[owner]->lr_stale = true;
    d->cpu[owner]->queued = true;
    if (d->env.kick)
        d->env.kick(d->env.ctx, (unsigned int)owner);
}

static void wr_group(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq->group1 != (v & 1)) {
        irq->group1 = v & 1;
        lr_mark_stale(d, vcpu, intid);
    }
}

static void hw_mirror(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq->hw && intid >= VGIC_NR_PRIVATE && d->env.hw_update)
        d->env.hw_update(d->env.ctx, intid, irq, (unsigned int)spi_target(d, irq));
}

static void wr_set_enable(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if (!(v & 1) || intid < 16)
        return;             /* SGIs cannot be disabled here */
    vgic_get_irq(d, vcpu, intid)->enabled = true;
    hw_mirror(d, vcpu, intid);
    irq_queue(d, vcpu, intid);
}

static void wr_clear_enable(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if (!(v & 1) || intid < 16)
        return;
    vgic_get_irq(d, vcpu, intid)->enabled = false;
    hw_mirror(d, vcpu, intid);
}

static void wr_set_pending(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if (!(v & 1) || intid < 16)
        return;             /* SGIs: through SPENDSGIR (4.3.7) */
    vgic_get_irq(d, vcpu, intid)->pending = true;
    irq_queue(d, vcpu, intid);
}

static void wr_clear_pending(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if ((v & 1) && intid >= 16)
        vgic_get_irq(d, vcpu, intid)->pending = false;
}

static void wr_set_active(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if (v & 1)
        vgic_get_irq(d, vcpu, intid)->active = true;
}

static void wr_clear_active(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if (v & 1)
        vgic_get_irq(d, vcpu, intid)->active = false;
}

static void wr_priority(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    /* 5 bits of priority, like the list registers and GIC-400 (4.3.11) */
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    if (irq->priority != (uint8_t)(v & 0xf8)) {
        irq->priority = (uint8_t)(v & 0xf8);
        lr_mark_stale(d, vcpu, intid);
    }
    hw_mirror(d, vcpu, intid);
}

static void wr_targets(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if (intid < VGIC_NR_PRIVATE)
        return;             /* read-only for SGIs and PPIs */
    struct vgic_irq *irq = vgic_get_irq(d, vcpu, intid);
    irq->targets = (uint8_t)(v & ((1u << d->nr_vcpus) - 1));
    hw_mirror(d, vcpu, intid);
    irq_queue(d, vcpu, intid);
}

static void wr_config(struct vgic *d, unsigned int vcpu, unsigned int intid, uint32_t v)
{
    if (intid < VGIC_NR_PRIVATE)
        return;             /* SGIs are edge, PPIs fixed by the implementation */
    vgic_get_irq(d, vcpu, intid)->edge = (v & 2) != 0;
}

static const struct vgic_reg dist_regs[] = {
    { 0x080, 0x80, 1, false, rd_group, wr_group },          /* IGROUPR */
    { 0x100, 0x80, 1, false, rd_enable, wr_set_enable },    /* ISENABLER */
    { 0x180, 0x80, 1, false, rd_enable, wr_clear_enable },  /* ICENABLER */
    { 0x200, 0x80, 1, false, rd_pending, wr_set_pending },  /* ISPENDR */
    { 0x280, 0x80, 1, false, rd_pending, wr_clear_pending },/* ICPENDR */
    { 0x300, 0x80, 1, false, rd_active, wr_set_active },    /* ISACTIVER */
    { 0x380, 0x80, 1, false, rd_active, wr_clear_active },  /* ICACTIVER */
    { 0x400, 0x400, 8, true, rd_priority, wr_priority },    /* IPRIORITYR */
    { 0x800, 0x400, 8, true, rd_targets, wr_targets },      /* ITARGETSR */
    { 0xc00, 0x100, 2, false, rd_config, wr_config },       /* ICFGR */
};

/* The generic per-interrupt accessor: bits-wide fields packed in a word */
static bool field_access(struct vgic *d, unsigned int vcpu, const struct vgic_reg *r,
                         struct mmio_access *a, uint32_t off)
{
    unsigned int first = (off - r->base) * 8 / r->bits;
    unsigned int n = a->size * 8 / r->bits;
    uint32_t mask = r->bits == 32 ? ~0u : (1u << r->bits) - 1;
    if (a->write) {
        for (unsigned int i = 0; i < n; i++)
            if (first + i < d->nr_irqs)
                r->write(d, vcpu, first + i, (a->value >> (i * r->bits)) & mask);
    } else {
        uint32_t v = 0;
        for (unsigned int i = 0; i < n; i++)
            if (first + i < d->nr_irqs)
                v |= (r->read(d, vcpu, first + i) & mask) << (i * r->bits);
        a->value = v;
    }
    return true;
}

/* PrimeCell/CoreLink IDs of a GICv2 (GIC-400): PIDR4..7, PIDR0..3, CIDR0..3 */
static const uint8_t dist_id[12] = { 0x04, 0, 0, 0, 0x90, 0xb4, 0x2b, 0x00,
                                     0x0d, 0xf0, 0x05, 0xb1 };

static uint32_t sgi_pend_read(struct vgic *d, unsigned int vcpu, uint32_t off)
{
    uint32_t v = 0;
    unsigned int first = off & 0xc;
    for (unsigned int i = 0; i < 4; i++)
        v |= (uint32_t)d->cpu[vcpu]->priv[first + i].sgi_src << (8 * i);
    return v;
}

static void sgi_pend_write(struct vgic *d, unsigned int vcpu, uint32_t off, uint32_t v,
                           unsigned int size, bool set)
{
    unsigned int first = off & 0xf;
    for (unsigned int i = 0; i < size; i++) {
        uint8_t bits = (uint8_t)(v >> (8 * i));
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
    if (off >= 0xf10 && off < 0xf30) {      /* CPENDSGIR / SPENDSGIR, byte ok */
        if (a->write)
            sgi_pend_write(d, vcpu, off, a->value, a->size, off >= 0xf20);
        else
            a->value = sgi_pend_read(d, vcpu, off) >> (8 * (off & 3));
        return true;
    }
    if (a->size != 4) {     /* other registers are word-only: RAZ/WI */
        if (!a->write)
            a->value = 0;
        return true;
    }
    if (a->write) {
        if (off == 0x000) {
            bool was = d->ctlr & 1;
            d->ctlr = a->value & 1;
            for (unsigned int i = 0; !was && (d->ctlr & 1) && i < d->nr_vcpus; i++) {
                d->cpu[i]->queued = true;   /* forwarding starts: look again */
                if (d->env.kick)
                    d->env.kick(d->env.ctx, i);
            }
        }
        return true;        /* read-only and reserved registers: WI */
    }
    if (off == 0x000)
        a->value = d->ctlr;
    else if (off == 0x004)  /* TYPER: ITLinesNumber, CPUNumber, no SecurityExtn */
        a->value = (d->nr_irqs / 32 - 1) | ((d->nr_vcpus - 1) << 5);
    else if (off == 0x008)  /* IIDR: ARM, GICv2 */
        a->value = 0x0000043b;
    else if (off >= 0xfd0)
        a->value = dist_id[(off - 0xfd0) / 4];
    else
        a->value = 0;       /* reserved: RAZ */
    return true;
}

bool vgic_dist_mmio(struct vgic *d, unsigned int vcpu, struct mmio_access *a, uint32_t off)
{
    if (off & (a->size - 1))
        return false;       /* unaligned: the guest gets an abort */
    if (a->size == 2) {
        /* halfword accesses are not supported by the GIC (4.1.4): RAZ/WI */
        if (!a->write)
            a->value = 0;
        return true;
    }
    if (off == 0xf00 && a->write)
        return a->size == 4 ? (vgic_send_sgi(d, vcpu, a->value), true) : true;
    /* TYPER and IIDR are constant: no lock on the hot read path */
    if ((off == 0x004 || off == 0x008) && !a->write && a->size == 4)
        return misc_access(d, vcpu, a, off);
    /* the table is sorted and its ranges follow the GICv2 map: index it */
    const struct vgic_reg *r = NULL;
    if (off >= 0x080 && off < 0xd00) {
        unsigned int i = off < 0x400 ? (off >> 7) - 1 : off < 0x800 ? 7 : off < 0xc00 ? 8 : 9;
        if (off < dist_regs[i].base + dist_regs[i].len)
            r = &dist_regs[i];
    }
    bool ok = true;
    uint32_t f = spin_lock_irqsave(&d->lock);
    if (r && (a->size == 4 || r->byte_ok))
        ok = field_access(d, vcpu, r, a, off);
    else if (r)
        a->value = a->write ? a->value : 0;     /* byte access to a word register: RAZ/WI */
    else
        ok = misc_access(d, vcpu, a, off);
    spin_unlock_irqrestore(&d->lock, f);
    return ok;
}
