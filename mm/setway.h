/*
 * A guest's set/way cache maintenance (DCISW/DCCSW/DCCISW) is trapped
 * (HCR.TSW) and done on its behalf.  The operand comes from the guest: an
 * out-of-range level, set or way is UNPREDICTABLE (ARM ARM B4.2.1, "Data
 * and instruction cache maintenance by set/way"), so it is checked against
 * the caches CLIDR and CCSIDR describe before it reaches the hardware.
 * QEMU ignores set/way operations and would never show a mistake here.
 */
#ifndef MM_SETWAY_H
#define MM_SETWAY_H

#include <stdint.h>
#include <stdbool.h>

/* Level (0-based) a set/way operand names: bits [3:1] */
static inline unsigned int setway_level(uint32_t val) { return (val >> 1) & 7u; }

/*
 * Is val a valid operand for a data or unified cache at its level?
 * clidr: CLIDR; ccsidr: CCSIDR of that level's data cache (CSSELR = level << 1).
 */
bool setway_valid(uint32_t val, uint32_t clidr, uint32_t ccsidr);

/* A cache level's geometry from its CCSIDR (B4.1.19) */
struct cache_geom {
    uint32_t line, ways, sets;          /* bytes, count, count */
};
struct cache_geom ccsidr_decode(uint32_t ccsidr);
/* The 0-based level of the last data or unified cache CLIDR (B4.1.20)
 * names, or -1 */
int clidr_last_data_level(uint32_t clidr);

#endif
