/*
 * Physical page allocator for hypervisor data (Stage-2 tables, guest DTBs,
 * vCPU state): a bitmap over one identity-mapped RAM pool.  No malloc.
 */
#ifndef MM_PAGE_ALLOC_H
#define MM_PAGE_ALLOC_H

#include <stdint.h>
#include <stddef.h>

void page_alloc_init(uint64_t pa, uint64_t size);
/* npages contiguous zeroed pages aligned to align_pages; NULL when out */
void *page_alloc(unsigned int npages, unsigned int align_pages);
void page_free(void *va, unsigned int npages);
unsigned int page_free_count(void);
unsigned int page_total_count(void);
void page_pool_range(uint64_t *pa, uint64_t *size);
/*
 * From now on, hand out only pages of these cache colours (the
 * hypervisor's own, mm/hyp_colour.c): the counts above become those of
 * the pool's pages of the colours.  Pages handed out before stay as they are.
 */
struct colour_list;
void page_alloc_colours(const struct colour_list *l);

#endif
