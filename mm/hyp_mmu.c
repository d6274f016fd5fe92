/*
 * HYP stage-1 page tables (LPAE long descriptors, ARM ARM B3.6).
 *
 * Final layout (arch/layout.h): the image at HYP_VA_BASE with text
 * read-only/executable, read-only data and data non-executable, a guard
 * page under each CPU stack left unmapped; host RAM identity mapped
 * read-write, never executable; devices in the I/O window; the idmap page
 * at its physical address so CPUs can turn the MMU on; the boot DTB window.
 * HSCTLR.WXN makes every writable page non-executable on top of that.
 */
#include <string.h>
#include <arch/boot.h>
#include <arch/layout.h>
#include <arch/sysregs.h>
#include "hyp_mmu.h"
#include "cache.h"
#include "page_alloc.h"
#include "pt_copy.h"
#include "hyp/config/colour.h"
#include "hyp/lib/spinlock.h"

/* layout.h writes its sizes out for the linker script: they are the shifts' */
_Static_assert((PAGE_SIZE == ((unsigned int)1u << PAGE_SHIFT)) &&
               (BLOCK_SIZE == ((unsigned int)1u << BLOCK_SHIFT)) &&
               (STACK_REGION == ((unsigned int)1u << STACK_REGION_SHIFT)), "layout.h");

#define PT_ENTRIES  512u
#define PT_POOL     48u

typedef uint64_t pte_t;

/* zeroed by pt_alloc, one table at a time: not with .bss */
static pte_t pt_pool[PT_POOL][PT_ENTRIES] __attribute__((aligned(PAGE_SIZE), section(".noinit.pagetables")));
static unsigned int pt_used;
static pte_t *pt_l1;
static uint32_t image_pa_base;
static spinlock_t mmu_lock = SPINLOCK_INIT;
/* once the image has moved into the hypervisor's colours (hyp_colour.c):
 * the physical page of each image page, and tables from the page pool */
static const uint32_t *moved_pa;
static unsigned int pool_tables;
static uint32_t pool_size = HYP_POOL_SIZE;

/* A descriptor's attributes, 64 bits wide: written out, since a cast of
 * layout.h's 32-bit composite fields would be MISRA C:2012 rule 10.8; the
 * assertions tie each to its fields. */
#define ATTR_TEXT   0x00000000000007c0ULL
#define ATTR_RO     0x00400000000007c0ULL
#define ATTR_RW     0x0040000000000740ULL
#define ATTR_DEV    0x0040000000000444ULL
#define ATTR_XN     ((uint64_t)PTE_XN_HI << 32)
_Static_assert(ATTR_TEXT == (PTE_LO_NORMAL | PTE_AP_RO), "ATTR_TEXT");
_Static_assert(ATTR_RO == (ATTR_XN | PTE_LO_NORMAL | PTE_AP_RO), "ATTR_RO");
_Static_assert(ATTR_RW == (ATTR_XN | PTE_LO_NORMAL | PTE_AP_RW), "ATTR_RW");
_Static_assert(ATTR_DEV == (ATTR_XN | PTE_LO_DEVICE | PTE_AP_RW), "ATTR_DEV");
#define PTE_ADDR    0x000000fffffff000ULL

uint64_t hyp_virt_to_phys(const void *va)
{
    uint32_t v = (uint32_t)va;
    uint32_t pa = v;    /* RAM is identity mapped */
    if ((moved_pa != NULL) && (v >= hyp_va_of(__text_start)) && (v < hyp_va_of(__stacks_end))) {
        pa = moved_pa[(v - hyp_va_of(__text_start)) >> PAGE_SHIFT] + (v & (PAGE_SIZE - 1u));
    } else if (v >= HYP_VA_BASE) {
        pa = (v - HYP_VA_BASE) + image_pa_base;
    } else {
        /* identity mapped */
    }
    return pa;
}

