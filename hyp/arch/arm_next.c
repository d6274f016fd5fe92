/* The next instruction of a vCPU, for gdb's single step (arm_next.h).
 * Encodings: ARM DDI 0406C A5 (ARM) and A6 (Thumb). */
#include <arch/sysregs.h>
#include "arm_next.h"
#include "hyp/arch/insn.h"

#define THUMB_BIT 1u

static uint32_t sext(uint32_t v, unsigned int bits)
{
    uint32_t m = (unsigned int)1u << (bits - 1u);
    return (v ^ m) - m;
}

static uint32_t popcount16(uint32_t v)
{
    return (uint32_t)__builtin_popcount(v & 0xffffu);
}

/* a register as an instruction reads it: the PC is the instruction + 8
 * (ARM) or + 4 (Thumb), A2.3 */
static uint32_t reg(const struct arm_next_ctx *c, uint32_t n, bool thumb)
{
    return (n == 15u) ? (c->r[15] + (thumb ? 4u : 8u)) : c->r[n];
}

/* LoadWritePC / BXWritePC (A2.3.2): bit 0 chooses the instruction set */
static bool load_pc(const struct arm_next_ctx *c, uint32_t addr, uint32_t *next)
{
    uint32_t v;
    if (!c->read(c->arg, addr, 4, &v)) {
        return false;
    }
    *next = (v & THUMB_BIT) ? v : (v & ~3u);
    return true;
}

/* ARM: data processing to the PC (A5.2): MOV, ADD, SUB with an immediate
 * or an unshifted / LSL register; ALUWritePC interworks (A2.3.2) */
static bool arm_alu_pc(const struct arm_next_ctx *c, uint32_t in, uint32_t *next)
{
    uint32_t op = (in >> 21) & 0xfu, op2;
    if ((in & ((unsigned int)1u << 20)) != 0u) {
        return false;           /* S with Rd = PC: an exception return */
    }
    if ((in & ((unsigned int)1u << 25)) != 0u) {
        uint32_t rot = ((in >> 8) & 0xfu) * 2u, imm = in & 0xffu;
        op2 = rot ? (imm >> rot) | (imm << (32u - rot)) : imm;
    } else if ((in & 0x70u) == 0u) {  /* LSL #imm5 */
        op2 = reg(c, in & 0xfu, false) << ((in >> 7) & 0x1fu);
    } else {
        return false;
    }
    uint32_t rn = reg(c, (in >> 16) & 0xfu, false), v;
    switch (op) {
    case 0xd: v = op2; break;           /* MOV */
    case 0x4: v = rn + op2; break;      /* ADD */
    case 0x2: v = rn - op2; break;      /* SUB */
    default: return false;
    }
    *next = (v & THUMB_BIT) ? v : (v & ~3u);
    return true;
}

/* ARM: LDR PC (A5.3, word, not byte) and LDM with the PC (A5.5) */
static bool arm_load_pc(const struct arm_next_ctx *c, uint32_t in, uint32_t *next)
{
    uint32_t rn = reg(c, (in >> 16) & 0xfu, false);
    bool p = (in & ((unsigned int)1u << 24)) != 0u;
    bool u = (in & ((unsigned int)1u << 23)) != 0u;
    if ((in & 0x0e000000u) == 0x08000000u) {         /* LDM */
        if ((in & ((unsigned int)1u << 22)) != 0u) {
            return false;       /* LDM ^ with the PC: an exception return */
        }
        uint32_t n = popcount16(in);
        uint32_t addr = u ? (rn + (4u * (n - 1u)) + (p ? 4u : 0u)) : (rn - (p ? 4u : 0u));
        return load_pc(c, addr, next);
    }
    uint32_t off;
    if ((in & ((unsigned int)1u << 25)) != 0u) {
        if ((in & 0x70u) != 0u) {
            return false;       /* a register offset shifted other than LSL */
        }
        off = reg(c, in & 0xfu, false) << ((in >> 7) & 0x1fu);
    } else {
        off = in & 0xfffu;
    }
    return load_pc(c, p ? (u ? rn + off : rn - off) : rn, next);
}

