/* HYP stage-1 translation: the final tables and the device window. */
#ifndef MM_HYP_MMU_H
#define MM_HYP_MMU_H

#include <stdint.h>
#include "hyp/platform/platform.h"

/* Build the final tables for CPU 0 and switch to them. */
void hyp_mmu_init(const struct platform *p, uint32_t image_pa);
/* Secondary CPUs arrive on the final tables; harden their HSCTLR too. */
void hyp_mmu_harden(void);
/* Map a device range (uncached, never executable); NULL if out of space. */
volatile void *ioremap(uint64_t pa, uint32_t size);
/* Physical address of a hypervisor virtual address. */
uint64_t hyp_virt_to_phys(const void *va);
/*
 * A hypervisor VA as a number (a linker symbol's, the image's), and a
 * table's entries at a VA: the conversions between pointers and addresses
 * of the MMU code, one place each (MISRA C:2012 rule 11.4, docs/misra.md).
 */
static inline uint32_t hyp_va_of(const char *sym)
{
    return (uint32_t)sym;
}
static inline uint64_t *hyp_table_at(uint32_t va)
{
    return (uint64_t *)va;
}
/* Page pool for hypervisor data, right after the image and configuration:
 * 8 MiB, or up to 64 MiB for 8 MiB of the hypervisor's colours */
#define HYP_POOL_SIZE ((unsigned int)8u << 20)
#define HYP_POOL_MAX  ((unsigned int)64u << 20)
void hyp_set_pool_size(uint32_t size);
/* The hypervisor's own physical footprint [start, end): image, config, pool. */
void hyp_footprint(uint64_t *start, uint64_t *end);
/*
 * Moving the image into the hypervisor's colours (hyp_colour.c): new tables
 * from the page pool in which image page i is at physical to[i]; then,
 * once every CPU runs on them, the rest of mm is told.
 */
int hyp_mmu_recolour(const uint32_t *to, uint32_t *httbr);
void hyp_mmu_moved(const uint32_t *to, uint32_t httbr);
/* the live tables' pages; those not of l's colours are added to *bad */
struct colour_list;
unsigned int hyp_mmu_table_pages(const struct colour_list *l, unsigned int *bad);
/* HYP page-table pages in use (for `info`). */
unsigned int hyp_mmu_pages_used(void);

#endif
