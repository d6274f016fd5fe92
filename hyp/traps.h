#ifndef HYP_TRAPS_H
#define HYP_TRAPS_H
#include <stdint.h>
#include <arch/sysregs.h>
#include "vcpu.h"

typedef void (*trap_fn)(struct vcpu *v, uint32_t hsr);
/* handlers by HSR exception class (B3.13.6); NULL: undefined for the guest */
#define TRAP_EC_MAX 0x40
extern const trap_fn trap_table[TRAP_EC_MAX];
void trap_undef(struct vcpu *v, uint32_t hsr);
void trap_irq(struct vcpu *v);

/* Handle one exit of v (the general registers are in v->regs); inline in
 * the scheduler's loop, the way into every trap */
static inline void trap_handle_exit(struct vcpu *v, uint32_t reason)
{
    if (reason != EXIT_TRAP) {
        trap_irq(v);
        return;
    }
    uint32_t hsr = sysreg_read_hsr();
    trap_fn fn = trap_table[hsr >> 26];
    (fn ? fn : trap_undef)(v, hsr);
}
/* Sleep until v has something to do (an interrupt or a request). */
void vcpu_wait(struct vcpu *v);
/* the PSCI/SMCCC environment of a vCPU, once its guest is known */
void vcpu_psci_init(struct vcpu *v);

#endif
