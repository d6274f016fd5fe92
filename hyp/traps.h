#ifndef HYP_TRAPS_H
#define HYP_TRAPS_H
#include <stdint.h>
#include "vcpu.h"

/* Handle one exit of v (the general registers are in v->regs). */
void trap_handle_exit(struct vcpu *v, uint32_t reason);
/* Sleep until v has something to do (an interrupt or a request). */
void vcpu_wait(struct vcpu *v);
/* the PSCI/SMCCC environment of a vCPU, once its guest is known */
void vcpu_psci_init(struct vcpu *v);

#endif
