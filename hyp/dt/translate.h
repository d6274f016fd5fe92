/*
 * Device-tree translation for the host probe (dt_reg.c, dt_irq.c): a
 * node's registers as CPU physical addresses, its interrupts as GIC INTIDs.
 */
#ifndef HYP_DT_TRANSLATE_H
#define HYP_DT_TRANSLATE_H

#include <stdint.h>
#include <stdbool.h>
#include <libfdt.h>

struct plat_range {
    uint64_t base;
    uint64_t size;
};

/* Tree depth the probe follows (QEMU's and boards' DTs: < 8) */
#define DT_MAX_DEPTH 16

/* n big-endian cells as one number */
uint64_t dt_cells(const fdt32_t *c, int n);
/* a one-cell property of node, or dflt when absent or not one cell */
int dt_cell_prop(const void *fdt, int node, const char *name, int dflt);
/* the ancestors of node, root first; how many (0: the root), or -1 */
int dt_ancestors(const void *fdt, int node, int anc[DT_MAX_DEPTH]);

/*
 * Translate the index'th reg entry of node to a CPU physical address through
 * the parents' ranges.  Returns 0 or a negative libfdt-style error.
 */
int dt_node_reg(const void *fdt, int node, int index, struct plat_range *r);

/* the compatible strings of the GICs Partita drives, NULL-terminated */
extern const char *const dt_gic_compat[];

/* INTID of the index'th interrupt of node (GIC 3-cell specifier), or -1. */
int dt_node_irq(const void *fdt, int node, int index);

/* A device's interrupts, resolved once for all its entries. */
struct dt_irq_source {
    const fdt32_t *prop;        /* interrupts */
    int len;
    int ipar;                   /* its interrupt parent */
    int ncells;                 /* the parent's #interrupt-cells */
    int node, parent;           /* the device and its parent node */
    bool gic;                   /* the parent is the GIC: no routing */
};

/* src for node (its interrupts and their parent): 0, or -1 if it has none */
int dt_irq_source_init(const void *fdt, int node, struct dt_irq_source *src);
/* INTID of the index'th entry of src, or -1 */
int dt_irq_source_get(const void *fdt, const struct dt_irq_source *src, int index);

#endif
