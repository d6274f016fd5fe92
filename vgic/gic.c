/*
 * Host GICv2.  EOImode is 1 (GICC_CTLR.EOImodeNS): an EOIR write only drops
 * the running priority and GICC_DIR deactivates, so an interrupt handed to
 * a guest can later be deactivated by the guest itself through a
 * hardware-linked list register (GICv2 spec 4.4.15 / 5.2).
 */
#include <string.h>
#include "gic.h"
#include "hyp/lib/console.h"
#include "hyp/platform/percpu.h"
#include "mm/hyp_mmu.h"
#include <arch/boot.h>
#include "hyp/platform/hyp.h"

static volatile uint8_t *gicd, *gicc;
volatile uint8_t *gic_gich_va;
static struct gic_info info;
static bool security_extn;     /* GICD_TYPER.SecurityExtn: we see the NS view */
static struct gic_handler {
    irq_handler_t fn;
    void *arg;
} handlers[GIC_MAX_IRQS];
static uint8_t cpu_if_mask[MAX_CPUS];

#define HYP_IRQ_PRIO 0xa0u
/* GICC_CTLR (GICv2 4.4.1): in the non-secure view EnableGrp1 is bit 0 and
 * EOImodeNS bit 9; the secure view adds AckCtl (bit 2) to its enables of
 * both groups (gicd_regs.h) and has EOImodeS in bit 9, EOImodeNS in 10. */
#define CTLR_NS_ENABLE_GRP1 ((unsigned int)1u << 0)
#define CTLR_NS_EOIMODE_NS  ((unsigned int)1u << 9)
#define CTLR_ACKCTL         ((unsigned int)1u << 2)
#define CTLR_EOIMODE_S      ((unsigned int)1u << 9)
#define CTLR_EOIMODE_NS     ((unsigned int)1u << 10)

static inline uint32_t d_rd(uint32_t off) { return *(volatile uint32_t *)(gicd + off); }
static inline void d_wr(uint32_t off, uint32_t v) { *(volatile uint32_t *)(gicd + off) = v; }
static inline void d_wr8(uint32_t off, uint8_t v) { *(volatile uint8_t *)(gicd + off) = v; }
static inline uint32_t c_rd(uint32_t off) { return *(volatile uint32_t *)(gicc + off); }
static inline void c_wr(uint32_t off, uint32_t v) { *(volatile uint32_t *)(gicc + off) = v; }

const struct gic_info *gic_get_info(void)
{
    return &info;
}

int gic_init(const struct platform *p)
{
    gicd = ioremap(p->gic.gicd.base, 0x1000);
    /* GICC_DIR is at 0x1000: the CPU interface spans 8 KiB */
    gicc = ioremap(p->gic.gicc.base, 0x2000);
    gic_gich_va = ioremap(p->gic.gich.base, 0x1000);
    if (!gicd || !gicc || !gic_gich_va) {
        return -1;
    }
    uint32_t typer = d_rd(GICD_TYPER);
    info.nr_irqs = ((typer & 0x1fu) + 1u) * 32u;
    if (info.nr_irqs > GIC_MAX_IRQS) {
        info.nr_irqs = GIC_MAX_IRQS;
    }
    info.nr_cpus_if = ((typer >> 5) & 7u) + 1u;
    info.gicd_iidr = d_rd(GICD_IIDR);
    security_extn = ((typer >> 10) & 1u) != 0u;
    info.security_extn = security_extn;

    d_wr(GICD_CTLR, 0);
    /*
     * Every interrupt in Group 1.  With the Security Extensions the secure
     * side did it (firmware, or Partita itself in a secure start) and these
     * writes are ignored.  Without them it matters for hardware-linked list
     * registers: a guest's EOI deactivates the physical interrupt like a
     * non-secure GICC_DIR write, which QEMU (like a secure GIC) ignores for
     * Group 0 (GICv2 5.2.1).
     */
    for (unsigned int i = 0u; i < info.nr_irqs; i += 32u) {
        d_wr(GICD_IGROUPR + (i / 8u), 0xffffffffu);
    }
    for (unsigned int i = 32u; i < info.nr_irqs; i += 32u) {
        d_wr(GICD_ICENABLER + (i / 8u), 0xffffffffu);
        d_wr(GICD_ICPENDR + (i / 8u), 0xffffffffu);
        d_wr(GICD_ICACTIVER + (i / 8u), 0xffffffffu);
    }
    for (unsigned int i = 32u; i < info.nr_irqs; i++) {
        d_wr8(GICD_IPRIORITYR + i, HYP_IRQ_PRIO);
    }
    /* NS view: bit 0 enables Group 1; otherwise EnableGrp0 | EnableGrp1 */
    d_wr(GICD_CTLR, security_extn ? 1 : 3);
    gic_cpu_init();
    return 0;
}

