/*
 * PSCI 1.0 (ARM DEN 0022D) and SMCCC (ARM DEN 0028) for guests, plus
 * Partita's own calls in the vendor-specific hypervisor service range:
 * their IDs in include/partita/hvc.h, the environment they act on in
 * hyp/arch/psci_env.h.
 */
#ifndef HYP_PSCI_H
#define HYP_PSCI_H

#include <stdint.h>
#include <stdbool.h>
#include <partita/hvc.h>
#include "hyp/arch/psci_env.h"

/*
 * Handle an SMCCC call (HVC or trapped SMC) with arguments r[0..3].
 * Results go back in r[0..3].  Returns false if the call does not return
 * to the caller (CPU_OFF, SYSTEM_OFF, SYSTEM_RESET).
 */
bool psci_handle(const struct psci_env *env, uint32_t r[4]);
/* Partita's own calls alone (owning entity 6); false for an unknown ID */
bool psci_partita_call(const struct psci_env *e, uint32_t r[4]);

#endif
