/*
 * gdb's single step (`s`) of one vCPU: the next instruction found by
 * arm_next.c (QEMU 7.2 and 10.0 have no address-mismatch breakpoint, see
 * arm_next.h), a BKPT of the stub's own there (gdb_break.c), and only that
 * vCPU resumed; its BKPT trap (HDCR.TDE) is the step's end.  An interrupt
 * or exception taken on the way runs its handler first (the step ends
 * where the handler returns to), as with gdb's own software single step.
 */
#ifndef HYP_CONSOLE_GDB_STEP_H
#define HYP_CONSOLE_GDB_STEP_H

#include <stdbool.h>
#include "gdb_guest.h"

/* the step's BKPT in: false if the next instruction cannot be told (the
 * PC unreadable, an exception return): gdb gets an E reply */
bool gdb_step_begin(struct vcpu *v);

#endif
