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
#include "dt_index_data.h"

/* written by every build before it is read: not zeroed at boot */
struct dt_ix dt_ix __attribute__((section(".noinit.dt_index")));

/* the properties the index keeps, by key (an int, as key_of returns it
 * with libfdt's negative errors); KEY_OTHER: one it does not */
#define KEY_COMPATIBLE    0
#define KEY_DEVICE_TYPE   1
#define KEY_ADDRESS_CELLS 2
#define KEY_SIZE_CELLS    3
#define KEY_PHANDLE       4
#define KEY_LINUX_PHANDLE 5
#define KEY_NR            6
#define KEY_OTHER         KEY_NR

/* libfdt's tags as the 32-bit words fdt_next_tag returns */
#define TAG_BEGIN_NODE ((uint32_t)FDT_BEGIN_NODE)
#define TAG_END_NODE   ((uint32_t)FDT_END_NODE)
#define TAG_PROP       ((uint32_t)FDT_PROP)
#define TAG_NOP        ((uint32_t)FDT_NOP)
#define TAG_END        ((uint32_t)FDT_END)
#define KEY(s) { (s), sizeof(s) - 1u }
static const struct { const char *s; unsigned int len; } key_names[KEY_NR] = {
    [KEY_COMPATIBLE] = KEY("compatible"), [KEY_DEVICE_TYPE] = KEY("device_type"),
    [KEY_ADDRESS_CELLS] = KEY("#address-cells"), [KEY_SIZE_CELLS] = KEY("#size-cells"),
    [KEY_PHANDLE] = KEY("phandle"), [KEY_LINUX_PHANDLE] = KEY("linux,phandle"),
};

/* property name offset -> its string and key + 1, direct-mapped (a tree has
 * few distinct names) */
#define NAME_CACHE 128u
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
    if (!s) {
        return len;
    }
    int key = KEY_OTHER;
    for (int k = 0; k < KEY_NR; k++) {
        if ((unsigned int)len == key_names[k].len && memcmp(s, key_names[k].s, (size_t)len) == 0) {
            key = k;
        }
    }
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

/* The big-endian word at p, read bytewise as libfdt's fdt32_ld reads it (a
 * blob need not be 4-byte aligned in memory) */
static inline uint32_t word_at(const char *p)
{
    const unsigned char *b = (const unsigned char *)p;
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) |
           (uint32_t)b[3];
}

/* The structure block's size, as fdt_offset_ptr bounds it: to the header's
 * size_dt_struct (version 17 on) and within totalsize */
static int struct_size(const void *fdt)
{
    uint32_t total = fdt_totalsize(fdt), start = fdt_off_dt_struct(fdt);
    uint32_t size = start < total ? total - start : 0u;
    if ((fdt_version(fdt) >= 17u) && (fdt_size_dt_struct(fdt) < size)) {
        size = fdt_size_dt_struct(fdt);
    }
    return (size > (uint32_t)INT32_MAX) ? INT32_MAX : (int)size;
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
    if ((off < 0) || (off > (size - tagsize)) || (word_at(&blk[off]) != TAG_BEGIN_NODE)) {
        return fdt_next_tag(fdt, off, next);
    }
    const char *name = &blk[off + tagsize];
    int rest = size - off - tagsize;
    const char *nul = memchr(name, '\0', (size_t)rest);
    if (!nul) {
        *next = -FDT_ERR_BADSTRUCTURE;  /* as fdt_next_tag: name unterminated */
        return TAG_END;
    }
    ptrdiff_t len = nul - name;
    *namelen = (int)len;
    int end = off + tagsize + *namelen + 1;
    *next = (end + tagsize - 1) & ~(tagsize - 1);     /* tag-aligned */
    return TAG_BEGIN_NODE;
}

/* The index being built: the open nodes, and where their children went */
struct build {
    const char *blk;                    /* the structure block */
    int stack[DT_INDEX_MAX_DEPTH];      /* the open nodes, root first */
    int last[DT_INDEX_MAX_DEPTH];       /* the last child seen at each depth */
    int depth;
    int open;       /* the node whose properties come now, -1: none */
    bool fits;      /* every node so far had room */
};

/* FDT_BEGIN_NODE at off, its name namelen bytes long */
static int begin_node(struct build *b, int off, int namelen)
{
    int depth = ++b->depth;
    if (depth == DT_INDEX_MAX_DEPTH) {
        return -FDT_ERR_BADSTRUCTURE;
    }
    if ((depth == 0) && (off != 0)) {
        return -FDT_ERR_BADSTRUCTURE;   /* one root, first */
    }
    if (dt_ix.n == DT_INDEX_MAX_NODES) {
        b->fits = false;
    }
    b->open = -1;   /* a node's properties are those before its first child */
    if (!b->fits) {
        return 0;
    }
    /* next_tag found the name's NUL inside [off, next) */
    struct dt_node *d = &dt_ix.node[dt_ix.n];
    *d = (struct dt_node){ .off = off, .depth = (unsigned char)depth,
                           .parent = (short)(depth ? b->stack[depth - 1] : -1),
                           .name = &b->blk[off + (int)FDT_TAGSIZE], .name_len = namelen,
                           .address_cells = -1, .size_cells = -1,
                           .child = -1, .next = -1,
                           .first_prop = (unsigned short)dt_ix.nprops };
    if (depth != 0) {
        struct dt_node *p = &dt_ix.node[b->stack[depth - 1]];
        if (p->child < 0) {
            p->child = (short)dt_ix.n;
        } else {
            dt_ix.node[b->last[depth]].next = (short)dt_ix.n;
        }
        b->last[depth] = dt_ix.n;
    }
    b->open = b->stack[depth] = dt_ix.n++;
    return 0;
}

