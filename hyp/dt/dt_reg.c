/*
 * A node's "reg" entries as CPU physical addresses, through its parents'
 * "ranges" (Linux's of_translate_address), and the small cell readers the
 * probe shares.  Every lookup goes through the host DT index.
 */
#include <string.h>
#include <libfdt.h>
#include "translate.h"
#include "dt_index.h"

uint64_t dt_cells(const fdt32_t *c, int n)
{
    uint64_t v = 0u;
    for (int i = 0; i < n; i++) {
        v = (v << 32) | fdt32_ld(&c[i]);
    }
    return v;
}

int dt_cell_prop(const void *fdt, int node, const char *name, int dflt)
{
    int len;
    const fdt32_t *v = dt_getprop(fdt, node, name, &len);
    if (!v || len != 4) {
        return dflt;
    }
    return (int)fdt32_ld(v);
}

/*
 * The ancestors of node, root first: one dt_index lookup a level (libfdt's
 * fdt_parent_offset walks the tree from its start for each).  Returns how
 * many (0 for the root), or -1: not a node, or deeper than we follow.
 */
int dt_ancestors(const void *fdt, int node, int anc[DT_MAX_DEPTH])
{
    int chain[DT_MAX_DEPTH], n = 0;
    int p = dt_parent(fdt, node);
    if (p < 0 && p != -FDT_ERR_NOTFOUND) {
        return -1;
    }
    for (; p >= 0; p = dt_parent(fdt, p)) {
        if (n == DT_MAX_DEPTH) {
            return -1;
        }
        chain[n++] = p;
    }
    for (int i = 0; i < n; i++) {
        anc[i] = chain[n - 1 - i];
    }
    return n;
}

/*
 * Walk up through each parent's "ranges" (child-addr parent-addr size
 * triples; an empty property is the identity) as Linux's of_translate_address
 * does.  A parent without "ranges" ends the walk (its children are not
 * memory mapped); the root needs none.  anc: the node's ancestors, root first.
 */
static int translate(const void *fdt, const int *anc, int na, uint64_t *addr)
{
    for (int i = na - 1; i >= 1; i--) {
        int child = anc[i], parent = anc[i - 1];
        int len;
        const fdt32_t *rng = dt_getprop(fdt, child, "ranges", &len);
        if (!rng) {
            return -FDT_ERR_NOTFOUND;
        }
        if (len > 0) {
            int ca = dt_cell_prop(fdt, child, "#address-cells", 2);
            int pa = dt_cell_prop(fdt, parent, "#address-cells", 2);
            int cs = dt_cell_prop(fdt, child, "#size-cells", 1);
            int step = ca + pa + cs;
            int n = len / 4;
            bool found = false;
            if (ca < 1 || ca > 2 || pa < 1 || pa > 2 || cs < 1 || cs > 2) {
                return -FDT_ERR_BADNCELLS;
            }
            for (int k = 0; k + step <= n; k += step) {
                uint64_t cb = dt_cells(rng + k, ca);
                uint64_t pb = dt_cells(rng + k + ca, pa);
                uint64_t sz = dt_cells(rng + k + ca + pa, cs);
                if (*addr >= cb && *addr - cb < sz) {
                    *addr = *addr - cb + pb;
                    found = true;
                    break;
                }
            }
            if (!found) {
                return -FDT_ERR_NOTFOUND;
            }
        }
    }
    return 0;
}

int dt_node_reg(const void *fdt, int node, int index, struct plat_range *r)
{
    int len, anc[DT_MAX_DEPTH];
    const fdt32_t *reg = dt_getprop(fdt, node, "reg", &len);
    if (!reg) {
        return -FDT_ERR_NOTFOUND;       /* before any walk: most nodes have none */
    }
    int na = dt_ancestors(fdt, node, anc);
    if (na < 1) {
        return -FDT_ERR_NOTFOUND;       /* the root, or deeper than we follow */
    }
    int ac = dt_address_cells(fdt, anc[na - 1]);
    int sc = dt_size_cells(fdt, anc[na - 1]);
    if (ac < 1 || ac > 2 || sc < 0 || sc > 2) {
        return -FDT_ERR_BADNCELLS;
    }
    int step = ac + sc;
    if ((index + 1) * step * 4 > len) {
        return -FDT_ERR_NOTFOUND;
    }
    r->base = dt_cells(reg + index * step, ac);
    r->size = sc ? dt_cells(reg + index * step + ac, sc) : 0u;
    return translate(fdt, anc, na, &r->base);
}
