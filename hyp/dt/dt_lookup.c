/*
 * The host DT index's answers (dt_index.h): libfdt's lookups, from the
 * index when it holds the tree asked about, else from libfdt itself.
 */
#include <string.h>
#include <libfdt.h>
#include "dt_index.h"
#include "dt_index_data.h"

/* lookups come in runs on one node: the last one found, or returned */
static int hint;

/* The index entry of a node offset, or -1: the hint inline, else a search */
static int find_slow(int off)
{
    int lo = 0, hi = dt_ix.n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (dt_ix.node[mid].off == off) {
            return hint = mid;
        }
        if (dt_ix.node[mid].off < off) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

static inline int find(int off)
{
    return hint < dt_ix.n && dt_ix.node[hint].off == off ? hint : find_slow(off);
}

int dt_parent(const void *fdt, int node)
{
    if (fdt != dt_ix.fdt) {
        return fdt_parent_offset(fdt, node);
    }
    int i = find(node);
    if (i < 0) {
        return -FDT_ERR_BADOFFSET;
    }
    int p = dt_ix.node[i].parent;
    return p < 0 ? -FDT_ERR_NOTFOUND : dt_ix.node[p].off;
}

int dt_find_compatible(const void *fdt, int startoffset, const char *compat)
{
    if (fdt != dt_ix.fdt) {
        return fdt_node_offset_by_compatible(fdt, startoffset, compat);
    }
    for (int i = 0; i < dt_ix.n; i++) {
        const struct dt_node *d = &dt_ix.node[i];
        if (d->off > startoffset && d->compat &&
            fdt_stringlist_contains(d->compat, d->compat_len, compat)) {
            return d->off;
            }
    }
    return -FDT_ERR_NOTFOUND;
}

bool dt_is_compatible(const void *fdt, int node, const char *compat)
{
    int i = fdt == dt_ix.fdt ? find(node) : -1;
    if (i < 0) {
        return fdt_node_check_compatible(fdt, node, compat) == 0;
    }
    const struct dt_node *d = &dt_ix.node[i];
    return d->compat && fdt_stringlist_contains(d->compat, d->compat_len, compat);
}

int dt_node_offset_by_phandle(const void *fdt, uint32_t phandle)
{
    if (fdt != dt_ix.fdt) {
        return fdt_node_offset_by_phandle(fdt, phandle);
    }
    if (phandle == 0u || phandle == (uint32_t)-1) {
        return -FDT_ERR_BADPHANDLE;
    }
    for (int i = 0; i < dt_ix.n; i++) {
        if (dt_ix.node[i].phandle == phandle) {
            return dt_ix.node[i].off;
        }
    }
    return -FDT_ERR_NOTFOUND;
}

int dt_next_child(const void *fdt, int parent, int prev)
{
    if (fdt != dt_ix.fdt) {
        return prev < 0 ? fdt_first_subnode(fdt, parent) : fdt_next_subnode(fdt, prev);
    }
    int i = find(prev < 0 ? parent : prev);
    if (i < 0) {
        return -FDT_ERR_BADOFFSET;
    }
    i = prev < 0 ? dt_ix.node[i].child : dt_ix.node[i].next;
    if (i < 0) {
        return -FDT_ERR_NOTFOUND;
    }
    hint = i;   /* the caller asks about its children next */
    return dt_ix.node[i].off;
}

/* Does entry i's name match the path component [c, c + n)? */
static bool name_matches(int i, const char *c, int n)
{
    const char *name = dt_ix.node[i].name;
    int len = dt_ix.node[i].name_len;
    if (len < n || memcmp(name, c, (size_t)n) != 0) {
        return false;
    }
    /* all of it, or "name" for "name@unit" when c has no unit itself */
    return len == n || (name[n] == '@' && !memchr(c, '@', (size_t)n));
}

/* node's child named [p, p + n): from the index when it holds the tree
 * (the hint left on the child, where the walk asks next), else libfdt's */
static int child_named(const void *fdt, int node, const char *p, int n)
{
    if (fdt != dt_ix.fdt) {
        return fdt_subnode_offset_namelen(fdt, node, p, n);
    }
    int i = find(node);
    if (i < 0) {
        return -FDT_ERR_BADOFFSET;
    }
    for (i = dt_ix.node[i].child; i >= 0; i = dt_ix.node[i].next) {
        if (name_matches(i, p, n)) {
            return dt_ix.node[hint = i].off;
        }
    }
    return -FDT_ERR_NOTFOUND;
}

/* The node at the path [p, end) below node ("" is node itself) */
static int walk_below(const void *fdt, int node, const char *path, const char *end)
{
    int at = node;
    const char *p = path;
    while (at >= 0) {
        while ((p < end) && (*p == '/')) {
            p++;
        }
        if (p == end) {
            return at;
        }
        ptrdiff_t rest = end - p;
        const char *q = memchr(p, '/', (size_t)rest);
        ptrdiff_t len = ((q != NULL) ? q : end) - p;
        int n = (int)len;
        at = child_named(fdt, at, p, n);
        p = &p[n];
    }
    return at;
}

/*
 * An alias ("serial0", "serial0/child"): its value must be a full path (DT
 * specification 3.3), and it is taken only as one.  libfdt 1.6's
 * fdt_path_offset follows a value that is not as another alias, with no
 * limit: an alias naming itself recursed until the stack ran out (found by
 * fuzz_config).  The probe runs before the MMU and the stacks' guard pages,
 * so at boot on such a host DT the hypervisor overwrote its own data.
 */
static int alias_path(const void *fdt, const char *path, const char *end)
{
    ptrdiff_t rest = end - path;
    const char *q = memchr(path, '/', (size_t)rest);
    ptrdiff_t first = ((q != NULL) ? q : end) - path;
    int n = (int)first;
    int len;
    int aliases = dt_path_offset(fdt, "/aliases");
    const char *a = aliases < 0 ? NULL : fdt_getprop_namelen(fdt, aliases, path, n, &len);
    if (!a || len < 2 || a[0] != '/' || !memchr(a, '\0', (size_t)len)) {
        return -FDT_ERR_BADPATH;
    }
    int node = dt_path_offset_namelen(fdt, a, (int)strnlen(a, (size_t)len));
    return node < 0 ? node : walk_below(fdt, node, path + n, end);
}

int dt_path_offset_namelen(const void *fdt, const char *path, int namelen)
{
    if (namelen < 1) {
        return -FDT_ERR_BADPATH;
    }
    if (path[0] != '/') {
        return alias_path(fdt, path, path + namelen);
    }
    if (fdt != dt_ix.fdt) {
        return fdt_path_offset_namelen(fdt, path, namelen);
    }
    return dt_ix.n == 0 ? -FDT_ERR_NOTFOUND
                        : walk_below(fdt, dt_ix.node[0].off, path, path + namelen);
}

int dt_get_path(const void *fdt, int node, char *buf, int buflen)
{
    int i = fdt == dt_ix.fdt ? find(node) : -1;
    if (i < 0) {
        return fdt_get_path(fdt, node, buf, buflen);
    }
    /* the components, leaf first, then copied root first */
    int chain[DT_INDEX_MAX_DEPTH], n = 0, pos = 0;
    for (; i > 0; i = dt_ix.node[i].parent) {
        chain[n++] = i;
    }
    if (buflen < 2) {
        return -FDT_ERR_NOSPACE;
    }
    buf[pos++] = '/';
    while (n-- != 0) {
        const struct dt_node *d = &dt_ix.node[chain[n]];
        if (pos + d->name_len + 2 > buflen) {
            return -FDT_ERR_NOSPACE;
        }
        (void)memcpy(buf + pos, d->name, d->name_len);
        pos += d->name_len;
        if (n != 0) {
            buf[pos++] = '/';
        }
    }
    buf[pos] = '\0';
    return 0;
}

/* #address-cells / #size-cells: dflt when absent, like libfdt's */
static int cells(const void *fdt, int node, bool address)
{
    int i = fdt == dt_ix.fdt ? find(node) : -1;
    if (i < 0) {
        return address ? fdt_address_cells(fdt, node) : fdt_size_cells(fdt, node);
    }
    int c = address ? dt_ix.node[i].address_cells : dt_ix.node[i].size_cells;
    if (c < 0) {
        return address ? 2 : 1;
    }
    return c > 4 || (address && c == 0) ? -FDT_ERR_BADNCELLS : c;
}

int dt_address_cells(const void *fdt, int node) { return cells(fdt, node, true); }
int dt_size_cells(const void *fdt, int node) { return cells(fdt, node, false); }

/* the properties of the nodes asked about lately, direct-mapped by offset:
 * interrupt routing asks a device, its parents and its controller in turn */
#define PROPS_MAX   32
#define PROPS_NODES 8
static struct props {
    const void *fdt;
    int node, n;
    bool all;           /* every property read: else ask libfdt itself */
    struct props_entry { const char *name; const void *val; int len; } p[PROPS_MAX];
} props[PROPS_NODES];

void dt_getprop_forget(void)
{
    for (int i = 0; i < PROPS_NODES; i++) {
        props[i].fdt = NULL;
    }
}

/* The indexed tree's node: its property list, as libfdt read it */
static const void *indexed_prop(int i, const char *name, int *lenp)
{
    const struct dt_prop *p = &dt_ix.prop[dt_ix.node[i].first_prop];
    for (unsigned int k = dt_ix.node[i].nprops; k > 0u; k--) {
        /* the first character inline: most names differ there */
        const char *pname = p->name;
        if ((pname[0] == name[0]) && (strcmp(pname, name) == 0)) {
            if (lenp != NULL) {
                *lenp = p->len;
            }
            return p->val;
        }
        p++;
    }
    if (lenp != NULL) {
        *lenp = -FDT_ERR_NOTFOUND;
    }
    return NULL;
}

const void *dt_getprop(const void *fdt, int node, const char *name, int *lenp)
{
    if (fdt == dt_ix.fdt) {
        int i = find(node);
        if ((i >= 0) && (dt_ix.node[i].nprops != PROPS_UNKNOWN)) {
            return indexed_prop(i, name, lenp);
        }
    }
    struct props *c = &props[((unsigned int)node >> 3) % (unsigned int)PROPS_NODES];
    if (c->fdt != fdt || c->node != node) {
        c->fdt = fdt;
        c->node = node;
        c->n = 0;
        c->all = true;
        int prop;
        fdt_for_each_property_offset(prop, fdt, node) {
            const char *pn = NULL;
            int len;
            const void *v = fdt_getprop_by_offset(fdt, prop, &pn, &len);
            if (!v || !pn || c->n == PROPS_MAX) {
                c->all = false;
                break;
            }
            c->p[c->n].name = pn;
            c->p[c->n].val = v;
            c->p[c->n++].len = len;
        }
        if (prop != -FDT_ERR_NOTFOUND) {
            c->all = false;     /* the walk stopped on an error */
        }
    }
    if (!c->all) {
        return fdt_getprop(fdt, node, name, lenp);
    }
    for (int i = 0; i < c->n; i++) {
        if (strcmp(c->p[i].name, name) == 0) {
            if (lenp != NULL) {
                *lenp = c->p[i].len;
            }
            return c->p[i].val;
        }
    }
    if (lenp != NULL) {
        *lenp = -FDT_ERR_NOTFOUND;
    }
    return NULL;
}

bool dt_is_type(const void *fdt, int node, const char *type)
{
    const char *t;
    if (fdt == dt_ix.fdt) {
        int i = find(node);
        t = i < 0 ? NULL : dt_ix.node[i].type;
    } else {
        int len;
        t = fdt_getprop(fdt, node, "device_type", &len);
        if (t && (len <= 0 || t[len - 1] != '\0')) {
            t = NULL;
        }
    }
    return t && strcmp(t, type) == 0;
}
