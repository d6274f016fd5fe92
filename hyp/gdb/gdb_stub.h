/*
 * A gdb remote stub per guest over the board's one console:
 * `gdb NAME` at the monitor halts that guest's vCPUs (only them: the other
 * partitions run on) and turns the console over to the GDB Remote Serial
 * Protocol (rsp.h) until gdb detaches or kills it; everything else the
 * hypervisor and the other guests print meanwhile is held and printed
 * afterwards (console_hold) - unless the host DT gives the debugger a UART
 * of its own (gdb_port.h): then the console stays the monitor's.  Ctrl-A
 * three times between packets detaches for a gdb that went away without
 * doing so.  Threads are the guest's vCPUs (thread n + 1 is vCPU n);
 * registers r0-r12, SP, LR, PC and CPSR in the vCPU's current mode, and
 * the VFP's (gdb_vfp.h); memory at the guest's virtual addresses,
 * through its own stage 1 and Stage-2, in its own RAM only; software
 * breakpoints, gdb's comparators and single step (gdb_break.h, gdb_step.h).
 */
#ifndef HYP_CONSOLE_GDB_STUB_H
#define HYP_CONSOLE_GDB_STUB_H

#include <stdbool.h>
#include "gdb_guest.h"

/* Start a session on g (from the monitor, when none is on); false: it
 * is not running */
bool gdb_attach(struct guest *g);
/* Is a session on (with g; NULL: with any guest)?  Then every input
 * character of its line is gdb's. */
bool gdb_active(const struct guest *g);
/* One character from the session's line; true when the session just ended */
bool gdb_input(char c);
/* A vCPU of the guest hit a breakpoint: tell gdb (the boot CPU's
 * housekeeping, which the breakpoint's trap asked for) */
void gdb_poll(void);
/* gdb's '+' for the reply that ended a session: not for the monitor */
bool gdb_trailing_ack(char c);

#endif
