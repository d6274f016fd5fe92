/*
 * One pass over a device tree's structure block (dt_index.h says why).
 * The pass reads tags with fdt_next_tag, which bounds-checks each one and
 * its property data (node names are found with one bounds check each, see
 * next_tag); property names are resolved once per distinct string
 * offset through fdt_get_string, which checks them against the strings
 * block.  What it keeps are libfdt's answers: every node's place in the
 * tree, a few properties decoded, and each node's property list as name,
 * value and length (what fdt_getprop would return, found again without
 * another walk).
 */
#include <string.h>
#include <libfdt.h>
#include "dt_index.h"

/* the properties the index keeps; KEY_OTHER: one it does not */
enum name_key { KEY_COMPATIBLE, KEY_DEVICE_TYPE, KEY_ADDRESS_CELLS, KEY_SIZE_CELLS,
                KEY_PHANDLE, KEY_LINUX_PHANDLE, KEY_NR, KEY_OTHER = KEY_NR };
#define KEY(s) { s, sizeof(s) - 1 }
static const struct { const char *s; unsigned int len; } key_names[KEY_NR] = {
    [KEY_COMPATIBLE] = KEY("compatible"), [KEY_DEVICE_TYPE] = KEY("device_type"),
    [KEY_ADDRESS_CELLS] = KEY("#address-cells"), [KEY_SIZE_CELLS] = KEY("#size-cells"),
    [KEY_PHANDLE] = KEY("phandle"), [KEY_LINUX_PHANDLE] = KEY("linux,phandle"),
};

struct dt_node {
    int off;                    /* node offset; entries are in tree order */
    short parent;               /* index of the parent, -1 for the root */
    short child, next;          /* first child, next sibling; -1: none */
    unsigned char depth;
    int name_len;
    signed char address_cells, size_cells;  /* -1: no such property */
    const char *name;           /* "name@unit", name_len bytes */
    const char *compat;         /* "compatible" string list, or NULL */
    const char *type;           /* "device_type" string, or NULL */
    int compat_len;
    uint32_t phandle;           /* 0: none */
    unsigned char seen;         /* 1 << key: met already (the first counts) */
    unsigned short nprops;      /* its properties, from ix.prop[first_prop] */
    unsigned short first_prop;
};

/* nprops of a node whose properties did not fit in ix.prop */
#define PROPS_UNKNOWN 0xffff

struct dt_prop {
    const char *name;           /* in the strings block, NUL-terminated */
    const void *val;
    int len;
};

/* written by every build before it is read: not zeroed at boot */
static struct {
    const void *fdt;            /* the tree indexed, NULL if none */
    int n, nprops;
    struct dt_node node[DT_INDEX_MAX_NODES];
    struct dt_prop prop[DT_INDEX_MAX_PROPS];
} ix __attribute__((section(".noinit.dt_index")));

/* property name offset -> its string and key + 1, direct-mapped (a tree has
 * few distinct names) */
#define NAME_CACHE 128
static struct { int off; const char *s; unsigned int gen; int key; } names[NAME_CACHE];
static unsigned int names_gen;  /* entries of older builds are stale */

/* The key of the name at nameoff, its string in *sp; or a libfdt error */
static int key_of(const void *fdt, int nameoff, const char **sp)
{
    unsigned int h = (unsigned int)nameoff % NAME_CACHE;
    if (names[h].gen == names_gen && names[h].off == nameoff) {
        *sp = names[h].s;
        return names[h].key;
    }
    int len;
    const char *s = fdt_get_string(fdt, nameoff, &len);
    if (!s)
        return len;
    int key = KEY_OTHER;
    for (int k = 0; k < KEY_NR; k++)
        if ((unsigned int)len == key_names[k].len && memcmp(s, key_names[k].s, (size_t)len) == 0)
            key = k;
    names[h].off = nameoff;
    names[h].s = s;
    names[h].gen = names_gen;
    names[h].key = key;
    *sp = s;
    return key;
}

/* a property value usable as a string (list): non-empty, NUL-terminated */
static const char *str_value(const char *data, int len)
{
    return len > 0 && data[len - 1] == '\0' ? data : NULL;
}

/* The structure block's size, as fdt_offset_ptr bounds it: to the header's
 * size_dt_struct (version 17 on) and within totalsize */
static int struct_size(const void *fdt)
{
    uint32_t total = fdt_totalsize(fdt), start = fdt_off_dt_struct(fdt);
    uint32_t size = start < total ? total - start : 0;
    if (fdt_version(fdt) >= 17 && fdt_size_dt_struct(fdt) < size)
        size = fdt_size_dt_struct(fdt);
    return size > INT32_MAX ? INT32_MAX : (int)size;
}

/*
 * fdt_next_tag, except for a node's start: there libfdt's loop calls
 * fdt_offset_ptr for every character of the name (it was a third of the
 * hypervisor's boot).  Here the tag and the name are read within the bounds
 * fdt_offset_ptr applies (struct_size), the name's end found with one
 * memchr, and the same next offset or error comes out (the unit tests
 * compare the two on damaged and cut trees).  *namelen: the name's length.
 */