/*
 * Reading ITARGETSR0..7 returns this CPU's own interface bit in every byte
 * (GICv2 4.3.12): the way to learn it without trusting MPIDR order.
 */
static uint8_t read_own_mask(void)
{
    uint32_t v = d_rd(GICD_ITARGETSR);
    return (uint8_t)(v | (v >> 8) | (v >> 16) | (v >> 24));
}

void gic_cpu_init(void)
{
    cpu_if_mask[this_cpu()->index] = read_own_mask();
    d_wr(GICD_ICENABLER, 0xffff0000u);   /* PPIs off until someone asks */
    d_wr(GICD_ICACTIVER, 0xffffffffu);
    d_wr(GICD_ISENABLER, 0x0000ffff);   /* SGIs always on */
    for (unsigned int i = 0u; i < 32u; i++) {
        d_wr8(GICD_IPRIORITYR + i, HYP_IRQ_PRIO);
    }
    d_wr(GICD_IGROUPR, 0xffffffffu);     /* banked SGIs/PPIs: Group 1 too */
    c_wr(GICC_PMR, 0xf0u);
    c_wr(GICC_BPR, 0u);
    if (security_extn) {
        c_wr(GICC_CTLR, CTLR_NS_ENABLE_GRP1 | CTLR_NS_EOIMODE_NS);  /* NS view: EnableGrp1, EOImodeNS */
    } else {    /* EnableGrp0|Grp1, AckCtl (ack Group 1 here), EOImodeS|EOImodeNS */
        c_wr(GICC_CTLR, GICC_CTLR_ENABLE_G0 | GICC_CTLR_ENABLE_G1 | CTLR_ACKCTL | CTLR_EOIMODE_S |
                        CTLR_EOIMODE_NS);
    }
}

uint8_t gic_cpu_if_mask(void)
{
    return cpu_if_mask[this_cpu()->index];
}

void gic_irq_register(unsigned int irq, irq_handler_t h, void *arg)
{
    if (irq >= GIC_MAX_IRQS) {
        return;
    }
    handlers[irq].arg = arg;
    handlers[irq].fn = h;
}

void gic_irq_enable(unsigned int irq, unsigned int cpu_target_mask)
{
    if ((irq >= 32u) && (cpu_target_mask != 0u)) {  /* 0: keep the target it has */
        d_wr8(GICD_ITARGETSR + irq, (uint8_t)cpu_target_mask);
    }
    d_wr(GICD_ISENABLER + (irq / 32u) * 4u, (unsigned int)1u << (irq % 32u));
}

void gic_irq_set_target(unsigned int irq, unsigned int pcpu)
{
    if ((irq >= 32u) && (pcpu < MAX_CPUS)) {
        d_wr8(GICD_ITARGETSR + irq, cpu_if_mask[pcpu]);
    }
}

void gic_irq_set_priority(unsigned int irq, uint8_t prio)
{
    d_wr8(GICD_IPRIORITYR + irq, prio);
}

void gic_irq_deactivate(unsigned int irq)
{
    /* for this CPU's PPIs the banked register; SPIs wherever they are */
    d_wr(GICD_ICACTIVER + (irq / 32u) * 4u, (unsigned int)1u << (irq % 32u));
}

bool gic_irq_active(unsigned int irq)
{
    return (d_rd(GICD_ISACTIVER + (irq / 32u) * 4u) >> (irq % 32u)) & 1u;
}

