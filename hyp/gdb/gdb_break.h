/*
 * gdb's software breakpoints (Z0/z0) in a guest's code: a BKPT written
 * through the guest's own translation, the instruction it replaced kept to
 * put back.  One session at a time (gdb_stub.c); answers are gdb's ("OK",
 * "E01").
 */
#ifndef HYP_CONSOLE_GDB_BREAK_H
#define HYP_CONSOLE_GDB_BREAK_H

#include <stdint.h>
#include <stddef.h>
#include "gdb_guest.h"
#include "rsp.h"

/* kind 4: an ARM BKPT; 2 or 3: a Thumb one (in the first halfword of a
 * 32-bit instruction); addresses as vCPU v sees them */
const char *gdb_bp_insert(struct vcpu *v, uint32_t addr, uint32_t kind);
const char *gdb_bp_remove(struct vcpu *v, uint32_t addr);
/* every one out (the session ends) */
void gdb_bp_remove_all(struct vcpu *v);
/* every one dropped, nothing written: the session ends on a guest whose
 * memory is no longer gdb's (stopped or restarted from under it) */
void gdb_bp_forget_all(void);

/* a Z or z request: Z0 BKPTs (above), Z1-Z4 gdb's comparators in the
 * debug registers (hyp/arch/debug.h: the highest-numbered ones); gdb's
 * answer ("" for a type not offered) */
const char *gdb_bp_request(struct vcpu *v, const struct rsp_cmd *c);
/* the session ends: gdb's comparators go, the guest's own come back as
 * each vCPU is loaded again */
void gdb_hw_release(struct guest *g);
/* v stopped on one of gdb's watchpoints: its stop reply (T05watch:addr;
 * rwatch, awatch) into buf; false if it did not */
bool gdb_watch_stop(struct vcpu *v, char *buf, size_t size);

/* gdb's single step (gdb_step.c): a BKPT of our own at addr (bit 0: a
 * Thumb one) unless one of gdb's is there; out again when the step ends.
 * One at a time. */
bool gdb_bp_step_insert(struct vcpu *v, uint32_t addr);
void gdb_bp_step_remove(void);

#endif
