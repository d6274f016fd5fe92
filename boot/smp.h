#ifndef HYP_SMP_H
#define HYP_SMP_H

#include <stdint.h>
#include "hyp/platform/platform.h"

/* Start every CPU of the host DT; returns how many are online. */
unsigned int smp_boot_secondaries(const struct platform *p);
/* SMC Calling Convention call through the DT's PSCI conduit (SMCCC 1.x) */
int32_t psci_call(enum psci_conduit c, uint32_t fn, uint32_t a1, uint32_t a2, uint32_t a3);

#endif
