/*
 * An index of a device tree, built in one pass: every node's parent and a
 * few properties the probe asks of many nodes.  libfdt answers "parent of"
 * and "first node compatible with" by walking the tree from its start, and
 * each walk over QEMU's virt tree costs ~70,000 instructions (every tag is
 * bounds-checked); the probe asks dozens of such questions, so it builds
 * this once and asks it instead.  All reads still go through libfdt.
 */
#ifndef HYP_DT_INDEX_H
#define HYP_DT_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#define DT_INDEX_MAX_NODES 1024
#define DT_INDEX_MAX_PROPS 4096
#define DT_INDEX_MAX_DEPTH 32

/*
 * Index fdt (replacing any index of another tree) and check its structure
 * block on the way: tags in bounds, nodes nested and closed, property names
 * in the strings block.  Returns 0 or a negative libfdt error.  A tree with
 * more nodes than the index holds is checked but not indexed: the lookups
 * below then fall back to libfdt's walks.
 */
int dt_index_build(const void *fdt);

/* The parent of node, like fdt_parent_offset */
int dt_parent(const void *fdt, int node);
/* The first node after startoffset compatible with compat, like
 * fdt_node_offset_by_compatible */
int dt_find_compatible(const void *fdt, int startoffset, const char *compat);
/* The node's compatible list holds compat, like fdt_node_check_compatible */
bool dt_is_compatible(const void *fdt, int node, const char *compat);
/* The node with this phandle, like fdt_node_offset_by_phandle */
int dt_node_offset_by_phandle(const void *fdt, uint32_t phandle);
/* The child of parent after prev (-1: the first); -FDT_ERR_NOTFOUND at the end */
int dt_next_child(const void *fdt, int parent, int prev);
/* A path's node, like fdt_path_offset_namelen ("/cpus", "/pl011@9000000";
 * a component without a unit address matches one with), or an alias's and
 * below it ("serial0", "soc/uart@0" with soc = "/soc@1"); an alias whose
 * value is not a full path is -FDT_ERR_BADPATH, never followed further */
int dt_path_offset_namelen(const void *fdt, const char *path, int namelen);
static inline int dt_path_offset(const void *fdt, const char *path)
{
    return dt_path_offset_namelen(fdt, path, (int)__builtin_strlen(path));
}
/* Like fdt_get_path, fdt_address_cells, fdt_size_cells */
int dt_get_path(const void *fdt, int node, char *buf, int buflen);
int dt_address_cells(const void *fdt, int node);
int dt_size_cells(const void *fdt, int node);
/*
 * fdt_getprop: for the indexed tree, from the property lists the index
 * keeps; for another tree, from one pass over the node's properties, kept
 * for the nodes last asked about (libfdt walks them from the first for
 * every name; the probe and the configuration parser ask a node for many).
 * dt_getprop_forget() before reading a new tree where an old one was.
 */
const void *dt_getprop(const void *fdt, int node, const char *name, int *lenp);
void dt_getprop_forget(void);
/* The node's "device_type" is type (memory, cpu) */
bool dt_is_type(const void *fdt, int node, const char *type);

#define dt_for_each_child(node, fdt, parent)                          \
    for ((node) = dt_next_child((fdt), (parent), -1); (node) >= 0;    \
         (node) = dt_next_child((fdt), (parent), (node)))

#endif
