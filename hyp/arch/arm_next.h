/*
 * Where a vCPU goes next: the address of the instruction after the one at
 * its PC, for gdb's single step (gdb_step.c).  ARMv7 has no step bit, and
 * the unlinked address-mismatch breakpoint that would do it (DBGBCR.BT
 * 0b0100, ARM DDI 0406C C11.11.7) is not implemented by QEMU 7.2 nor
 * 10.0 (their target/arm/debug_helper.c logs "address mismatch breakpoint
 * types not implemented" and never matches): so the stub steps in software, with a
 * BKPT on the one instruction that runs next.
 *
 * The instruction is decoded here, its condition (the ARM cond field, a
 * Thumb B<c>'s own, or the IT block's from CPSR.IT, A2.5.2) evaluated on
 * the flags: a condition that fails, or an instruction that does not write
 * the PC, goes on to the next one; a branch (B, BL, BLX, BX, CBZ/CBNZ,
 * TBB/TBH), a load of the PC (LDR, LDM, POP) and MOV/ADD/SUB to the PC are
 * followed.  An exception return (SUBS PC, LR; LDM ^; RFE) and other ALU
 * writes of the PC are not: arm_next answers false for them.
 *
 * Pure (no hypervisor state): unit-tested on the host.
 */
#ifndef HYP_CONSOLE_GDB_ARM_NEXT_H
#define HYP_CONSOLE_GDB_ARM_NEXT_H

#include <stdint.h>
#include <stdbool.h>

struct arm_next_ctx {
    uint32_t r[16];         /* r[15]: the address of the instruction */
    uint32_t cpsr;          /* its flags, T and IT */
    /* n (1, 2 or 4) bytes at a virtual address, little-endian; false: faults */
    bool (*read)(void *arg, uint32_t addr, uint32_t n, uint32_t *val);
    void *arg;
};

/* The next instruction's address into *next, bit 0 set for Thumb state;
 * false: the instruction cannot be read or is one not followed */
bool arm_next(const struct arm_next_ctx *c, uint32_t *next);

#endif
