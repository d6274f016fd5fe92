/*
 * gdb's core registers of a halted vCPU (gdb_stub.h): r0-r15 in the vCPU's
 * current mode and the CPSR as gdb numbers them (0-15, 25), read for g and
 * p and written for G and P.  A write is checked whole before anything is
 * written: a CPSR only as hyp/arch/psr.h allows it (never Hyp, Monitor or
 * a reserved mode), a G all or nothing.  No hardware here: the host unit
 * test (tests/unit/gdb/test_gdb_regs.c) and the fuzz target
 * (tests/unit/fuzz_gdb_regs.c) drive it on a vCPU of their own.
 */
#ifndef HYP_CONSOLE_GDB_REGS_H
#define HYP_CONSOLE_GDB_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include "hyp/arch/vcpu.h"
#include "rsp.h"

/* gdb's numbering with our target description: r0-r15, then CPSR at 25 */
#define GDB_NCORE     16u
#define GDB_REG_CPSR  25u
/* a G packet: r0-r15 and the CPSR, eight hex digits each */
#define GDB_G_REGS    (GDB_NCORE + 1u)

/* The register gdb numbers n, or NULL if it is not a core register */
uint32_t *gdb_reg_at(struct vcpu *v, unsigned int n);
/* P n=val of a core register: false (nothing written) if n is not one or
 * val is refused */
bool gdb_reg_write(struct vcpu *v, unsigned int n, uint32_t val);
/* g: every core register into tx, in gdb's order */
void gdb_regs_read(struct vcpu *v, struct rsp_tx *tx);
/* G: len hex digits for the first len / 8 core registers (gdb's order);
 * false, and nothing written, if any one is malformed or refused */
bool gdb_regs_write(struct vcpu *v, const char *hex, size_t len);
/* qXfer:features:read of c into tx (begun): the target description's piece
 * c asks for; false, nothing written, for an annex other than target.xml */
bool gdb_features_read(const struct rsp_cmd *c, struct rsp_tx *tx);

#endif
