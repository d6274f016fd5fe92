#include <string.h>
#include "pt_copy.h"

#define ENTRIES     512u
#define DESC_VALID  1ULL
#define DESC_TABLE  2ULL                        /* table (levels 1, 2) or page (level 3) */
#define DESC_ADDR   0x000000fffffff000ULL       /* output address, bits [39:12] */
#define L1_SHIFT    30
#define L2_SHIFT    21
#define L3_SHIFT    12

static int is_table(uint64_t e)
{
    return (e & (DESC_VALID | DESC_TABLE)) == (DESC_VALID | DESC_TABLE);
}

/* does [va, va + size) meet [lo, hi)? (hi 0: up to 4 GiB) */
static int meets(uint64_t va, uint64_t size, uint32_t lo, uint32_t hi)
{
    uint64_t h = hi ? hi : 1ULL << 32;
    return va < h && va + size > lo;
}

/* Copy one table of the tree at level (1..3) mapping from va_base on */
static int copy_level(const struct pt_copy_ops *ops, uint64_t pa, int level, uint64_t va_base,
                      uint32_t lo, uint32_t hi, uint64_t *new_pa)
{
    static const unsigned int shift[4] = { 0, L1_SHIFT, L2_SHIFT, L3_SHIFT };
    const uint64_t *old = ops->table(ops->ctx, pa);
    uint64_t *t = ops->alloc(ops->ctx, new_pa);
    if (!old || !t) {
        return -1;
    }
    for (unsigned int i = 0u; i < ENTRIES; i++) {
        uint64_t e = old[i], va = va_base + ((uint64_t)i << shift[level]);
        if (level == 1 && i >= 4u) {
            break;                  /* a 32-bit VA uses the first four (T0SZ = 0) */
        }
        if (!(e & DESC_VALID)) {
            t[i] = e;
        } else if (level < 3 && is_table(e)) {
            uint64_t next;
            if (copy_level(ops, e & DESC_ADDR, level + 1, va, lo, hi, &next) != 0) {
                return -1;
            }
            t[i] = (e & ~DESC_ADDR) | next;
        } else if (level < 3) {     /* a block */
            if (meets(va, 1ULL << shift[level], lo, hi) != 0) {
                return -1;
            }
            t[i] = e;
        } else if (meets(va, 1ULL << L3_SHIFT, lo, hi) != 0) {
            t[i] = (e & ~DESC_ADDR) | (ops->move(ops->ctx, (uint32_t)va, e & DESC_ADDR) &
                                       DESC_ADDR);
        } else {
            t[i] = e;
        }
    }
    return 0;
}

int pt_copy(const struct pt_copy_ops *ops, uint64_t root_pa, uint32_t lo, uint32_t hi,
            uint64_t *new_root_pa)
{
    return copy_level(ops, root_pa, 1, 0, lo, hi, new_root_pa);
}