static bool arm_next_arm(const struct arm_next_ctx *c, uint32_t in, uint32_t *next)
{
    uint32_t pc = c->r[15], cond = in >> 28;
    *next = pc + 4u;
    if (cond == 0xfu) {
        if ((in & 0xfe000000u) == 0xfa000000u) {     /* BLX imm: to Thumb */
            *next = (pc + 8u + (sext(in & 0xffffffu, 24) << 2) + ((in >> 23) & 2u)) | THUMB_BIT;
            return true;
        }
        return (in & 0xfe500000u) != 0xf8100000u;    /* RFE: an exception return */
    }
    if (!insn_cond_holds(cond, c->cpsr)) {
        return true;
    }
    if ((in & 0x0e000000u) == 0x0a000000u) {         /* B, BL */
        *next = pc + 8u + (sext(in & 0xffffffu, 24) << 2);
        return true;
    }
    if ((in & 0x0fffffd0u) == 0x012fff10u) {         /* BX, BLX reg */
        uint32_t v = reg(c, in & 0xfu, false);
        *next = (v & THUMB_BIT) ? v : (v & ~3u);
        return true;
    }
    bool writes_pc = ((in >> 12) & 0xfu) == 15u;
    bool media = (in & 0x0e000010u) == 0x06000010u;
    if ((in & 0x0c500000u) == 0x04100000u && writes_pc && !media) {  /* LDR PC */
        return arm_load_pc(c, in, next);
    }
    if ((in & 0x0e108000u) == 0x08108000u) {                /* LDM {.., PC} */
        return arm_load_pc(c, in, next);
    }
    if ((in & 0x0c000000u) == 0u && writes_pc) {
        if ((in & 0x01900000u) == 0x01000000u) {
            return true;        /* op1 10xx0: misc., MOVW/MOVT, MSR: no PC write */
        }
        if (!(in & ((unsigned int)1u << 25)) && (in & 0x10u)) {
            /* a register-shifted register: not followed; multiply, extra loads */
            return (in & 0x90u) != 0x10u;
        }
        return arm_alu_pc(c, in, next);
    }
    return true;
}

/* Thumb, 16-bit (A6.2) */
static bool thumb16(const struct arm_next_ctx *c, uint32_t in, bool in_it, uint32_t *next)
{
    uint32_t pc = c->r[15];
    *next = (pc + 2u) | THUMB_BIT;
    if ((in & 0xf000u) == 0xd000u && !in_it) {       /* B<c> T1 (cond 111x: UDF, SVC) */
        uint32_t cond = (in >> 8) & 0xfu;
        if (cond < 0xeu && insn_cond_holds(cond, c->cpsr)) {
            *next = (pc + 4u + (sext(in & 0xffu, 8) << 1)) | THUMB_BIT;
        }
        return true;
    }
    if ((in & 0xf800u) == 0xe000u) {                 /* B T2 */
        *next = (pc + 4u + (sext(in & 0x7ffu, 11) << 1)) | THUMB_BIT;
        return true;
    }
    if ((in & 0xff00u) == 0x4700u) {                 /* BX, BLX reg */
        uint32_t v = reg(c, (in >> 3) & 0xfu, true);
        *next = (v & THUMB_BIT) ? v : (v & ~3u);
        return true;
    }
    if ((in & 0xf500u) == 0xb100u) {                 /* CBZ, CBNZ */
        bool nonzero = (in & ((unsigned int)1u << 11)) != 0u;
        uint32_t off = ((in >> 3) & 0x1fu) << 1 | ((in >> 9) & 1u) << 6;
        if ((c->r[in & 7u] != 0u) == nonzero) {
            *next = (pc + 4u + off) | THUMB_BIT;
        }
        return true;
    }
    if ((in & 0xff00u) == 0xbd00u) {                   /* POP {.., PC} */
        return load_pc(c, c->r[13] + 4u * popcount16(in & 0xffu), next);
    }
    if ((in & 0xfd00u) == 0x4400u && ((in >> 4 & 8u) | (in & 7u)) == 15u) {
        /* ADD PC, Rm / MOV PC, Rm: BranchWritePC, stays Thumb (A2.3.2) */
        uint32_t v = reg(c, (in >> 3) & 0xfu, true);
        if (!(in & 0x0200u)) {
            v += pc + 4u;
        }
        *next = (v & ~1u) | THUMB_BIT;
    }
    return true;
}

/* Thumb, 32-bit branches and misc. control (A6.3.4) */
static bool thumb32_branch(const struct arm_next_ctx *c, uint32_t hw1, uint32_t hw2,
                           uint32_t *next)
{
    uint32_t pc = c->r[15], s = (hw1 >> 10) & 1u, j1 = (hw2 >> 13) & 1u, j2 = (hw2 >> 11) & 1u;
    if ((hw2 & 0x5000u) == 0u) {                     /* B<c> T3, or misc. control */
        uint32_t cond = (hw1 >> 6) & 0xfu;
        if ((cond & 0xeu) == 0xeu) {
            return !(hw1 == 0xf3deu && (hw2 & 0xff00u) == 0x8f00u);   /* SUBS PC, LR */
        }
        if (insn_cond_holds(cond, c->cpsr)) {
            uint32_t imm = s << 20 | j2 << 19 | j1 << 18 | (hw1 & 0x3fu) << 12 | (hw2 & 0x7ffu) << 1;
            *next = (pc + 4u + sext(imm, 21)) | THUMB_BIT;
        }
        return true;
    }
    uint32_t i1 = 0u;
    uint32_t i2 = 0u;
    if (j1 == s) {
        i1 = 1u;
    }
    if (j2 == s) {
        i2 = 1u;
    }
    uint32_t imm = sext(s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3ffu) << 12 | (hw2 & 0x7ffu) << 1,
                        25);
    if ((hw2 & 0x1000u) != 0u) {                               /* B T4, BL */
        *next = (pc + 4u + imm) | THUMB_BIT;
    } else {                                            /* BLX imm: to ARM */
        *next = ((pc + 4u) & ~3u) + (imm & ~3u);
    }
    return true;
}

