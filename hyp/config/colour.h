/*
 * Cache colouring (docs/configuration.md, "Cache colouring"): the pages of
 * physical memory that fall into the same sets of the last-level cache share
 * a colour. With a physically indexed cache of way size W, a 4 KiB page at PA
 * has colour (PA / 4 KiB) mod (W / 4 KiB); two guests whose RAM has no colour
 * in common never evict each other's lines from that cache.
 *
 * A coloured guest's RAM is built from the pages of its colours only,
 * taken in address order from its `memory` base (aligned to the colour
 * period W) on: page i of its RAM is in period i / k, at the i % k-th of
 * its k colours.  Pure arithmetic, unit-tested (tests/unit/config).
 */
#ifndef HYP_CONFIG_COLOUR_H
#define HYP_CONFIG_COLOUR_H

#include <stdint.h>
#include <stdbool.h>
#include <stddef.h>

#define COLOUR_MAX       128u           /* a 512 KiB way (Cortex-A17 8 MiB L2) */
#define COLOUR_PAGE      0x1000u

/* A guest's colours: k of the system's n, in increasing order */
struct colour_list {
    unsigned int n;                     /* colours of the cache; 0: not coloured */
    unsigned int k;                     /* colours of the guest */
    uint8_t colour[COLOUR_MAX];
};

/* The colours of a cache whose way is way_size bytes (a power of two):
 * 0 where a way is no larger than a page (nothing to colour) */
unsigned int colour_count(uint32_t way_size);

/* Does list have colour c? */
bool colour_has(const struct colour_list *l, unsigned int c);

/*
 * A "colors" property: a string of colours and ranges ("0-3,8,10-11") or
 * cells (<0 1 2 3>); every colour below n, none twice.  0, or -1 with the
 * reason in err.
 */
int colour_parse(const void *prop, int len, unsigned int n, struct colour_list *out,
                 char *err, size_t errlen);

/* The physical address of byte off of a coloured RAM that starts at base */
static inline uint64_t colour_pa(const struct colour_list *l, uint64_t base, uint64_t off)
{
    uint64_t page = off / COLOUR_PAGE;
    return base + ((page / l->k) * l->n + l->colour[page % l->k]) * (uint64_t)COLOUR_PAGE +
           off % COLOUR_PAGE;
}

/* How many bytes of physical memory from base hold size bytes of it: up to
 * the end of its last page */
uint64_t colour_span(const struct colour_list *l, uint64_t size);

/* "0-3,8": a colour list as the configuration writes it */
void colour_format(const struct colour_list *l, char *buf, size_t size);

/* Colour of the 4 KiB page at physical address pa, of n colours */
static inline unsigned int colour_of(uint64_t pa, unsigned int n)
{
    return (unsigned int)((pa / COLOUR_PAGE) % n);
}

/* Are the npages pages from physical address pa on all of list's colours? */
bool colour_pages_in(const struct colour_list *l, uint64_t pa, unsigned int npages);

/* How many pages from page off on lie at consecutive physical addresses
 * (a run of adjacent colours), at most max */
uint64_t colour_run(const struct colour_list *l, uint64_t off, uint64_t max);

#endif
