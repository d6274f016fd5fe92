/*
 * gdb's software breakpoints (Z0/z0) in a guest's code: a BKPT written
 * through the guest's own translation, the instruction it replaced kept to
 * put back.  One session at a time (gdb_stub.c); answers are gdb's ("OK",
 * "E01").
 */
#ifndef HYP_CONSOLE_GDB_BREAK_H
#define HYP_CONSOLE_GDB_BREAK_H

#include <stdint.h>
#include "hyp/guest/guest.h"

/* kind 4: an ARM BKPT; 2 or 3: a Thumb one (in the first halfword of a
 * 32-bit instruction); addresses as vCPU v sees them */
const char *gdb_bp_insert(struct vcpu *v, uint32_t addr, uint32_t kind);
const char *gdb_bp_remove(struct vcpu *v, uint32_t addr);
/* every one out (the session ends) */
void gdb_bp_remove_all(struct vcpu *v);

/* gdb's single step (gdb_step.c): a BKPT of our own at addr (bit 0: a
 * Thumb one) unless one of gdb's is there; out again when the step ends.
 * One at a time. */
bool gdb_bp_step_insert(struct vcpu *v, uint32_t addr);
void gdb_bp_step_remove(void);

#endif
