/* The hypervisor moved into its own cache colours: hyp_colour.h says how. */
#include <stdio.h>
#include <arch/boot.h>
#include <arch/layout.h>
#include <arch/sysregs.h>
#include "hyp_colour.h"
#include "hyp_mmu.h"
#include "page_alloc.h"
#include "hyp/config/colour.h"

struct reloc_sync {
    volatile uint32_t parked, go;
    uint32_t httbr;
};
/* (size_t): cppcheck does not know offsetof's type (MISRA C:2012 rule 10.4). */
_Static_assert((size_t)__builtin_offsetof(struct reloc_sync, parked) == SYNC_PARKED, "sync");
_Static_assert((size_t)__builtin_offsetof(struct reloc_sync, go) == SYNC_GO, "sync");
_Static_assert((size_t)__builtin_offsetof(struct reloc_sync, httbr) == SYNC_HTTBR, "sync");

struct reloc_job {
    const uint32_t *to;
    uint32_t npages, httbr, line;
};
_Static_assert((size_t)__builtin_offsetof(struct reloc_job, to) == JOB_TO, "job");
_Static_assert((size_t)__builtin_offsetof(struct reloc_job, npages) == JOB_NPAGES, "job");
_Static_assert((size_t)__builtin_offsetof(struct reloc_job, httbr) == JOB_HTTBR, "job");
_Static_assert((size_t)__builtin_offsetof(struct reloc_job, line) == JOB_LINE, "job");

void hyp_reloc_copy_switch(const struct reloc_job *job);     /* hyp_reloc.S */
void hyp_reloc_park(struct reloc_sync *sync);

#define IMAGE_PAGES (HYP_IMAGE_MAX / PAGE_SIZE)
#define CTR_DMINLINE_SHIFT 16       /* CTR.DminLine: log2 words of a D-cache line (B4.1.42) */
#define CTR_DMINLINE_MASK  0xfu

static uint32_t to[IMAGE_PAGES];    /* image page i's new physical page; 0: not mapped */
static struct reloc_job job;
static struct reloc_sync *sync;
static struct reloc_sync *volatile requested;
static const struct colour_list *wanted, *moved_to;    /* the configuration's */

const struct colour_list *hyp_colour_list(void)
{
    return moved_to;
}

static uint32_t image_pages(void)
{
    return (hyp_va_of(__stacks_end) - hyp_va_of(__text_start)) / PAGE_SIZE;
}

/* Is the image page at va mapped?  Asked of the MMU (ATS1HR, B4.2.6) */
static bool mapped(uint32_t va, uint64_t *pa)
{
    sysreg_op_ats1hr(va);
    isb();
    uint64_t par = sysreg_read_par64();
    *pa = par & PAR64_PA_MASK;
    return (par & PAR_F) == 0u;
}

int hyp_colour_prepare(const struct colour_list *l, char *err, size_t errlen)
{
    uint32_t n = image_pages(), need = 0u;
    uint64_t pa;
    wanted = l;
    page_alloc_colours(l);
    for (uint32_t i = 0u; i < n; i++) {
        need += mapped(hyp_va_of(__text_start) + (i * PAGE_SIZE), &pa);
    }
    uint64_t pool_pa, pool_bytes;
    page_pool_range(&pool_pa, &pool_bytes);
    if (need + 8u > page_free_count()) {     /* the image, the tables, the sync page */
        (void)snprintf(err, errlen, "its colours hold %u KiB of its %lu KiB page pool; its own "
                       "image needs %lu KiB of them: give it more colours",
                       page_free_count() * 4u, (unsigned long)(pool_bytes / 1024u),
                       (unsigned long)need * 4u + 32u);
        return -1;
    }
    for (uint32_t i = 0u; i < n; i++) {
        to[i] = mapped(hyp_va_of(__text_start) + (i * PAGE_SIZE), &pa) ?
                (uint32_t)page_alloc(1, 1) : 0u;
    }
    sync = page_alloc(1, 1);
    job = (struct reloc_job){ to, n, 0, (unsigned int)4u << ((sysreg_read_ctr() >> CTR_DMINLINE_SHIFT) &
                                              CTR_DMINLINE_MASK) };
    if (!sync || hyp_mmu_recolour(to, &job.httbr) != 0) {
        (void)snprintf(err, errlen, "out of page-table pages of its colours");
        return -1;
    }
    sync->httbr = job.httbr;
    return 0;
}

void hyp_colour_request(void)
{
    requested = sync;
    dsb_ish();
}

bool hyp_colour_requested(void)
{
    return requested != NULL;
}

void hyp_colour_park(void)
{
    hyp_reloc_park(requested);
}

unsigned int hyp_colour_parked(void)
{
    return sync->parked;
}

void hyp_colour_move(void)
{
    hyp_reloc_copy_switch(&job);
    /* on the copy from here on: tell mm, end the request, release the others */
    hyp_mmu_moved(to, job.httbr);
    moved_to = wanted;
    requested = NULL;
    dsb_ish();
    sync->go = 1u;
    dsb_ish();
    sev();
}

unsigned int hyp_colour_check(const struct colour_list *l, unsigned int *pages,
                              unsigned int *tables)
{
    unsigned int bad = 0u;
    uint64_t pa;
    *pages = 0u;
    for (uint32_t i = 0u; i < image_pages(); i++) {
        if (!mapped(hyp_va_of(__text_start) + (i * PAGE_SIZE), &pa)) {
            continue;
        }
        (*pages)++;
        if (!colour_pages_in(l, pa, 1)) {
            bad++;
        }
    }
    *tables = hyp_mmu_table_pages(l, &bad);
    return bad;
}
