/*
 * The hypervisor in its own cache colours (docs/configuration.md, "Cache
 * colouring"): with `/partita colors`, the image's pages (text, data, bss,
 * stacks), the HYP tables and every pool page taken from then on (Stage-2
 * tables, guests' hypervisor-side pages) are pages of those colours, so that
 * coloured guests and the hypervisor never evict each other's lines in the
 * shared last-level cache.
 *
 * The boot CPU moves the image once, after the configuration is read and
 * before any guest starts, while the other CPUs wait in hyp_colour_park:
 *   1. hyp_colour_prepare: a pool page of the colours for each image page,
 *      and a copy of the table tree that maps the image there (pt_copy.c);
 *   2. hyp_colour_request, then wake the others (an SGI: mm sits below the
 *      GIC driver, the caller sends it); each parks, touching nothing of
 *      the image from then on, until all are counted by hyp_colour_parked;
 *   3. hyp_colour_move: copy the image, switch to the new tables, let the
 *      others switch too.
 */
#ifndef MM_HYP_COLOUR_H
#define MM_HYP_COLOUR_H

/* struct reloc_sync, in a pool page: the same physical word under the old
 * tables and the new, which is what the parked CPUs can read */
#define SYNC_PARKED     0x0u    /* hex: the assembler reads 0u as a radix */
#define SYNC_GO         0x4u
#define SYNC_HTTBR      0x8u
/* struct reloc_job, for hyp_reloc_copy_switch */
#define JOB_TO          0x0u
#define JOB_NPAGES      0x4u
#define JOB_HTTBR       0x8u
#define JOB_LINE        0xcu

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

struct colour_list;

/* the colours the hypervisor moved into; NULL if it did not */
const struct colour_list *hyp_colour_list(void);
int hyp_colour_prepare(const struct colour_list *l, char *err, size_t errlen);
void hyp_colour_request(void);
bool hyp_colour_requested(void);
/* a CPU other than the boot CPU, when requested: wait, then switch */
void hyp_colour_park(void);
unsigned int hyp_colour_parked(void);
void hyp_colour_move(void);
/*
 * Where the image's pages are now, read back through the MMU (ATS1HR,
 * ARM ARM B4.2.6) rather than from the bookkeeping; the HYP tables' pages
 * too.  Returns how many are not of the colours (0 when all is well).
 */
unsigned int hyp_colour_check(const struct colour_list *l, unsigned int *pages,
                              unsigned int *tables);
#endif

#endif
