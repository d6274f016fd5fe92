/* Inside the host DT index: what dt_index.c builds and dt_lookup.c reads. */
#ifndef HYP_DT_INDEX_DATA_H
#define HYP_DT_INDEX_DATA_H

#include <stdint.h>
#include "dt_index.h"

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
#define PROPS_UNKNOWN 0xffffu

struct dt_prop {
    const char *name;           /* in the strings block, NUL-terminated */
    const void *val;
    int len;
};

struct dt_ix {
    const void *fdt;            /* the tree indexed, NULL if none */
    int n, nprops;
    struct dt_node node[DT_INDEX_MAX_NODES];
    struct dt_prop prop[DT_INDEX_MAX_PROPS];
};
/* the index: built by dt_index.c, read by dt_lookup.c */
extern struct dt_ix dt_ix;

#endif
