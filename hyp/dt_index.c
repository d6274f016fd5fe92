/*
 * One pass over a device tree's structure block (dt_index.h says why).
 * The pass reads tags with fdt_next_tag, which bounds-checks each one and
 * its property data; property names are resolved once per distinct string
 * offset through fdt_get_string, which checks them against the strings
 * block.
 */
#include <string.h>
#include <libfdt.h>
#include "dt_index.h"

/* the properties the index keeps; KEY_OTHER: one it does not */
enum name_key { KEY_COMPATIBLE, KEY_DEVICE_TYPE, KEY_ADDRESS_CELLS, KEY_SIZE_CELLS,
                KEY_PHANDLE, KEY_LINUX_PHANDLE, KEY_NR, KEY_OTHER = KEY_NR };
static const char *const key_names[KEY_NR] = {
    [KEY_COMPATIBLE] = "compatible", [KEY_DEVICE_TYPE] = "device_type",
    [KEY_ADDRESS_CELLS] = "#address-cells", [KEY_SIZE_CELLS] = "#size-cells",
    [KEY_PHANDLE] = "phandle", [KEY_LINUX_PHANDLE] = "linux,phandle",
};

struct dt_node {
    int off;                    /* node offset; entries are in tree order */
    short parent;               /* index of the parent, -1 for the root */
    short child, next;          /* first child, next sibling; -1: none */
    unsigned char depth;
    unsigned short name_len;
    signed char address_cells, size_cells;  /* -1: no such property */
    const char *name;           /* "name@unit", name_len bytes */
    const char *compat;         /* "compatible" string list, or NULL */
    const char *type;           /* "device_type" string, or NULL */
    int compat_len;
    uint32_t phandle;           /* 0: none */
    unsigned char seen;         /* 1 << key: met already (the first counts) */
};

/* written by every build before it is read: not zeroed at boot */
static struct {
    const void *fdt;            /* the tree indexed, NULL if none */
    int n;
    struct dt_node node[DT_INDEX_MAX_NODES];
} ix __attribute__((section(".noinit.dt_index")));

/* property name offset -> key + 1, direct-mapped (a tree has few names) */
#define NAME_CACHE 64
static int name_off[NAME_CACHE];
static unsigned char name_key[NAME_CACHE];

static int key_of(const void *fdt, int nameoff)
{
    unsigned int h = (unsigned int)nameoff % NAME_CACHE;
    if (name_key[h] && name_off[h] == nameoff)
        return name_key[h] - 1;
    int len;
    const char *s = fdt_get_string(fdt, nameoff, &len);
    if (!s)
        return len;
    int key = KEY_OTHER;
    for (int k = 0; k < KEY_NR; k++)
        if ((size_t)len == strlen(key_names[k]) && memcmp(s, key_names[k], (size_t)len) == 0)
            key = k;
    name_off[h] = nameoff;
    name_key[h] = (unsigned char)(key + 1);
    return key;
}

/* a property value usable as a string (list): non-empty, NUL-terminated */
static const char *str_value(const char *data, int len)
{
    return len > 0 && data[len - 1] == '\0' ? data : NULL;
}