static pte_t *pt_alloc(void)
{
    pte_t *t = NULL;
    if (moved_pa != NULL) {     /* tables of the hypervisor's colours, identity mapped */
        t = page_alloc(1, 1);
        if (t != NULL) {
            pool_tables++;
        }
    } else if (pt_used < PT_POOL) {
        t = pt_pool[pt_used];
        pt_used++;
        (void)memset(t, 0, PAGE_SIZE);
    } else {
        /* the static pool is used up */
    }
    return t;
}

/* A table's VA from its descriptor, or NULL if e is no table */
static pte_t *table_of(pte_t e)
{
    pte_t *t = NULL;
    if ((e & 3u) == (PTE_VALID | PTE_TABLE)) {
        t = moved_pa ? hyp_table_at((uint32_t)(e & PTE_ADDR))
                     : hyp_table_at((uint32_t)(((e & PTE_ADDR) - image_pa_base) + HYP_VA_BASE));
    }
    return t;
}

/* Next-level table under entry *e, made if absent. */
static pte_t *pt_next(pte_t *e)
{
    pte_t *t = table_of(*e);
    if (t == NULL) {
        t = pt_alloc();
        if (t != NULL) {
            *e = hyp_virt_to_phys(t) | PTE_VALID | PTE_TABLE;
        }
    }
    return t;
}

/*
 * Map [va, va+size) to pa with attrs, 2 MiB blocks where both are aligned,
 * 4 KiB pages elsewhere.  Only ever fills invalid entries, so no TLB entry
 * can be stale (ARM ARM B3.10.1: invalid entries are not cached).
 */
static int map_range(uint32_t va, uint64_t pa, uint64_t len, uint64_t attrs)
{
    uint64_t size = (len + PAGE_SIZE - 1u) & ~((uint64_t)PAGE_SIZE - 1u);    /* whole pages */
    while (size != 0u) {
        pte_t *l2 = pt_next(&pt_l1[va >> 30]);
        if (!l2) {
            return -1;
        }
        pte_t *e2 = &l2[(va >> BLOCK_SHIFT) & 511u];
        /* entries are counted in 32 bits and filled with one 64-bit add
         * each: a whole RAM and the image go through here at boot */
        if (((va & (BLOCK_SIZE - 1u)) == 0u) && ((pa & (BLOCK_SIZE - 1u)) == 0u) &&
            (size >= BLOCK_SIZE) && ((*e2 & PTE_VALID) == 0u)) {
            /* the blocks of this 1 GiB, while whole and free */
            uint32_t left = 512u - ((va >> BLOCK_SHIFT) & 511u);
            uint32_t n = 0u;
            if ((uint64_t)left > (size >> BLOCK_SHIFT)) {
                left = (uint32_t)(size >> BLOCK_SHIFT);
            }
            pte_t v = pa | attrs | PTE_VALID;
            do {
                *e2++ = v;
                v += BLOCK_SIZE;
            } while ((++n < left) && ((*e2 & PTE_VALID) == 0u));
            va += n << BLOCK_SHIFT; pa += (uint64_t)n << BLOCK_SHIFT;
            size -= (uint64_t)n << BLOCK_SHIFT;
            if (va == 0u) {
                break;  /* wrapped at 4 GiB */
            }
            continue;
        }
        pte_t *l3 = pt_next(e2);
        if (!l3) {
            return -1;
        }
        /* the pages of this 2 MiB block */
        uint32_t first = (va >> PAGE_SHIFT) & 511u;
        uint32_t n = 512u - first;
        if ((uint64_t)n > (size >> PAGE_SHIFT)) {
            n = (uint32_t)(size >> PAGE_SHIFT);
        }
        pte_t v = pa | attrs | PTE_VALID | PTE_TABLE;
        pte_t *e3 = &l3[first];
        for (uint32_t k = 0u; k < n; k++) {
            e3[k] = v;
            v += PAGE_SIZE;
        }
        va += n << PAGE_SHIFT; pa += (uint64_t)n << PAGE_SHIFT;
        size -= (uint64_t)n << PAGE_SHIFT;
        if (va == 0u) {
            break;  /* wrapped at 4 GiB */
        }
    }
    return 0;
}

static void map_image(uint32_t va_start, uint32_t va_end, uint64_t attrs)
{
    (void)map_range(va_start, hyp_virt_to_phys((void *)va_start), va_end - va_start, attrs);
}

