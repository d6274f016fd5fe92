#include <stddef.h>
#include "stage2.h"

#define S2_VALID      (1ULL << 0)
#define S2_TABLE      (1ULL << 1)        /* table (L1/L2) or page (L3) */
#define S2_MEMATTR(x) ((uint64_t)(x) << 2)
#define S2_MA_NORMAL  S2_MEMATTR(0xf)    /* outer WB, inner WB (B3.6.2) */
#define S2_MA_DEVICE  S2_MEMATTR(0x1)    /* device */
/* outer and inner non-cacheable: whatever cacheability a guest's stage 1
 * asks for, the combination is non-cacheable (B3.8.2 "Combining..."), so
 * two guests sharing memory never see each other's stale cache lines */
#define S2_MA_NC      S2_MEMATTR(0x5)
#define S2_HAP_R      (1ULL << 6)
#define S2_HAP_W      (1ULL << 7)
#define S2_SH_INNER   (3ULL << 8)
#define S2_AF         (1ULL << 10)
#define S2_XN         (1ULL << 54)
#define S2_ADDR       0x000000fffffff000ULL

#define L1_SHIFT 30
#define L2_SHIFT 21
#define L3_SHIFT 12

static uint64_t s2_desc_attrs(unsigned int attrs)
{
    uint64_t d = S2_AF;
    if ((attrs & S2_DEVICE) != 0u) {
        d |= S2_MA_DEVICE;
    } else {
        d |= ((attrs & S2_NOCACHE) ? S2_MA_NC : S2_MA_NORMAL) | S2_SH_INNER;
    }
    if ((attrs & S2_READ) != 0u) {
        d |= S2_HAP_R;
    }
    if ((attrs & S2_WRITE) != 0u) {
        d |= S2_HAP_W;
    }
    if (!(attrs & S2_EXEC) || (attrs & S2_DEVICE)) {
        d |= S2_XN;
    }
    return d;
}

static unsigned int s2_attrs_of(uint64_t d)
{
    unsigned int a = 0u;
    if ((d & S2_HAP_R) != 0u) {
        a |= S2_READ;
    }
    if ((d & S2_HAP_W) != 0u) {
        a |= S2_WRITE;
    }
    if (!(d & S2_XN)) {
        a |= S2_EXEC;
    }
    if ((d & S2_MEMATTR(0xf)) == S2_MA_DEVICE) {
        a |= S2_DEVICE;
    }
    if ((d & S2_MEMATTR(0xf)) == S2_MA_NC) {
        a |= S2_NOCACHE;
    }
    return a;
}

int s2_init(struct stage2 *s2, const struct s2_mm_ops *ops)
{
    s2->ops = ops;
    s2->root = ops->alloc_table(ops->ctx, &s2->root_pa);
    int rc;
    if (s2->root == NULL) {
        s2->tables = 0u;
        rc = -1;
    } else {
        s2->tables = 1u;
        rc = 0;
    }
    return rc;
}

static uint64_t *s2_next(struct stage2 *s2, uint64_t *e)
{
    if ((*e & 3u) == (S2_VALID | S2_TABLE)) {
        return s2->ops->table_va(s2->ops->ctx, *e & S2_ADDR);
    }
    if ((*e & S2_VALID) != 0u) {
        return NULL;    /* a block is there: refuse to split silently */
    }
    uint64_t pa;
    uint64_t *t = s2->ops->alloc_table(s2->ops->ctx, &pa);
    if (!t) {
        return NULL;
    }
    s2->tables++;
    *e = pa | S2_VALID | S2_TABLE;
    return t;
}