int dt_index_build(const void *fdt)
{
    int stack[DT_INDEX_MAX_DEPTH], last[DT_INDEX_MAX_DEPTH];  /* last child seen */
    int depth = -1, off = 0, next;
    bool fits = true;
    ix.fdt = NULL;
    ix.n = 0;
    dt_getprop_forget();
    memset(name_key, 0, sizeof(name_key));
    int nrsv = fdt_num_mem_rsv(fdt);    /* the reservation map ends in bounds */
    if (nrsv < 0)
        return nrsv;
    for (;;) {
        uint32_t tag = fdt_next_tag(fdt, off, &next);
        if (next < 0)
            return next;
        switch (tag) {
        case FDT_BEGIN_NODE:
            if (++depth == DT_INDEX_MAX_DEPTH)
                return -FDT_ERR_BADSTRUCTURE;
            if (depth == 0 && off != 0)
                return -FDT_ERR_BADSTRUCTURE;   /* one root, first */
            if (ix.n == DT_INDEX_MAX_NODES)
                fits = false;
            if (fits) {
                /* fdt_next_tag found the name's NUL inside the block */
                const char *name = fdt_offset_ptr(fdt, off + FDT_TAGSIZE, 1);
                struct dt_node *d = &ix.node[ix.n];
                *d = (struct dt_node){ .off = off, .depth = (unsigned char)depth,
                                       .parent = (short)(depth ? stack[depth - 1] : -1),
                                       .name = name,
                                       .name_len = (unsigned short)strnlen(name, 0xffff),
                                       .address_cells = -1, .size_cells = -1,
                                       .child = -1, .next = -1 };
                if (depth) {
                    struct dt_node *p = &ix.node[stack[depth - 1]];
                    if (p->child < 0)
                        p->child = (short)ix.n;
                    else
                        ix.node[last[depth]].next = (short)ix.n;
                    last[depth] = ix.n;
                }
                stack[depth] = ix.n++;
            }
            break;
        case FDT_END_NODE:
            if (depth-- < 0)
                return -FDT_ERR_BADSTRUCTURE;
            if (depth < 0) {
                /* the root closed: only FDT_END may follow */
                while ((tag = fdt_next_tag(fdt, next, &next)) == FDT_NOP)
                    ;
                if (tag != FDT_END || next < 0)
                    return -FDT_ERR_BADSTRUCTURE;
                if (fits)
                    ix.fdt = fdt;
                return 0;
            }
            break;
        case FDT_PROP: {
            if (depth < 0)
                return -FDT_ERR_BADSTRUCTURE;
            /* fdt_next_tag checked the header and the data are in bounds;
             * a blob need not be 4-byte aligned in memory, so the header's
             * words are read with fdt32_ld (bytewise), not as a struct */
            const char *hdr = fdt_offset_ptr(fdt, off, sizeof(struct fdt_property));
            const char *data = hdr + sizeof(struct fdt_property);
            int key = key_of(fdt, (int)fdt32_ld((const fdt32_t *)(hdr + 8)));
            if (key < 0)
                return key;
            int len = (int)fdt32_ld((const fdt32_t *)(hdr + 4));
            struct dt_node *d = fits ? &ix.node[stack[depth]] : NULL;
            /* the first of a name counts, as for fdt_getprop */
            if (!d || key == KEY_OTHER || (d->seen & (1u << key)))
                break;
            d->seen |= (unsigned char)(1u << key);
            if (key == KEY_COMPATIBLE) {
                d->compat = str_value(data, len);
                d->compat_len = len;
            } else if (key == KEY_DEVICE_TYPE) {
                d->type = str_value(data, len);
            } else if (key == KEY_PHANDLE || key == KEY_LINUX_PHANDLE) {
                /* as fdt_get_phandle: "phandle" first, else "linux,phandle" */
                if (len == 4 && (key == KEY_PHANDLE || !(d->seen & (1u << KEY_PHANDLE)) ||
                                 !d->phandle))
                    d->phandle = fdt32_ld((const fdt32_t *)data);
            } else if (key == KEY_ADDRESS_CELLS || key == KEY_SIZE_CELLS) {
                /* FDT_MAX_NCELLS is 4; anything else reads as invalid */
                uint32_t v = len == 4 ? fdt32_ld((const fdt32_t *)data) : 99;
                signed char c = (signed char)(v <= 4 ? v : 99);
                if (key == KEY_ADDRESS_CELLS)
                    d->address_cells = c;
                else
                    d->size_cells = c;
            }
            break;
        }
        case FDT_NOP:
            break;
        default:    /* FDT_END inside a node, or an unknown tag */
            return -FDT_ERR_BADSTRUCTURE;
        }
        off = next;
    }
}

/* lookups come in runs on one node: the last one found, or returned */
static int hint;

