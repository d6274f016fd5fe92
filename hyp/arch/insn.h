/*
 * ARMv7 instruction-stream corner cases for trapped instructions: the
 * condition check (ARM ARM B3.13.4: a conditional instruction may trap
 * even when its condition fails) and stepping the PC over 16- or 32-bit
 * instructions with the Thumb IT state advanced (A2.5.2, ITAdvance()),
 * and an LDC/STC's base register writeback.  Pure functions of PC, CPSR
 * and HSR, unit tested on the host.
 */
#ifndef HYP_INSN_H
#define HYP_INSN_H

#include <stdint.h>
#include <stdbool.h>

/* ITSTATE from a CPSR: IT[7:2] = CPSR[15:10], IT[1:0] = CPSR[26:25] */
uint32_t insn_itstate(uint32_t cpsr);
/* Condition of a trapped instruction: HSR.CV/COND, else the IT block */
bool insn_condition_passed(uint32_t cpsr, uint32_t hsr);
/* Does condition code cond (0..15) pass for the NZCV flags in cpsr? */
bool insn_cond_holds(uint32_t cond, uint32_t cpsr);
/* Step over the instruction (is32: HSR.IL) and advance the IT state */
void insn_skip(uint32_t *pc, uint32_t *cpsr, bool is32);
/*
 * A trapped LDC/STC's base register writeback (HSR ISS for EC 0x06,
 * B3.13.6): true and *rn_out the base register's new value (rn, the
 * register's value, moved by imm8 words) for the post- and pre-indexed
 * forms; false for the forms that leave it as it is.
 */
bool insn_ls_writeback(uint32_t hsr, uint32_t rn, uint32_t *rn_out);

#endif
