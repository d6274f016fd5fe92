/*
 * Shared physical CPUs (docs/configuration.md, "Shared CPUs"): when the
 * configuration gives one CPU to several vCPUs (every guest on it sets
 * time-slice-us), that CPU runs them in turns instead of the exclusive loop
 * of hyp/sched/sched.c.
 *
 *  - Round robin with a budget: each vCPU may run its guest's slice per
 *    round; a round ends when no runnable vCPU has budget left, and every
 *    budget is refilled.  Busy guests progress in proportion to slices.
 *  - WFI gives the CPU away: the vCPU blocks until it has an interrupt.
 *  - A vCPU that gets an interrupt while it is away, in WFI or waiting for
 *    its turn (its virtual timer, watched on the hypervisor timer while it
 *    is away, an IPI, a doorbell, a device) runs next if it has budget
 *    left, ahead of the vCPU whose turn it is, for one turn.
 *  - VFP/NEON is switched lazily (HCPTR, hyp/arch/vfp.c); everything else a
 *    vCPU owns moves with vcpu_load/vcpu_put, plus the physical active
 *    state of its forwarded virtual timer PPI.
 */
#ifndef HYP_SCHED_SHARE_H
#define HYP_SCHED_SHARE_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/arch/vcpu.h"
#include "hyp/arch/vcpu_share.h"

struct pcpu;

/* guests_init: vCPU v runs on pcpus[v->pcpu] (after every earlier one) */
void sched_assign(struct vcpu *v);
/* boot: one line per shared CPU, its vCPUs and their slices */
void sched_share_print(void);
/* the shared CPU's loop, instead of the exclusive one: never returns */
void sched_share_loop(struct pcpu *c) __attribute__((noreturn));
/* gdb (boot CPU): shared CPU cpu saves the VFP registers it holds into
 * their owner's save area and then holds none, so that the save areas are
 * the registers; false if it did not within a second */
bool sched_share_vfp_flush(unsigned int cpu);
/* WFI on a shared CPU: block v, give the CPU away */
void sched_share_block(struct vcpu *v);
/* vcpu_reset of a vCPU on a shared CPU: its VFP, timer and turn anew */
void sched_share_reset(struct vcpu *v);

#endif