static uint32_t next_tag(const void *fdt, const char *blk, int size, int off, int *next,
                         int *namelen)
{
    const int tagsize = (int)FDT_TAGSIZE;
    if (off < 0 || off > size - tagsize ||
        fdt32_ld((const fdt32_t *)(blk + off)) != FDT_BEGIN_NODE)
        return fdt_next_tag(fdt, off, next);
    const char *name = blk + off + tagsize;
    const char *nul = memchr(name, '\0', (size_t)(size - off - tagsize));
    if (!nul) {
        *next = -FDT_ERR_BADSTRUCTURE;  /* as fdt_next_tag: name unterminated */
        return FDT_END;
    }
    *namelen = (int)(nul - name);
    int end = off + tagsize + *namelen + 1;
    *next = (end + tagsize - 1) & ~(tagsize - 1);     /* tag-aligned */
    return FDT_BEGIN_NODE;
}

int dt_index_build(const void *fdt)
{
    int stack[DT_INDEX_MAX_DEPTH], last[DT_INDEX_MAX_DEPTH];  /* last child seen */
    int depth = -1, off = 0, next;
    int open = -1;      /* the node whose properties come now, -1: none */
    bool fits = true;
    ix.fdt = NULL;
    ix.n = ix.nprops = 0;
    dt_getprop_forget();
    names_gen++;
    /* fdt_next_tag checks each tag and its payload, [off, next), against
     * the structure block's bounds; the index reads them at blk + off, as
     * libfdt's own fdt_offset_ptr_ does, without checking them again */
    const char *blk = (const char *)fdt + fdt_off_dt_struct(fdt);
    int size = struct_size(fdt);
    int nrsv = fdt_num_mem_rsv(fdt);    /* the reservation map ends in bounds */
    if (nrsv < 0)
        return nrsv;
    for (;;) {
        int namelen = 0;
        uint32_t tag = next_tag(fdt, blk, size, off, &next, &namelen);
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
            open = -1;  /* a node's properties are those before its first child */
            if (fits) {
                /* next_tag found the name's NUL inside [off, next) */
                const char *name = blk + off + FDT_TAGSIZE;
                struct dt_node *d = &ix.node[ix.n];
                *d = (struct dt_node){ .off = off, .depth = (unsigned char)depth,
                                       .parent = (short)(depth ? stack[depth - 1] : -1),
                                       .name = name,
                                       .name_len = namelen,
                                       .address_cells = -1, .size_cells = -1,
                                       .child = -1, .next = -1,
                                       .first_prop = (unsigned short)ix.nprops };
                if (depth) {
                    struct dt_node *p = &ix.node[stack[depth - 1]];
                    if (p->child < 0)
                        p->child = (short)ix.n;
                    else
                        ix.node[last[depth]].next = (short)ix.n;
                    last[depth] = ix.n;
                }
                open = stack[depth] = ix.n++;
            }
            break;
        case FDT_END_NODE:
            open = -1;
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
            const char *hdr = blk + off;
            const char *data = hdr + sizeof(struct fdt_property);
            const char *pname = NULL;
            int key = key_of(fdt, (int)fdt32_ld((const fdt32_t *)(hdr + 8)), &pname);
            if (key < 0)
                return key;
            int len = (int)fdt32_ld((const fdt32_t *)(hdr + 4));
            /* libfdt sees no property after a node's first child (a damaged
             * tree's): neither does the index */
            struct dt_node *d = open >= 0 ? &ix.node[open] : NULL;
            if (!d)
                break;
            if (d->nprops != PROPS_UNKNOWN) {
                if (ix.nprops == DT_INDEX_MAX_PROPS || d->nprops == PROPS_UNKNOWN - 1) {
                    d->nprops = PROPS_UNKNOWN;
                } else {
                    ix.prop[ix.nprops++] = (struct dt_prop){ pname, data, len };
                    d->nprops++;
                }
            }
            /* the first of a name counts, as for fdt_getprop */
            if (key == KEY_OTHER || (d->seen & (1u << key)))
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

/* The index entry of a node offset, or -1: the hint inline, else a search */
static int find_slow(int off)
{
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

static inline int find(int off)
{
    return hint < ix.n && ix.node[hint].off == off ? hint : find_slow(off);
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

/* Does entry i's name match the path component [c, c + n)? */
static bool name_matches(int i, const char *c, int n)
{
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
    int i = 0;      /* entry 0 is the root */
    if (ix.n == 0)
        return -FDT_ERR_NOTFOUND;
    for (;;) {
        while (p < end && *p == '/')
            p++;
        if (p == end)
            return ix.node[hint = i].off;
        const char *q = memchr(p, '/', (size_t)(end - p));
        int n = (int)((q ? q : end) - p);
        for (i = ix.node[i].child; i >= 0; i = ix.node[i].next)
            if (name_matches(i, p, n))
                break;
        if (i < 0)
            return -FDT_ERR_NOTFOUND;
        p += n;
    }
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

/* The indexed tree's node: its property list, as libfdt read it */
static const void *indexed_prop(int i, const char *name, int *lenp)
{
    const struct dt_prop *p = &ix.prop[ix.node[i].first_prop];
    for (unsigned int k = ix.node[i].nprops; k--; p++) {
        /* the first character inline: most names differ there */
        if (p->name[0] == name[0] && strcmp(p->name, name) == 0) {
            if (lenp)
                *lenp = p->len;
            return p->val;
        }
    }
    if (lenp)
        *lenp = -FDT_ERR_NOTFOUND;
    return NULL;
}

const void *dt_getprop(const void *fdt, int node, const char *name, int *lenp)
{
    if (fdt == ix.fdt) {
        int i = find(node);
        if (i >= 0 && ix.node[i].nprops != PROPS_UNKNOWN)
            return indexed_prop(i, name, lenp);
    }
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