void gic_irq_activate(unsigned int irq)
{
    d_wr(GICD_ISACTIVER + (irq / 32u) * 4u, (unsigned int)1u << (irq % 32u));
}

uint32_t gic_state_read(uint32_t off)
{
    return d_rd(off);
}

void gic_state_write(uint32_t off, uint32_t bits)
{
    if (bits != 0u) {
        d_wr(off, bits);
    }
}

void gic_irq_disable(unsigned int irq)
{
    d_wr(GICD_ICENABLER + (irq / 32u) * 4u, (unsigned int)1u << (irq % 32u));
}

void gic_send_sgi(unsigned int sgi, unsigned int cpu_mask)
{
    dsb_ish();  /* the work we signal is visible before the interrupt */
    d_wr(GICD_SGIR, ((cpu_mask & 0xffu) << 16) | (sgi & 0xfu));
}

void gic_send_sgi_others(unsigned int sgi)
{
    dsb_ish();
    d_wr(GICD_SGIR, ((unsigned int)1u << 24) | (sgi & 0xfu));
}

/* CPUs whose kick and hypervisor timer are Group 0 (gic_group0_claim) */
static volatile uint32_t group0_cpus;

/* One of Partita's monitor services (include/arch/boot.h, boot/secure.S) */
static uint32_t mon_call(uint32_t fn, uint32_t a1, uint32_t a2)
{
    register uint32_t r0 __asm__("r0") = fn;
    register uint32_t r1 __asm__("r1") = a1;
    register uint32_t r2 __asm__("r2") = a2;
    register uint32_t r3 __asm__("r3");
    __asm__ volatile(".arch_extension sec\n\tsmc #0"
                     : "+r"(r0), "+r"(r1), "+r"(r2), "=r"(r3) : : "r12", "memory");
    return r0;
}

void gic_send_sgi_cpus(unsigned int sgi, uint32_t cpus)
{
    uint32_t mask = 0u;
    for (unsigned int c = 0u; c < MAX_CPUS; c++) {
        if ((cpus & ((unsigned int)1u << c)) != 0u) {
            mask |= cpu_if_mask[c];
        }
    }
    if (mask != 0u) {
        gic_send_sgi(sgi, mask);
    }
}

static void __attribute__((noinline, cold)) kick_group0(unsigned int pcpu)
{
    dsb_ish();  /* the work we signal is visible before the interrupt */
    (void)mon_call(MON_G0_SGI, cpu_if_mask[pcpu], SGI_KICK_G0);
}

void gic_kick_cpu(unsigned int pcpu)
{
    if ((pcpu >= MAX_CPUS) || (cpu_if_mask[pcpu] == 0u)) {
        return;
    }
    if (__builtin_expect(((group0_cpus >> pcpu) & 1u) != 0u, 0) != 0) {
        kick_group0(pcpu);  /* a direct guest's CPU: its kick is Group 0 */
        return;
    }
    gic_send_sgi(SGI_KICK, cpu_if_mask[pcpu]);
}

/*
 * This CPU gives its physical CPU interface to a direct guest
 * (docs/direct-interrupts.md): the hypervisor's own interrupts here, the
 * kick SGI and its timer, go to Group 0 through the monitor (only a secure
 * access can, GICv2 4.3.4), at a priority no non-secure PMR masks, and
 * reach HYP as FIQ (HCR.FMO, which the guest's CPSR.F cannot mask: ARM ARM
 * B1.8, asynchronous exception masking).  What else the hypervisor enabled
 * here for guests with a virtual interface (maintenance, PMU) is turned
 * off: with HCR.IMO clear it would reach the guest.  Once a CPU is direct
 * it stays so.
 */
void gic_group0_claim(void)
{
    unsigned int cpu = this_cpu()->index;
    if ((group0_cpus & ((unsigned int)1u << cpu)) != 0u) {
        return;
    }
    (void)mon_call(MON_G0_CLAIM, ((unsigned int)1u << SGI_KICK_G0) | ((unsigned int)1u << host.timer.irq_hyp),
                   0u);
    d_wr(GICD_ICENABLER, 0xffff0000u & ~((unsigned int)1u << host.timer.irq_hyp));
    d_wr(GICD_ICACTIVER, 0xffff0000u & ~((unsigned int)1u << host.timer.irq_hyp));
    (void)__atomic_fetch_or(&group0_cpus, (unsigned int)1u << cpu, __ATOMIC_SEQ_CST);
}

