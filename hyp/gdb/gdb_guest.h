/* gdb's hold on a guest and the memory access it uses. */
#ifndef HYP_GDB_GDB_GUEST_H
#define HYP_GDB_GDB_GUEST_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/guest/guest.h"

/*
 * gdb's hold on a guest (gdb_guest.c, used by the stub):
 * halt takes every vCPU of g off its CPU and keeps it off (false: one did
 * not leave, or its CPU did not reset it for a life just begun, within
 * GUEST_DEBUG_HALT_US); resume lets them run again.  While halted, a
 * debugger reads and writes n bytes at virtual address va as vCPU v sees
 * them (its stage 1, the guest's Stage-2), only in the guest's own RAM:
 * returns the bytes done, which stop at the first page that faults.
 */
/* Five seconds: a vCPU leaves at its next exit, but under QEMU on a loaded
 * host the kicked CPU has been seen to settle just past one second (three
 * fresh-clone runs, "did not stop in time" with no vCPU unsettled a moment
 * later); the bound only ends a wait for a CPU that does not answer. */
#define GUEST_DEBUG_HALT_US 5000000u
bool guest_debug_halt(struct guest *g);
/* are they halted still: every vCPU asked to stay off its CPU and off it,
 * its CPU done with any start of it?  (false after a halt that timed out,
 * or a restart from under gdb) */
bool guest_debug_held(struct guest *g);
void guest_debug_resume(struct guest *g);
/* only v runs again (a single step), the others stay halted */
void guest_debug_resume_vcpu(struct vcpu *v);
uint32_t guest_debug_access(struct vcpu *v, uint32_t va, void *buf, uint32_t n, bool write);
/* the trap layer's hook for a debug exception of v while gdb is attached
 * (HDCR.TDE, trap_hooks.debug_hit): true if it was gdb's - a BKPT or a hit
 * of one of gdb's comparators - and v's guest stopped for it */
bool gdb_debug_hit(struct vcpu *v, uint32_t hsr, uint32_t far, bool data);

#endif
