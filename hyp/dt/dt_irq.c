/*
 * A node's interrupts as GIC INTIDs: its interrupt parent (Linux's
 * of_irq_find_parent), interrupt-map routing through nexus nodes, and the
 * controllers in front of the GIC that pass its specifiers on.
 */
#include <stdbool.h>
#include <string.h>
#include <libfdt.h>
#include "translate.h"
#include "dt_index.h"

/* the GICv2 implementations the probe drives, by compatible string */
const char *const dt_gic_compat[] = {
    "arm,cortex-a15-gic", "arm,cortex-a7-gic", "arm,gic-400", "arm,arm11mp-gic",
    "arm,cortex-a9-gic", "qcom,msm-qgic2", NULL,
};

/*
 * Interrupt controllers stacked in front of the GIC that pass a GIC
 * specifier on unchanged (Linux hierarchical irq domains: the OMAP
 * wake-up generator, Tegra's legacy controller, i.MX's GPC): their lines
 * are the GIC's SPIs with the same numbers.
 */
static const char *const irq_passthrough_compat[] = {
    "ti,omap4-wugen-mpu", "nvidia,tegra30-ictlr", "nvidia,tegra20-ictlr",
    "fsl,imx6q-gpc", "fsl,imx7d-gpc", NULL,
};

/* node is compatible with one of list (one property read, no tree search) */
static bool compatible_any(const void *fdt, int node, const char *const *list)
{
    for (int i = 0; list[i]; i++) {
        if (dt_is_compatible(fdt, node, list[i])) {
            return true;
        }
    }
    return false;
}

static bool is_passthrough_irqchip(const void *fdt, int node)
{
    return compatible_any(fdt, node, irq_passthrough_compat);
}

static bool is_gic(const void *fdt, int node)
{
    return compatible_any(fdt, node, dt_gic_compat);
}

/*
 * The interrupt parent of node, as Linux's of_irq_find_parent finds it:
 * follow interrupt-parent where a node has one, else go up, until a node
 * with #interrupt-cells.  -1 if there is none.
 */
static int irq_parent(const void *fdt, int node)
{
    for (int depth = 0; node >= 0 && depth < 32; depth++) {
        int len;
        const fdt32_t *ph = dt_getprop(fdt, node, "interrupt-parent", &len);
        if (ph && len == 4) {
            node = dt_node_offset_by_phandle(fdt, fdt32_ld(ph));
        } else {
            node = dt_parent(fdt, node);
        }
        if (node >= 0 && dt_getprop(fdt, node, "#interrupt-cells", NULL)) {
            return node;
        }
    }
    return -1;
}

#define IRQ_MAX_CELLS 4     /* unit address (up to 2) + specifier (up to 3) fit */

/*
 * Route an interrupt specifier up to its controller through interrupt-map
 * nexuses (Linux's of_irq_parse_raw, ePAPR 2.4.3): at a nexus, match (unit
 * address, specifier) under interrupt-map-mask against each entry and go
 * on with the entry's parent and parent specifier.  Returns the
 * controller's node with its specifier in spec (*n cells), or -1.
 */
static int irq_route(const void *fdt, int ipar, int dev, int dev_parent,
                     uint32_t spec[IRQ_MAX_CELLS], int *n)
{
    uint32_t uaddr[2] = { 0, 0 };
    bool have_addr = false;
    for (int depth = 0; ipar >= 0 && depth < 8; depth++) {
        if (dt_getprop(fdt, ipar, "interrupt-controller", NULL) != NULL) {
            if (*n != 3 || is_gic(fdt, ipar) || !is_passthrough_irqchip(fdt, ipar)) {
                return ipar;
            }
            ipar = irq_parent(fdt, ipar);   /* on to the GIC, same specifier */
            continue;
        }
        int maplen;
        const fdt32_t *map = dt_getprop(fdt, ipar, "interrupt-map", &maplen);
        if (!map) {
            ipar = irq_parent(fdt, ipar);
            continue;
        }
        if (!have_addr) {   /* the device's unit address: its reg's first cells */
            int len, dac = dt_cell_prop(fdt, dev_parent, "#address-cells", 2);
            const fdt32_t *reg = dt_getprop(fdt, dev, "reg", &len);
            for (int i = 0; reg && dac >= 1 && dac <= 2 && len >= 4 * dac && i < dac; i++) {
                uaddr[i] = fdt32_ld(&reg[i]);
            }
            have_addr = true;
        }
        int ac = dt_cell_prop(fdt, ipar, "#address-cells", 2);
        int ic = dt_cell_prop(fdt, ipar, "#interrupt-cells", -1);
        if (ac < 0 || ac > 2 || ic != *n) {
            return -1;
        }
        uint32_t match[IRQ_MAX_CELLS + 2], mask[IRQ_MAX_CELLS + 2];
        int mlen, w = ac + ic;
        const fdt32_t *m = dt_getprop(fdt, ipar, "interrupt-map-mask", &mlen);
        for (int i = 0; i < w; i++) {
            match[i] = i < ac ? uaddr[i] : spec[i - ac];
            mask[i] = m && mlen >= 4 * w ? fdt32_ld(&m[i]) : 0xffffffffu;
        }
        int cells = maplen / 4, i = 0, next = -1;
        while (i + w + 1 <= cells) {
            bool hit = true;
            for (int k = 0; k < w; k++) {
                hit = hit && (((fdt32_ld(&map[i + k]) ^ match[k]) & mask[k]) == 0u);
            }
            int par = dt_node_offset_by_phandle(fdt, fdt32_ld(&map[i + w]));
            if (par < 0) {
                return -1;
            }
            int pac = dt_cell_prop(fdt, par, "#address-cells", 0);
            int pic = dt_cell_prop(fdt, par, "#interrupt-cells", -1);
            if (pac < 0 || pac > 2 || pic < 1 || pic > 3 || i + w + 1 + pac + pic > cells) {
                return -1;
            }
            if (hit) {
                for (int k = 0; k < pac; k++) {
                    uaddr[k] = fdt32_ld(&map[i + w + 1 + k]);
                }
                for (int k = 0; k < pic; k++) {
                    spec[k] = fdt32_ld(&map[i + w + 1 + pac + k]);
                }
                *n = pic;
                next = par;
                break;
            }
            i += w + 1 + pac + pic;
        }
        if (next < 0) {
            return -1;      /* no entry maps it */
        }
        ipar = next;
    }
    return -1;
}

