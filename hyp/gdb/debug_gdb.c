/*
 * gdb's comparators (debug.h, struct debug_gdb): which one a Z1-Z4 takes,
 * the hardware value it gets, and whether a debug event was one of them.
 * Pure: unit-tested on the host (tests/unit/gdb/test_debug_gdb.c).
 */
#include <arch/sysregs.h>
#include "debug_gdb.h"

/* matched in the Non-secure PL0 and PL1 modes: where the guest runs, never
 * in Hyp mode (HMC 0) - as the filter makes the guest's own (C3.8.1) */
#define GDB_CTRL (DBGxCR_E | DBGxCR_PL_MASK | DBGxCR_SSC_NS)

/* comparator n's bit in bheld or wheld (n from 0 to DEBUG_MAX_PAIRS - 1) */
static uint32_t pair_bit(int n)
{
    return (unsigned int)1u << (unsigned int)n;
}

/* the highest-numbered comparator of n not held yet, or -1 */
static int take(uint32_t held, unsigned int n)
{
    for (int i = (int)n - 1; i >= 0; i--) {
        if ((held & pair_bit(i)) == 0u) {
            return i;
        }
    }
    return -1;
}

int debug_gdb_bp_add(struct debug_gdb *g, unsigned int nbrp, uint32_t addr, uint32_t kind)
{
    uint32_t bas;
    if (kind == 4u && !(addr & 3u)) {
        bas = DBGBCR_BAS_ARM;
    } else if ((kind == 2u || kind == 3u) && !(addr & 1u)) {
        bas = (addr & 2u) ? DBGBCR_BAS_THUMB_HI : DBGBCR_BAS_THUMB_LO;
    } else {
        return -1;
    }
    int n = debug_gdb_bp_match(g, addr);
    if (n < 0) {
        n = take(g->bheld, nbrp);
    }
    if (n < 0) {
        return -1;
    }
    g->bheld |= pair_bit(n);
    g->bvr[n] = addr & ~3u;
    g->bcr[n] = GDB_CTRL | bas;
    return n;
}

int debug_gdb_bp_match(const struct debug_gdb *g, uint32_t pc)
{
    for (int i = 0; i < DEBUG_MAX_PAIRS; i++) {
        if (((g->bheld & pair_bit(i)) == 0u) || (g->bvr[i] != (pc & ~3u))) {
            continue;
        }
        uint32_t bas = g->bcr[i] & DBGBCR_BAS_ARM;
        if (bas == DBGBCR_BAS_ARM || (bas == DBGBCR_BAS_THUMB_HI) == ((pc & 2u) != 0u)) {
            return i;
        }
    }
    return -1;
}

bool debug_gdb_bp_del(struct debug_gdb *g, uint32_t addr)
{
    int n = debug_gdb_bp_match(g, addr);
    if (n >= 0) {
        g->bheld &= ~pair_bit(n);
        g->bcr[n] = g->bvr[n] = 0u;
    }
    return n >= 0;
}

/* a watched range: within one word (DBGWVR is word-aligned, BAS a byte
 * each, C3.9.2); 0 if it is not one */
static uint32_t wp_bas(uint32_t addr, uint32_t len)
{
    if (len < 1u || len > 4u || (addr & 3u) + len > 4u) {
        return 0;
    }
    return (((unsigned int)1u << len) - 1u) << (addr & 3u);
}

static uint32_t wp_lsc(enum debug_gdb_watch type)
{
    return type == DEBUG_WATCH_WRITE ? DBGWCR_LSC_STORE
         : type == DEBUG_WATCH_READ ? DBGWCR_LSC_LOAD : DBGWCR_LSC_LOAD | DBGWCR_LSC_STORE;
}

static int wp_find(const struct debug_gdb *g, uint32_t addr, uint32_t len,
                   enum debug_gdb_watch type)
{
    uint32_t ctrl = GDB_CTRL | wp_lsc(type) | wp_bas(addr, len) << DBGWCR_BAS_SHIFT;
    for (int i = 0; i < DEBUG_MAX_PAIRS; i++) {
        if (((g->wheld & pair_bit(i)) != 0u) && (g->wvr[i] == (addr & ~3u)) &&
            (g->wcr[i] == ctrl)) {
            return i;
        }
    }
    return -1;
}

int debug_gdb_wp_add(struct debug_gdb *g, unsigned int nwrp, uint32_t addr, uint32_t len,
                     enum debug_gdb_watch type)
{
    uint32_t bas = wp_bas(addr, len);
    if (!bas) {
        return -1;
    }
    int n = wp_find(g, addr, len, type);
    if (n < 0) {
        n = take(g->wheld, nwrp);
    }
    if (n < 0) {
        return -1;
    }
    g->wheld |= pair_bit(n);
    g->wvr[n] = addr & ~3u;
    g->wcr[n] = GDB_CTRL | wp_lsc(type) | bas << DBGWCR_BAS_SHIFT;
    g->waddr[n] = addr;
    return n;
}

bool debug_gdb_wp_del(struct debug_gdb *g, uint32_t addr, uint32_t len,
                      enum debug_gdb_watch type)
{
    int n = wp_find(g, addr, len, type);
    if (n >= 0) {
        g->wheld &= ~pair_bit(n);
        g->wcr[n] = g->wvr[n] = 0u;
    }
    return n >= 0;
}

int debug_gdb_wp_match(const struct debug_gdb *g, uint32_t far)
{
    for (int i = 0; i < DEBUG_MAX_PAIRS; i++) {
        uint32_t bas = (g->wcr[i] >> DBGWCR_BAS_SHIFT) & 0xfu;
        if (((g->wheld & pair_bit(i)) != 0u) && (g->wvr[i] == (far & ~3u)) &&
            (bas & ((unsigned int)1u << (far & 3u))) != 0u) {
            return i;
        }
    }
    /* an access wider than the bytes watched starts below them: the
     * first of gdb's watchpoints on that word */
    for (int i = 0; i < DEBUG_MAX_PAIRS; i++) {
        if (((g->wheld & pair_bit(i)) != 0u) && (g->wvr[i] == (far & ~3u))) {
            return i;
        }
    }
    return -1;
}

enum debug_gdb_watch debug_gdb_wp_type(const struct debug_gdb *g, int n)
{
    uint32_t lsc = g->wcr[n] & (DBGWCR_LSC_LOAD | DBGWCR_LSC_STORE);
    enum debug_gdb_watch type = DEBUG_WATCH_ACCESS;
    if (lsc == DBGWCR_LSC_STORE) {
        type = DEBUG_WATCH_WRITE;
    } else if (lsc == DBGWCR_LSC_LOAD) {
        type = DEBUG_WATCH_READ;
    } else {
        /* both: an access watchpoint */
    }
    return type;
}