bool gic_cpu_is_group0(void)
{
    return ((group0_cpus >> this_cpu()->index) & 1u) != 0u;
}

void gic_direct_cpu_reset(const uint32_t *spis, unsigned int n)
{
    /* EOImodeNS 1: an EOIR drops the running priority, GICC_DIR ends the
     * interrupt.  The non-secure view shows Group 1 only: the
     * hypervisor's Group 0 is never touched from here (GICv2 4.3.x) */
    c_wr(GICC_CTLR, CTLR_NS_ENABLE_GRP1 | CTLR_NS_EOIMODE_NS);
    uint32_t ppis = d_rd(GICD_ISACTIVER) & 0xffff0000u;
    for (unsigned int i = 16u; i < 32u; i++) {
        if ((ppis & ((unsigned int)1u << i)) != 0u) {
            c_wr(GICC_EOIR, i);
            c_wr(GICC_DIR, i);
        }
    }
    for (unsigned int k = 0u; k < n; k++) {
        if ((spis[k] < GIC_MAX_IRQS) && gic_irq_active(spis[k])) {
            c_wr(GICC_EOIR, spis[k]);
            c_wr(GICC_DIR, spis[k]);
        }
    }
    d_wr(GICD_ICENABLER, 0xffff0000u);  /* Group 0 bits ignore non-secure writes */
    d_wr(GICD_ICPENDR, 0xffff0000u);
    for (unsigned int i = 0u; i < 16u; i += 4u) {   /* SGIs another vCPU sent the last life */
        d_wr(GICD_CPENDSGIR + i, 0xffffffffu);
    }
    c_wr(GICC_PMR, 0u);
    c_wr(GICC_CTLR, 0);
}

/* The HYP FIQ path of a direct CPU: its Group 0 interrupts, acknowledged
 * and ended through the monitor (the non-secure GICC cannot) */
void gic_handle_fiq(void)
{
    for (;;) {
        uint32_t iar = mon_call(MON_G0_ACK, 0u, 0u);
        unsigned int irq = iar & 0x3ffu;
        if (irq >= GIC_MAX_IRQS) {
            break;
        }
        if ((irq != SGI_KICK_G0) && (handlers[irq].fn != NULL)) {
            handlers[irq].fn(irq, handlers[irq].arg);
        }
        (void)mon_call(MON_G0_EOI, iar, 0u);
    }
}

/*
 * One interrupt per call, and no second GICC_IAR read to learn that nothing
 * else waits: every caller goes back into a guest or to a WFI with HYP's
 * IRQs masked, and a pending interrupt exits the one (HCR.IMO routes it
 * to HYP whatever the guest's CPSR.I, B1.8.3) and ends the other (B1.8.13,
 * WFI wakes on a pending interrupt even while masked), so the next comes
 * through here again.
 */
void gic_handle_irq(void)
{
    uint32_t iar = c_rd(GICC_IAR);
    unsigned int irq = iar & 0x3ffu;
    bool done = true;
    if (irq == SGI_KICK) {
        /* a kick's exit was the point: its priority drop and deactivation */
        c_wr(GICC_EOIR, iar);
        c_wr(GICC_DIR, iar);
        return;
    }
    if (irq >= GIC_MAX_IRQS) {
        return;             /* spurious (1023): nothing to end */
    }
    if (handlers[irq].fn != NULL) {
        done = handlers[irq].fn(irq, handlers[irq].arg);
    } else {
        pr_warn("cpu%u: unhandled IRQ %u\n", this_cpu()->index, irq);
    }
    c_wr(GICC_EOIR, iar);       /* priority drop */
    if (done) {
        c_wr(GICC_DIR, iar);    /* else the guest's EOI deactivates it */
    }
}