/* RAM below the device window, minus the image (which is mapped at its VA). */
static void map_ram(const struct platform *p)
{
    uint64_t fs = image_pa_base;
    uint32_t image_len = hyp_va_of(__config_end) - HYP_VA_BASE;
    uint64_t fe = image_pa_base + (uint64_t)image_len;
    for (unsigned int i = 0u; i < p->nmem; i++) {
        uint64_t s = p->mem[i].base;
        uint64_t e = s + p->mem[i].size;
        if (e > HYP_VA_RAM_END) {
            e = HYP_VA_RAM_END;
        }
        s = (s + PAGE_SIZE - 1u) & ~((uint64_t)PAGE_SIZE - 1u);
        e &= ~((uint64_t)PAGE_SIZE - 1u);
        if (s >= e) {
            continue;
        }
        if ((fs < e) && (fe > s)) {
            if (fs > s) {
                (void)map_range((uint32_t)s, s, fs - s, ATTR_RW);
            }
            if (fe < e) {
                (void)map_range((uint32_t)fe, fe, e - fe, ATTR_RW);
            }
        } else {
            (void)map_range((uint32_t)s, s, e - s, ATTR_RW);
        }
    }
}

void hyp_set_pool_size(uint32_t size)
{
    pool_size = size;
}

void hyp_footprint(uint64_t *start, uint64_t *end)
{
    *start = image_pa_base;
    uint32_t image_len = hyp_va_of(__config_end) - HYP_VA_BASE;
    *end = image_pa_base + (uint64_t)image_len + (uint64_t)pool_size;
}

unsigned int hyp_mmu_pages_used(void)
{
    return moved_pa ? pool_tables : pt_used;
}

/* ---- the image's pages moved (hyp_colour.c) ---- */

static uint64_t *recolour_table(void *ctx, uint64_t pa)
{
    (void)ctx;      /* the live tables: pt_pool, in the image */
    uint64_t off = pa - image_pa_base;
    return ((pa >= image_pa_base) && (off < HYP_IMAGE_MAX)) ? hyp_table_at((uint32_t)(off + HYP_VA_BASE))
                                                            : NULL;
}

static uint64_t *recolour_alloc(void *ctx, uint64_t *pa)
{
    (void)ctx;
    uint64_t *t = page_alloc(1, 1);     /* zeroed, of the colours, identity mapped */
    *pa = (uint32_t)t;
    if (t != NULL) {
        pool_tables++;
    }
    return t;
}

/* The new page of each image page, for recolour_move: hyp_mmu_recolour's
 * argument, under mmu_lock (a const table, which the ops' context is not). */
static const uint32_t *recolour_to;

static uint64_t recolour_move(void *ctx, uint32_t va, uint64_t pa)
{
    (void)ctx;
    (void)pa;
    return recolour_to[(va - hyp_va_of(__text_start)) >> PAGE_SHIFT];
}

int hyp_mmu_recolour(const uint32_t *to, uint32_t *httbr)
{
    const struct pt_copy_ops ops = { recolour_table, recolour_alloc, recolour_move, NULL };
    uint64_t root;
    uint32_t f = spin_lock_irqsave(&mmu_lock);
    recolour_to = to;
    pool_tables = 0u;
    int rc = pt_copy(&ops, hyp_virt_to_phys(pt_l1), hyp_va_of(__text_start),
                     hyp_va_of(__stacks_end), &root);
    spin_unlock_irqrestore(&mmu_lock, f);
    /* no clean to PoC, unlike the first tables: every CPU that walks these
     * is online, in the coherency domain, walking through its caches (HTCR) */
    *httbr = (uint32_t)root;
    return rc;
}

