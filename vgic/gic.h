/* Host GICv2 driver (ARM IHI 0048B): distributor and this CPU's interface. */
#ifndef VGIC_GIC_H
#define VGIC_GIC_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/platform/platform.h"

#include "gicd_regs.h"

#define GIC_SPURIOUS     1023u
#define GIC_MAX_IRQS     1020u

/* Returns true when the interrupt is done with (deactivate it now), false
 * when it was forwarded to a guest, whose EOI will deactivate it. */
typedef bool (*irq_handler_t)(unsigned int irq, void *arg);

struct gic_info {
    unsigned int nr_irqs;       /* from GICD_TYPER.ITLinesNumber */
    unsigned int nr_cpus_if;    /* CPU interfaces implemented */
    uint32_t gicd_iidr;
    bool security_extn;         /* GICD_TYPER.SecurityExtn: we see the NS view */
};

int gic_init(const struct platform *p);      /* boot CPU: distributor + own interface */
void gic_cpu_init(void);                     /* every CPU: its interface */
const struct gic_info *gic_get_info(void);
void gic_irq_register(unsigned int irq, irq_handler_t h, void *arg);
/* enable; an SPI is routed to cpu_target_mask unless that is 0 */
void gic_irq_enable(unsigned int irq, unsigned int cpu_target_mask);
void gic_irq_disable(unsigned int irq);
void gic_send_sgi(unsigned int sgi, unsigned int cpu_mask);
/* an SGI to every CPU but this one (GICD_SGIR TargetListFilter 0b01) */
void gic_send_sgi_others(unsigned int sgi);
void gic_irq_set_target(unsigned int irq, unsigned int pcpu);
void gic_irq_set_priority(unsigned int irq, uint8_t prio);
/* deactivate a forwarded interrupt the guest will never EOI (reset, stop) */
void gic_irq_deactivate(unsigned int irq);
/* a forwarded PPI's active state, switched with the vCPU it belongs to
 * on a shared CPU (this CPU's banked copy) */
bool gic_irq_active(unsigned int irq);
void gic_irq_activate(unsigned int irq);
/* A word of the pending and active banks (GICD_ISPENDR..GICD_ICACTIVER,
 * off a word offset there): read, or bits written (1s set or clear, 0s do
 * nothing, 4.3.7-4.3.10); a direct guest's own interrupts' state, and any
 * guest's passthrough SPIs' (vgic/vgic_pt.c), is the hardware's.  Bank 0
 * is this CPU's (banked). */
uint32_t gic_state_read(uint32_t off);
void gic_state_write(uint32_t off, uint32_t bits);
/* the hypervisor control interface (GICH), mapped by gic_init */
extern volatile uint8_t *gic_gich_va;
static inline volatile uint8_t *gic_gich(void) { return gic_gich_va; }
/* Hypervisor SGI: make a physical CPU leave its guest and look for work */
#define SGI_KICK 0u
/* ... on a direct guest's CPU (docs/direct-interrupts.md): a Group 0 SGI,
 * out of the way of the SGIs guests use (Linux: 0-7); 0-14 are the guest's */
#define SGI_KICK_G0 15u
void gic_kick_cpu(unsigned int pcpu);
/* Group 1 SGI sgi to the physical CPUs in bitmap cpus (a direct guest's
 * SGIs between its vCPUs) */
void gic_send_sgi_cpus(unsigned int sgi, uint32_t cpus);
uint8_t gic_cpu_if_mask(void);               /* this CPU's GIC interface bit */
void gic_handle_irq(void);                   /* the HYP IRQ path */
/* Direct interrupts (docs/direct-interrupts.md): this CPU's hypervisor
 * interrupts to Group 0 (a secure start only); is this CPU so; its HYP
 * FIQ path */
void gic_group0_claim(void);
bool gic_cpu_is_group0(void);
void gic_handle_fiq(void);
/* this CPU's interface, for a direct guest's next life: what the last one
 * left active ended (its PPIs, and its SPIs spis[0..n)), its PPIs off, the
 * non-secure interface disabled and masked (GICv2 reset values) */
void gic_direct_cpu_reset(const uint32_t *spis, unsigned int n);

#endif
