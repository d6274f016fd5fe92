/*
 * Cache maintenance by address (ARM ARM B2.2.6, B4.2.1).  QEMU models no
 * caches, so a missing clean or invalidate here never shows in a test: each
 * caller says why it needs one.
 */
#ifndef MM_CACHE_H
#define MM_CACHE_H

#include <stdint.h>
#include <stdbool.h>

/* clean [va, va+len) to the point of coherency */
void dcache_clean_range(const void *va, uint32_t len);
/* clean and invalidate [va, va+len) to the point of coherency */
void dcache_clean_inval_range(const void *va, uint32_t len);
/* zero [va, va+len) and clean it to the point of coherency: one pass over
 * a guest's RAM instead of a memset and a clean */
void dcache_zero_clean(void *va, uint32_t len);
/* drop every instruction cache and branch predictor entry, all CPUs */
void icache_invalidate_all(void);

/* The last-level data or unified cache, read from CLIDR/CCSIDR: its 0-based
 * level and geometry; false if the CPU names none */
#include "setway.h"
bool cache_llc(unsigned int *level, struct cache_geom *g);

#endif
