/* Per-physical-CPU state; HTPIDR holds this CPU's pointer. */
#ifndef HYP_PERCPU_H
#define HYP_PERCPU_H

#include <stdint.h>
#include <stdbool.h>
#include <arch/layout.h>
#include <arch/sysregs.h>

struct vcpu;
struct vcpu_vfp;
struct vgic_cpu;

struct pcpu {
    unsigned int index;         /* logical: 0 is the boot CPU */
    uint32_t mpidr;
    uint32_t start_mode;        /* START_MODE_* as this CPU found itself */
    volatile bool online;
    volatile bool parked;       /* stopped after a fatal HYP exception */
    struct vcpu *volatile vcpu; /* the vCPU pinned here (shared: the current one) */
    bool shared;                /* more than one vCPU: hyp/sched/sched_share.c */
    struct vcpu *rr;            /* shared: whose turn it is (round robin) */
    struct vcpu_vfp *vfp_owner; /* shared: whose registers the VFP holds */
    volatile bool vfp_flush;    /* shared: save them and own none (gdb asks) */
    struct vgic_cpu *vgic;      /* the virtual CPU interface loaded here (vgic/vgic_sr.c) */
    uint32_t pmu_inten_parked;  /* PMINTENSET taken from a vCPU that was away when
                                 * its PMU interrupt came (vgic/vgic_hw.c) */
    uint32_t switches;          /* shared: vCPU loads */
    volatile uint32_t attention; /* work for this CPU's loop outside the guest */
    uint64_t idle_ticks;        /* time spent in WFI with nothing to run */
};

extern struct pcpu pcpus[MAX_CPUS];
extern unsigned int pcpu_count;    /* CPUs described by the host DT */

static inline struct pcpu *this_cpu(void)
{
    return (struct pcpu *)(uintptr_t)sysreg_read_htpidr();
}

void pcpu_init_self(unsigned int index, uint32_t start_mode);
const char *start_mode_name(uint32_t mode);
/* CPUs that have come up (pcpu.online) */
unsigned int pcpu_online_count(void);

#endif