int s2_map(struct stage2 *s2, uint64_t ipa, uint64_t pa, uint64_t size, unsigned int attrs)
{
    const uint64_t blk = 1ULL << L2_SHIFT, pg = 1ULL << L3_SHIFT;
    if ((ipa | pa | size) & (pg - 1u) || ipa + size > (1ULL << 32) || ipa + size < ipa) {
        return -1;
    }
    /* the output address is 40 bits (B3.6.1): more would land in RES0 or XN */
    if (pa + size > (1ULL << 40) || pa + size < pa) {
        return -1;
    }
    uint64_t d = s2_desc_attrs(attrs);
    while (size != 0u) {
        uint64_t *l2 = s2_next(s2, &s2->root[(ipa >> L1_SHIFT) & 3u]);
        if (!l2) {
            return -1;
        }
        uint64_t *e2 = &l2[(ipa >> L2_SHIFT) & 511u];
        if (!((ipa | pa) & (blk - 1u)) && size >= blk && !(*e2 & S2_VALID)) {
            *e2 = pa | d | S2_VALID;
            ipa += blk; pa += blk; size -= blk;
            continue;
        }
        uint64_t *l3 = s2_next(s2, e2);
        if (!l3) {
            return -1;
        }
        uint64_t *e3 = &l3[(ipa >> L3_SHIFT) & 511u];
        do {    /* the pages of this 2 MiB block, in one go */
            if ((*e3 & S2_VALID) != 0u) {
                return -1;  /* already mapped: the caller overlaps itself */
            }
            *e3++ = pa | d | S2_VALID | S2_TABLE;
            ipa += pg; pa += pg; size -= pg;
        } while (size && (ipa & (blk - 1u)));
    }
    return 0;
}

int s2_lookup(const struct stage2 *s2, uint64_t ipa, uint64_t *pa, unsigned int *attrs,
              unsigned int *level)
{
    if ((ipa >> 32) != 0u) {
        return -1;
    }
    uint64_t e = s2->root[(ipa >> L1_SHIFT) & 3u];
    if (!(e & S2_VALID) || !(e & S2_TABLE)) {
        return -1;      /* Partita never maps 1 GiB blocks */
    }
    const uint64_t *l2 = s2->ops->table_va(s2->ops->ctx, e & S2_ADDR);
    e = l2[(ipa >> L2_SHIFT) & 511u];
    if (!(e & S2_VALID)) {
        return -1;
    }
    if (!(e & S2_TABLE)) {
        *pa = (e & S2_ADDR & ~((1ULL << L2_SHIFT) - 1u)) | (ipa & ((1ULL << L2_SHIFT) - 1u));
        *attrs = s2_attrs_of(e);
        *level = 2u;
        return 0;
    }
    const uint64_t *l3 = s2->ops->table_va(s2->ops->ctx, e & S2_ADDR);
    e = l3[(ipa >> L3_SHIFT) & 511u];
    if ((e & 3u) != (S2_VALID | S2_TABLE)) {
        return -1;
    }
    *pa = (e & S2_ADDR) | (ipa & ((1ULL << L3_SHIFT) - 1u));
    *attrs = s2_attrs_of(e);
    *level = 3u;
    return 0;
}

void s2_destroy(struct stage2 *s2)
{
    if (!s2->root) {
        return;
    }
    for (int i = 0; i < 4; i++) {
        uint64_t e = s2->root[i];
        if ((e & 3u) != (S2_VALID | S2_TABLE)) {
            continue;
        }
        uint64_t *l2 = s2->ops->table_va(s2->ops->ctx, e & S2_ADDR);
        for (int j = 0; j < 512; j++) {
            if ((l2[j] & 3u) == (S2_VALID | S2_TABLE)) {
                s2->ops->free_table(s2->ops->ctx,
                                    s2->ops->table_va(s2->ops->ctx, l2[j] & S2_ADDR));
            }
        }
        s2->ops->free_table(s2->ops->ctx, l2);
    }
    s2->ops->free_table(s2->ops->ctx, s2->root);
    s2->root = NULL;
    s2->tables = 0u;
}

uint64_t s2_vttbr(const struct stage2 *s2, uint8_t vmid)
{
    return s2->root_pa | ((uint64_t)vmid << 48);
}
