/*
 * Starting a secondary CPU that waits in a firmware pen for an entry
 * address (spin-table, Versatile Express system flags): which stores, in
 * which order, release it.  Pure, so the host unit tests check the plans;
 * boot/smp.c and boot/prehyp.c carry them out.
 */
#ifndef HYP_CPU_RELEASE_H
#define HYP_CPU_RELEASE_H

#include <stdint.h>
#include "platform.h"

struct release_write {
    uint64_t pa;            /* physical address */
    uint32_t size;          /* 4 or 8 bytes */
    uint64_t value;
};

#define RELEASE_MAX_WRITES 2

/*
 * The stores that send CPU c to entry_pa, in order, into w; returns how
 * many (0: c is not started by a release address).  After them the caller
 * makes the stores visible to a CPU running with its caches off (clean to
 * PoC, DSB) and wakes it: SEV for a WFE pen, an SGI for a WFI pen.
 */
unsigned int cpu_release_plan(const struct plat_cpu *c, uint32_t entry_pa,
                              struct release_write w[RELEASE_MAX_WRITES]);

#endif
