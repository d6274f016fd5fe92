/* GIC virtualization regions a SoC's DT omits (gic_quirks.c) */
#ifndef HYP_PLATFORM_GIC_QUIRKS_H
#define HYP_PLATFORM_GIC_QUIRKS_H

#include <stdint.h>

struct gic_quirk {
    const char *soc;                    /* a compatible of the DT's root */
    uint64_t gicd, gicc;                /* where the DT must put these */
    uint64_t gich, gich_size, gicv, gicv_size;
    uint32_t maint_irq;                 /* INTID */
    const char *source;                 /* the document it comes from */
};

/* The entry for this DT's SoC with its GICD and GICC there, or NULL */
const struct gic_quirk *gic_quirk_find(const void *fdt, uint64_t gicd, uint64_t gicc);

#endif