/* What the index keeps of a node's property key: compatible, device_type,
 * phandle, #address-cells and #size-cells (the first of a name counts, as
 * for fdt_getprop) */
static void note_prop(struct dt_node *d, int key, const char *data, int len)
{
    if ((key == KEY_OTHER) || ((d->seen & ((unsigned int)1u << (unsigned int)key)) != 0u)) {
        return;
    }
    d->seen |= (unsigned char)((unsigned int)1u << (unsigned int)key);
    if (key == KEY_COMPATIBLE) {
        d->compat = str_value(data, len);
        d->compat_len = len;
    } else if (key == KEY_DEVICE_TYPE) {
        d->type = str_value(data, len);
    } else if ((key == KEY_PHANDLE) || (key == KEY_LINUX_PHANDLE)) {
        /* as fdt_get_phandle: "phandle" first, else "linux,phandle" */
        if ((len == 4) && ((key == KEY_PHANDLE) ||
                           ((d->seen & ((unsigned int)1u << KEY_PHANDLE)) == 0u) ||
                           (d->phandle == 0u))) {
            d->phandle = word_at(data);
        }
    } else if ((key == KEY_ADDRESS_CELLS) || (key == KEY_SIZE_CELLS)) {
        /* FDT_MAX_NCELLS is 4; anything else reads as invalid */
        uint32_t v = (len == 4) ? word_at(data) : 99u;
        signed char c = (signed char)((v <= 4u) ? v : 99u);
        if (key == KEY_ADDRESS_CELLS) {
            d->address_cells = c;
        } else {
            d->size_cells = c;
        }
    } else {
        /* otherwise nothing to do */
    }
}

/* FDT_PROP at off */
static int add_prop(struct build *b, const void *fdt, int off)
{
    if (b->depth < 0) {
        return -FDT_ERR_BADSTRUCTURE;
    }
    /* fdt_next_tag checked the header and the data are in bounds; a blob
     * need not be 4-byte aligned in memory, so the header's words are read
     * with fdt32_ld (bytewise), not as a struct */
    const char *hdr = &b->blk[off];
    const char *data = &hdr[sizeof(struct fdt_property)];
    const char *pname = NULL;
    int key = key_of(fdt, (int)word_at(&hdr[8]), &pname);
    if (key < 0) {
        return key;
    }
    int len = (int)word_at(&hdr[4]);
    /* libfdt sees no property after a node's first child (a damaged
     * tree's): neither does the index */
    if (b->open < 0) {
        return 0;
    }
    struct dt_node *d = &dt_ix.node[b->open];
    if (d->nprops != PROPS_UNKNOWN) {
        if ((dt_ix.nprops == DT_INDEX_MAX_PROPS) || (d->nprops == (PROPS_UNKNOWN - 1u))) {
            d->nprops = PROPS_UNKNOWN;
        } else {
            dt_ix.prop[dt_ix.nprops++] = (struct dt_prop){ pname, data, len };
            d->nprops++;
        }
    }
    note_prop(d, key, data, len);
    return 0;
}

int dt_index_build(const void *fdt)
{
    struct build b = { .depth = -1, .open = -1, .fits = true };
    int off = 0, next, rc = 0;
    dt_ix.fdt = NULL;
    dt_ix.n = dt_ix.nprops = 0;
    dt_getprop_forget();
    names_gen++;
    /* fdt_next_tag checks each tag and its payload, [off, next), against
     * the structure block's bounds; the index reads them at blk + off, as
     * libfdt's own fdt_offset_ptr_ does, without checking them again */
    b.blk = (const char *)fdt + fdt_off_dt_struct(fdt);
    int size = struct_size(fdt);
    int nrsv = fdt_num_mem_rsv(fdt);    /* the reservation map ends in bounds */
    if (nrsv < 0) {
        return nrsv;
    }
    for (;;) {
        int namelen = 0;
        uint32_t tag = next_tag(fdt, b.blk, size, off, &next, &namelen);
        if (next < 0) {
            return next;
        }
        if (tag == TAG_BEGIN_NODE) {
            rc = begin_node(&b, off, namelen);
        } else if (tag == TAG_PROP) {
            rc = add_prop(&b, fdt, off);
        } else if (tag == TAG_END_NODE) {
            b.open = -1;
            if (b.depth-- < 0) {
                return -FDT_ERR_BADSTRUCTURE;
            }
            if (b.depth < 0) {
                break;          /* the root closed */
            }
        } else if (tag != TAG_NOP) {
            return -FDT_ERR_BADSTRUCTURE;   /* FDT_END inside a node, or unknown */
        } else {
            /* otherwise nothing to do */
        }
        if (rc < 0) {
            return rc;
        }
        off = next;
    }
    /* only FDT_END may follow the root */
    uint32_t tag;
    do {
        tag = fdt_next_tag(fdt, next, &next);
    } while (tag == TAG_NOP);
    if ((tag != TAG_END) || (next < 0)) {
        return -FDT_ERR_BADSTRUCTURE;
    }
    if (b.fits) {
        dt_ix.fdt = fdt;
    }
    return 0;
}
