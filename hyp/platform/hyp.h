/* What the rest of the hypervisor knows about the machine and itself. */
#ifndef HYP_HYP_H
#define HYP_HYP_H

#include "platform.h"
#include "hyp/lib/halt.h"

extern struct platform host;        /* filled once by CPU 0 at boot */
extern const void *host_fdt;
extern uint64_t hyp_boot_ticks;     /* counter at hyp_main entry */

#endif