/* The index entry of a node offset, or -1 */
static int find(int off)
{
    if (hint < ix.n && ix.node[hint].off == off)
        return hint;
    int lo = 0, hi = ix.n - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (ix.node[mid].off == off)
            return hint = mid;
        if (ix.node[mid].off < off)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

int dt_parent(const void *fdt, int node)
{
    if (fdt != ix.fdt)
        return fdt_parent_offset(fdt, node);
    int i = find(node);
    if (i < 0)
        return -FDT_ERR_BADOFFSET;
    int p = ix.node[i].parent;
    return p < 0 ? -FDT_ERR_NOTFOUND : ix.node[p].off;
}

int dt_find_compatible(const void *fdt, int startoffset, const char *compat)
{
    if (fdt != ix.fdt)
        return fdt_node_offset_by_compatible(fdt, startoffset, compat);
    for (int i = 0; i < ix.n; i++) {
        const struct dt_node *d = &ix.node[i];
        if (d->off > startoffset && d->compat &&
            fdt_stringlist_contains(d->compat, d->compat_len, compat))
            return d->off;
    }
    return -FDT_ERR_NOTFOUND;
}

bool dt_is_compatible(const void *fdt, int node, const char *compat)
{
    int i = fdt == ix.fdt ? find(node) : -1;
    if (i < 0)
        return fdt_node_check_compatible(fdt, node, compat) == 0;
    const struct dt_node *d = &ix.node[i];
    return d->compat && fdt_stringlist_contains(d->compat, d->compat_len, compat);
}

int dt_node_offset_by_phandle(const void *fdt, uint32_t phandle)
{
    if (fdt != ix.fdt)
        return fdt_node_offset_by_phandle(fdt, phandle);
    if (phandle == 0 || phandle == (uint32_t)-1)
        return -FDT_ERR_BADPHANDLE;
    for (int i = 0; i < ix.n; i++)
        if (ix.node[i].phandle == phandle)
            return ix.node[i].off;
    return -FDT_ERR_NOTFOUND;
}

int dt_next_child(const void *fdt, int parent, int prev)
{
    if (fdt != ix.fdt)
        return prev < 0 ? fdt_first_subnode(fdt, parent) : fdt_next_subnode(fdt, prev);
    int i = find(prev < 0 ? parent : prev);
    if (i < 0)
        return -FDT_ERR_BADOFFSET;
    i = prev < 0 ? ix.node[i].child : ix.node[i].next;
    if (i < 0)
        return -FDT_ERR_NOTFOUND;
    hint = i;   /* the caller asks about its children next */
    return ix.node[i].off;
}

/* Does the node's name match the path component [c, c + n)? */
static bool name_matches(const void *fdt, int node, const char *c, int n)
{
    int i = find(node);
    if (i < 0)
        return false;
    const char *name = ix.node[i].name;
    int len = ix.node[i].name_len;
    if (len < n || memcmp(name, c, (size_t)n) != 0)
        return false;
    /* all of it, or "name" for "name@unit" when c has no unit itself */
    return len == n || (name[n] == '@' && !memchr(c, '@', (size_t)n));
}

int dt_path_offset_namelen(const void *fdt, const char *path, int namelen)
{
    if (fdt != ix.fdt || namelen < 1 || path[0] != '/')
        return fdt_path_offset_namelen(fdt, path, namelen);
    const char *p = path, *end = path + namelen;
    int node = 0;
    while (node >= 0) {
        while (p < end && *p == '/')
            p++;
        if (p == end)
            return node;
        const char *q = memchr(p, '/', (size_t)(end - p));
        int n = (int)((q ? q : end) - p);
        int child;
        dt_for_each_child(child, fdt, node)
            if (name_matches(fdt, child, p, n))
                break;
        node = child;
        p += n;
    }
    return node;
}

int dt_get_path(const void *fdt, int node, char *buf, int buflen)
{
    int i = fdt == ix.fdt ? find(node) : -1;
    if (i < 0)
        return fdt_get_path(fdt, node, buf, buflen);
    /* the components, leaf first, then copied root first */
    int chain[DT_INDEX_MAX_DEPTH], n = 0, pos = 0;
    for (; i > 0; i = ix.node[i].parent)
        chain[n++] = i;
    if (buflen < 2)
        return -FDT_ERR_NOSPACE;
    buf[pos++] = '/';
    while (n--) {
        const struct dt_node *d = &ix.node[chain[n]];
        if (pos + d->name_len + 2 > buflen)
            return -FDT_ERR_NOSPACE;
        memcpy(buf + pos, d->name, d->name_len);
        pos += d->name_len;
        if (n)
            buf[pos++] = '/';
    }
    buf[pos] = '\0';
    return 0;
}

/* #address-cells / #size-cells: dflt when absent, like libfdt's */
static int cells(const void *fdt, int node, bool address)
{
    int i = fdt == ix.fdt ? find(node) : -1;
    if (i < 0)
        return address ? fdt_address_cells(fdt, node) : fdt_size_cells(fdt, node);
    int c = address ? ix.node[i].address_cells : ix.node[i].size_cells;
    if (c < 0)
        return address ? 2 : 1;
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
    struct { const char *name; const void *val; int len; } p[PROPS_MAX];
} props[PROPS_NODES];

void dt_getprop_forget(void)
{
    for (int i = 0; i < PROPS_NODES; i++)
        props[i].fdt = NULL;
}

const void *dt_getprop(const void *fdt, int node, const char *name, int *lenp)
{
    struct props *c = &props[((unsigned int)node >> 3) % PROPS_NODES];
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
        if (prop != -FDT_ERR_NOTFOUND)
            c->all = false;     /* the walk stopped on an error */
    }
    if (!c->all)
        return fdt_getprop(fdt, node, name, lenp);
    for (int i = 0; i < c->n; i++) {
        if (strcmp(c->p[i].name, name) == 0) {
            if (lenp)
                *lenp = c->p[i].len;
            return c->p[i].val;
        }
    }
    if (lenp)
        *lenp = -FDT_ERR_NOTFOUND;
    return NULL;
}

bool dt_is_type(const void *fdt, int node, const char *type)
{
    const char *t;
    if (fdt == ix.fdt) {
        int i = find(node);
        t = i < 0 ? NULL : ix.node[i].type;
    } else {
        int len;
        t = fdt_getprop(fdt, node, "device_type", &len);
        if (t && (len <= 0 || t[len - 1] != '\0'))
            t = NULL;
    }
    return t && strcmp(t, type) == 0;
}
