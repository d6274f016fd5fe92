/* The device tree Partita writes for each guest (docs/virtual-board.md). */
#ifndef HYP_GUEST_DT_H
#define HYP_GUEST_DT_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/config/guest_config.h"

struct guest_dt_info {
    uint32_t ram_ipa;
    uint32_t initrd_ipa;            /* 0: no initrd */
    uint32_t initrd_size;
    const char *cpu_compatible;     /* e.g. "arm,cortex-a15" */
    const void *host_dt;            /* for passthrough device nodes; may be NULL */
    bool pmu;                       /* the guest has the CPU's PMU */
    bool pmu_irq;                   /* and its overflow interrupt (VBOARD_PMU_IRQ) */
};

/* Write the guest's DTB into buf.  Returns its size, or a negative libfdt error. */
int guest_dt_build(void *buf, int bufsize, const struct guest_config *cfg,
                   const struct guest_dt_info *info);

#endif