int dt_irq_source_init(const void *fdt, int node, struct dt_irq_source *src)
{
    int anc[DT_MAX_DEPTH], len, rlen;
    src->prop = dt_getprop(fdt, node, "interrupts", &src->len);
    if (!src->prop) {
        return -1;
    }
    /* the likely interrupt parent: the node's own, else the root's */
    const fdt32_t *own = dt_getprop(fdt, node, "interrupt-parent", &len);
    const fdt32_t *ph = own && len == 4 ? own : NULL;
    const fdt32_t *guess = ph ? ph : dt_getprop(fdt, 0, "interrupt-parent", &rlen);
    if (!ph && rlen != 4) {
        guess = NULL;
    }
    int na = dt_ancestors(fdt, node, anc);
    if (na < 1) {
        return -1;
    }
    /* Linux's of_irq_find_parent, with the ancestors at hand (the root's
     * interrupt-parent was read above) */
    int p = -1;
    for (int i = na - 1; !ph && i >= 0; i--) {
        if (dt_getprop(fdt, anc[i], "#interrupt-cells", NULL) != NULL) {
            p = anc[i];
            break;
        }
        if (i == 0) {
            ph = guess;
        } else if ((ph = dt_getprop(fdt, anc[i], "interrupt-parent", &len)) && len != 4) {
            ph = NULL;
        } else {
            /* otherwise nothing to do */
        }
    }
    if (p < 0 && ph) {
        p = dt_node_offset_by_phandle(fdt, fdt32_ld(ph));
        if (p >= 0 && !dt_getprop(fdt, p, "#interrupt-cells", NULL)) {
            p = irq_parent(fdt, p);
        }
    }
    if (p < 0) {
        return -1;
    }
    src->ipar = p;
    src->ncells = dt_cell_prop(fdt, p, "#interrupt-cells", -1);
    src->node = node;
    src->parent = anc[na - 1];
    src->gic = src->ncells == 3 && dt_getprop(fdt, p, "interrupt-controller", NULL) &&
               is_gic(fdt, p);
    return src->ncells >= 1 && src->ncells <= 3 ? 0 : -1;
}

/* INTID of the index'th entry of src, or -1 */
int dt_irq_source_get(const void *fdt, const struct dt_irq_source *src, int index)
{
    int n = src->ncells;
    if ((index + 1) * n * 4 > src->len) {
        return -1;
    }
    uint32_t spec[IRQ_MAX_CELLS];
    for (int i = 0; i < n; i++) {
        spec[i] = fdt32_ld(&src->prop[index * n + i]);
    }
    int ctl = src->gic ? src->ipar : irq_route(fdt, src->ipar, src->node, src->parent, spec, &n);
    if (!src->gic && (ctl < 0 || n != 3 || !is_gic(fdt, ctl))) {
        return -1;      /* not a GIC interrupt (a GPIO line, a combiner...) */
    }
    /* a GIC specifier: type (0 SPI, 1 PPI), number, flags */
    int intid = -1;
    if ((spec[0] == 0u) && (spec[1] < 988u)) {
        intid = (int)spec[1] + 32;      /* SPI */
    } else if ((spec[0] == 1u) && (spec[1] < 16u)) {
        intid = (int)spec[1] + 16;      /* PPI */
    } else {
        /* otherwise not one the GIC takes */
    }
    return intid;
}

int dt_node_irq(const void *fdt, int node, int index)
{
    struct dt_irq_source src;
    if (dt_irq_source_init(fdt, node, &src) < 0) {
        return -1;
    }
    return dt_irq_source_get(fdt, &src, index);
}
