#include <string.h>
#include <arch/layout.h>
#include "page_alloc.h"
#include "hyp/lib/spinlock.h"
#include "hyp/config/colour.h"

#define POOL_MAX_PAGES (64u * 1024u * 1024u / PAGE_SIZE)   /* 64 MiB at most */

static uint32_t bitmap[POOL_MAX_PAGES / 32u];    /* 1 = in use */
static uint64_t pool_pa;
static unsigned int pool_pages, free_pages, usable_pages;
static spinlock_t pa_lock = SPINLOCK_INIT;
static const struct colour_list *colours;     /* only these, once set */

void page_alloc_init(uint64_t pa, uint64_t size)
{
    pool_pa = pa;
    pool_pages = (unsigned int)(size / PAGE_SIZE);
    if (pool_pages > POOL_MAX_PAGES) {
        pool_pages = POOL_MAX_PAGES;
    }
    free_pages = usable_pages = pool_pages;
    (void)memset(bitmap, 0, sizeof(bitmap));
}

static int used(unsigned int i) { return (bitmap[i / 32u] >> (i % 32u)) & 1u; }
static void set(unsigned int i, int v)
{
    if (v != 0) {
        bitmap[i / 32u] |= (unsigned int)1u << (i % 32u);
    } else {
        bitmap[i / 32u] &= ~((unsigned int)1u << (i % 32u));
    }
}

void *page_alloc(unsigned int npages, unsigned int align_pages)
{
    if (!npages) {
        return NULL;
    }
    if (!align_pages) {
        align_pages = 1u;
    }
    uint32_t f = spin_lock_irqsave(&pa_lock);
    void *va = NULL;
    /* pool_pa is page aligned; align in physical terms */
    unsigned int first = 0u;
    while ((((pool_pa >> PAGE_SHIFT) + first) % align_pages) != 0u) {
        first++;
    }
    for (unsigned int i = first; i + npages <= pool_pages; i += align_pages) {
        unsigned int j = 0u;
        while (j < npages && !used(i + j)) {
            j++;
        }
        if (j == npages && colours &&
            !colour_pages_in(colours, pool_pa + (uint64_t)i * PAGE_SIZE, npages)) {
            continue;
            }
        if (j == npages) {
            for (j = 0u; j < npages; j++) {
                set(i + j, 1);
            }
            free_pages -= npages;
            va = (void *)(uintptr_t)(pool_pa + (uint64_t)i * PAGE_SIZE);  /* identity */
            break;
        }
    }
    spin_unlock_irqrestore(&pa_lock, f);
    if (va != NULL) {
        (void)memset(va, 0, (size_t)npages * PAGE_SIZE);
    }
    return va;
}

void page_free(void *va, unsigned int npages)
{
    if (!va) {
        return;
    }
    unsigned int i = (unsigned int)(((uintptr_t)va - pool_pa) / PAGE_SIZE);
    uint32_t f = spin_lock_irqsave(&pa_lock);
    for (unsigned int j = 0u; j < npages && i + j < pool_pages; j++) {
        if (used(i + j) != 0) {
            set(i + j, 0);
            if (!colours || colour_pages_in(colours, pool_pa + ((uint64_t)i + j) * PAGE_SIZE, 1)) {
                free_pages++;
            }
        }
    }
    spin_unlock_irqrestore(&pa_lock, f);
}

void page_alloc_colours(const struct colour_list *l)
{
    uint32_t f = spin_lock_irqsave(&pa_lock);
    colours = l;
    free_pages = usable_pages = 0u;
    for (unsigned int i = 0u; i < pool_pages; i++) {
        if (colour_pages_in(l, pool_pa + (uint64_t)i * PAGE_SIZE, 1)) {
            usable_pages++;
            if (used(i) == 0) {
                free_pages++;
            }
        }
    }
    spin_unlock_irqrestore(&pa_lock, f);
}

unsigned int page_free_count(void) { return free_pages; }
unsigned int page_total_count(void) { return usable_pages; }
void page_pool_range(uint64_t *pa, uint64_t *size)
{
    *pa = pool_pa;
    *size = (uint64_t)pool_pages * PAGE_SIZE;
}
