#ifndef HYP_SMP_H
#define HYP_SMP_H

#include <stdint.h>
#include "hyp/platform/platform.h"

/* Start every CPU of the host DT; returns how many are online. */
unsigned int smp_boot_secondaries(const struct platform *p);

#endif