/* Thumb, 32-bit loads of the PC: LDR (A8.8.62-64), LDM/POP, TBB/TBH */
static bool thumb32_load(const struct arm_next_ctx *c, uint32_t hw1, uint32_t hw2,
                         uint32_t *next, bool *done)
{
    uint32_t rn = reg(c, hw1 & 0xfu, true), v;
    *done = true;
    if ((hw1 & 0xfff0u) == 0xe8d0u && (hw2 & 0xffe0u) == 0xf000u) {     /* TBB, TBH */
        bool h = (hw2 & 0x10u) != 0u;
        uint32_t rm = c->r[hw2 & 0xfu];
        if (!c->read(c->arg, rn + (h ? 2u * rm : rm), h ? 2 : 1, &v)) {
            return false;
        }
        *next = (c->r[15] + 4u + 2u * v) | THUMB_BIT;
        return true;
    }
    if ((hw1 & 0xffd0u) == 0xe890u && (hw2 & 0x8000u)) {                 /* LDMIA {.., PC} */
        return load_pc(c, rn + 4u * (popcount16(hw2) - 1u), next);
    }
    if ((hw1 & 0xffd0u) == 0xe910u && (hw2 & 0x8000u)) {                 /* LDMDB {.., PC} */
        return load_pc(c, rn - 4u, next);
    }
    if ((hw2 >> 12) == 15u && (hw1 & 0xff7fu) == 0xf85fu) {            /* LDR PC, literal */
        uint32_t base = (c->r[15] + 4u) & ~3u, off = hw2 & 0xfffu;
        return load_pc(c, (hw1 & 0x80u) ? base + off : base - off, next);
    }
    if ((hw2 >> 12) == 15u && (hw1 & 0xfff0u) == 0xf8d0u) {             /* LDR PC, [Rn, #imm12] */
        return load_pc(c, rn + (hw2 & 0xfffu), next);
    }
    if ((hw2 >> 12) == 15u && (hw1 & 0xfff0u) == 0xf850u) {
        if ((hw2 & 0x0800u) != 0u) {                                         /* #imm8, P U W */
            uint32_t off = hw2 & 0xffu, a = (hw2 & 0x200u) ? rn + off : rn - off;
            return load_pc(c, (hw2 & 0x400u) ? a : rn, next);
        }
        if ((hw2 & 0x0fc0u) == 0u) {                                    /* [Rn, Rm, LSL #n] */
            return load_pc(c, rn + (c->r[hw2 & 0xfu] << ((hw2 >> 4) & 3u)), next);
        }
    }
    *done = false;
    return true;
}

bool arm_next(const struct arm_next_ctx *c, uint32_t *next)
{
    uint32_t pc = c->r[15], hw1, hw2;
    if ((c->cpsr & PSR_T) == 0u) {
        uint32_t in;
        return c->read(c->arg, pc, 4, &in) && arm_next_arm(c, in, next);
    }
    if (!c->read(c->arg, pc, 2, &hw1)) {
        return false;
    }
    uint32_t it = insn_itstate(c->cpsr);
    bool in_it = (it & 0xfu) != 0u;
    bool wide = (hw1 >> 11) >= 0x1du;
    if (in_it && !insn_cond_holds(it >> 4, c->cpsr)) {
        *next = (pc + (wide ? 4u : 2u)) | THUMB_BIT;     /* skipped, as a NOP */
        return true;
    }
    if (!wide) {
        return thumb16(c, hw1, in_it, next);
    }
    if (!c->read(c->arg, pc + 2u, 2, &hw2)) {
        return false;
    }
    *next = (pc + 4u) | THUMB_BIT;
    if ((hw1 & 0xf800u) == 0xf000u && (hw2 & 0x8000u)) {
        return thumb32_branch(c, hw1, hw2, next);
    }
    bool done;
    return thumb32_load(c, hw1, hw2, next, &done);
}
