/*
 * Per-guest Stage-2 translation tables (ARM ARM B3.6, LPAE, 32-bit IPA
 * space starting at level 1: VTCR.T0SZ = 0, SL0 = 1).  Pure table logic
 * with the page source passed in, so host unit tests walk real tables.
 */
#ifndef MM_STAGE2_H
#define MM_STAGE2_H

#include <stdint.h>
#include <stdbool.h>

#define S2_READ    (1u << 0)
#define S2_WRITE   (1u << 1)
#define S2_EXEC    (1u << 2)
#define S2_DEVICE  (1u << 3)     /* device memory instead of normal WB */
#define S2_NOCACHE (1u << 4)     /* normal non-cacheable: shared between guests */
#define S2_RW      (S2_READ | S2_WRITE)
#define S2_RWX     (S2_READ | S2_WRITE | S2_EXEC)

/* VTCR: T0SZ=0, SL0=1, walks inner/outer WB-WA inner shareable (B4.1.159) */
#define VTCR_VALUE 0x80003540u

struct s2_mm_ops {
    void *(*alloc_table)(void *ctx, uint64_t *pa);  /* zeroed 4 KiB page */
    void (*free_table)(void *ctx, void *va);
    void *(*table_va)(void *ctx, uint64_t pa);
    void *ctx;
};

struct stage2 {
    uint64_t *root;
    uint64_t root_pa;
    const struct s2_mm_ops *ops;
    unsigned int tables;         /* table pages in use, root included */
};

int s2_init(struct stage2 *s2, const struct s2_mm_ops *ops);
/* ipa, pa, size page aligned; 2 MiB blocks where both are block aligned */
int s2_map(struct stage2 *s2, uint64_t ipa, uint64_t pa, uint64_t size, unsigned int attrs);
/* Resolve an IPA: 0 and the output, attributes and level, or -1 if unmapped */
int s2_lookup(const struct stage2 *s2, uint64_t ipa, uint64_t *pa, unsigned int *attrs,
              unsigned int *level);
void s2_destroy(struct stage2 *s2);
uint64_t s2_vttbr(const struct stage2 *s2, uint8_t vmid);

#endif