unsigned int hyp_mmu_table_pages(const struct colour_list *l, unsigned int *bad)
{
    unsigned int n = 1u;
    if (!colour_pages_in(l, hyp_virt_to_phys(pt_l1), 1)) {
        (*bad)++;
    }
    for (unsigned int i = 0u; i < 4u; i++) {
        const pte_t *l2 = table_of(pt_l1[i]);
        if (!l2) {
            continue;
        }
        n++;
        if (!colour_pages_in(l, pt_l1[i] & PTE_ADDR, 1)) {
            (*bad)++;
        }
        for (unsigned int j = 0u; j < PT_ENTRIES; j++) {
            if (table_of(l2[j]) != NULL) {
                n++;
                if (!colour_pages_in(l, l2[j] & PTE_ADDR, 1)) {
                    (*bad)++;
                }
            }
        }
    }
    return n;
}

void hyp_mmu_moved(const uint32_t *to, uint32_t httbr)
{
    moved_pa = to;
    pt_l1 = hyp_table_at(httbr);     /* pool pages: identity mapped */
    hyp_httbr_pa = httbr;
}

void hyp_mmu_harden(void)
{
    /* WXN: writable implies execute-never; TLBs may cache it (B4.1.67) */
    sysreg_write_hsctlr(sysreg_read_hsctlr() | SCTLR_WXN);
    isb();
    sysreg_op_tlbiallh(0);
    dsb();
    isb();
}

void hyp_mmu_init(const struct platform *p, uint32_t image_pa)
{
    image_pa_base = image_pa;
    pt_l1 = pt_alloc();

    map_image(hyp_va_of(__text_start), hyp_va_of(__text_end), ATTR_TEXT);
    map_image(hyp_va_of(__rodata_start), hyp_va_of(__rodata_end), ATTR_RO);
    map_image(hyp_va_of(__data_start), hyp_va_of(__stacks_start), ATTR_RW);
    map_image(hyp_va_of(__config_start), hyp_va_of(__config_end), ATTR_RO);
    for (uint32_t s = hyp_va_of(__stacks_start); s < hyp_va_of(__stacks_end); s += STACK_REGION) {
        map_image(s + STACK_GUARD, s + STACK_REGION, ATTR_RW);   /* guard left out */
    }

    /* the identity alias of the idmap page, read-only and executable */
    uint64_t idpa = hyp_virt_to_phys(__idmap_start);
    (void)map_range((uint32_t)idpa, idpa, PAGE_SIZE, ATTR_TEXT);

    /* the boot DTB window, as the early tables had it */
    uint64_t dtb_block = 0u;
    const pte_t *early_l2 = &boot_pt_l1[PAGE_SIZE / sizeof(pte_t)];
    dtb_block = early_l2[(HYP_VA_DTB >> BLOCK_SHIFT) & 511u] & PTE_ADDR;
    (void)map_range(HYP_VA_DTB, dtb_block, 2u * BLOCK_SIZE, ATTR_RO);

    map_ram(p);

    /*
     * The walker reads tables through the caches (HTCR: inner/outer WB),
     * but a secondary CPU turns its MMU on before it joins coherency on
     * some cores: clean the tables to PoC for it (QEMU would not notice).
     */
    dcache_clean_range(pt_pool, pt_used * PAGE_SIZE);
    hyp_httbr_pa = (uint32_t)hyp_virt_to_phys(pt_l1);
    dcache_clean_range(&hyp_httbr_pa, sizeof(hyp_httbr_pa));
    hyp_mmu_switch(hyp_httbr_pa);
    hyp_mmu_harden();
}

volatile void *ioremap(uint64_t pa, uint32_t size)
{
    static uint32_t io_next = HYP_VA_DEV;   /* under mmu_lock */
    uint32_t off = (uint32_t)pa & (PAGE_SIZE - 1u);
    uint64_t base = pa - off;
    uint32_t len = (size + off + PAGE_SIZE - 1u) & ~(PAGE_SIZE - 1u);
    uint32_t f = spin_lock_irqsave(&mmu_lock);
    volatile void *va = NULL;
    if (len <= (HYP_VA_DEV_END - io_next)) {
        uint32_t v = io_next;
        if (map_range(v, base, len, ATTR_DEV) == 0) {
            io_next += len;
            va = (volatile void *)(v + off);
            dsb_ish();
            isb();
        }
    }
    spin_unlock_irqrestore(&mmu_lock, f);
    return va;
}
