/*
 * gdb's comparators (hyp/arch/debug.h, struct debug_gdb): which one a
 * Z1-Z4 takes, the hardware value it gets, and whether a debug event was
 * one of them (debug_gdb.c; pure).
 */
#ifndef HYP_GDB_DEBUG_GDB_H
#define HYP_GDB_DEBUG_GDB_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/arch/debug.h"

/* Z1 at addr (kind 4: ARM, 2 or 3: Thumb) among nbrp breakpoints: the
 * comparator, or -1 (none free, a misaligned address) */
int debug_gdb_bp_add(struct debug_gdb *g, unsigned int nbrp, uint32_t addr, uint32_t kind);
bool debug_gdb_bp_del(struct debug_gdb *g, uint32_t addr);
/* gdb's breakpoint at the instruction at pc, or -1 */
int debug_gdb_bp_match(const struct debug_gdb *g, uint32_t pc);
/* Z2-Z4 on len bytes at addr, within one word; -1 if none is free */
int debug_gdb_wp_add(struct debug_gdb *g, unsigned int nwrp, uint32_t addr, uint32_t len,
                     enum debug_gdb_watch type);
bool debug_gdb_wp_del(struct debug_gdb *g, uint32_t addr, uint32_t len,
                      enum debug_gdb_watch type);
/* gdb's watchpoint hit by an access at far (the DFAR of the event), or -1 */
int debug_gdb_wp_match(const struct debug_gdb *g, uint32_t far);
enum debug_gdb_watch debug_gdb_wp_type(const struct debug_gdb *g, int n);

#endif
