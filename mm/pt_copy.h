/*
 * Copy the hypervisor's stage-1 table tree (LPAE long descriptors, ARM ARM
 * B3.6) into new tables, moving the output address of every 4 KiB page
 * mapped in one VA range: how the hypervisor's own pages move into its
 * cache colours (mm/hyp_colour.c).  Pure table surgery, unit-tested on the
 * host (tests/unit/mm/test_pt_copy.c).
 */
#ifndef MM_PT_COPY_H
#define MM_PT_COPY_H

#include <stdint.h>

struct pt_copy_ops {
    uint64_t *(*table)(void *ctx, uint64_t pa);         /* a table, by its PA */
    uint64_t *(*alloc)(void *ctx, uint64_t *pa);        /* a zeroed table; NULL when out */
    uint64_t (*move)(void *ctx, uint32_t va, uint64_t pa);  /* where the page at va goes */
    void *ctx;
};

/*
 * New tables for the tree at root_pa: the same entries, but each page
 * mapped at a VA in [lo, hi) points where move() says.  0, or -1 when out
 * of tables or when a 1 GiB or 2 MiB block maps part of [lo, hi) (a block
 * cannot move page by page).
 */
int pt_copy(const struct pt_copy_ops *ops, uint64_t root_pa, uint32_t lo, uint32_t hi,
            uint64_t *new_root_pa);

#endif
