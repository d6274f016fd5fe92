/* The next instruction of a vCPU, for gdb's single step (arm_next.h).
 * Encodings: ARM DDI 0406C A5 (ARM) and A6 (Thumb). */
#include <arch/sysregs.h>
#include "arm_next.h"
#include "hyp/arch/insn.h"

#define THUMB_BIT 1u

static uint32_t sext(uint32_t v, unsigned int bits)
{
    uint32_t m = 1u << (bits - 1);
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
    return n == 15 ? c->r[15] + (thumb ? 4 : 8) : c->r[n];
}

/* LoadWritePC / BXWritePC (A2.3.2): bit 0 chooses the instruction set */
static bool load_pc(const struct arm_next_ctx *c, uint32_t addr, uint32_t *next)
{
    uint32_t v;
    if (!c->read(c->arg, addr, 4, &v))
        return false;
    *next = (v & THUMB_BIT) ? v : (v & ~3u);
    return true;
}

/* ARM: data processing to the PC (A5.2): MOV, ADD, SUB with an immediate
 * or an unshifted / LSL register; ALUWritePC interworks (A2.3.2) */
static bool arm_alu_pc(const struct arm_next_ctx *c, uint32_t in, uint32_t *next)
{
    uint32_t op = (in >> 21) & 0xf, op2;
    if (in & (1u << 20))
        return false;           /* S with Rd = PC: an exception return */
    if (in & (1u << 25)) {
        uint32_t rot = ((in >> 8) & 0xf) * 2, imm = in & 0xff;
        op2 = rot ? (imm >> rot) | (imm << (32 - rot)) : imm;
    } else if ((in & 0x70) == 0) {  /* LSL #imm5 */
        op2 = reg(c, in & 0xf, false) << ((in >> 7) & 0x1f);
    } else {
        return false;
    }
    uint32_t rn = reg(c, (in >> 16) & 0xf, false), v;
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
    uint32_t rn = reg(c, (in >> 16) & 0xf, false);
    bool p = in & (1u << 24), u = in & (1u << 23);
    if ((in & 0x0e000000) == 0x08000000) {         /* LDM */
        if (in & (1u << 22))
            return false;       /* LDM ^ with the PC: an exception return */
        uint32_t n = popcount16(in);
        uint32_t addr = u ? rn + 4 * (n - 1) + (p ? 4 : 0) : rn - (p ? 4 : 0);
        return load_pc(c, addr, next);
    }
    uint32_t off;
    if (in & (1u << 25)) {
        if (in & 0x70)
            return false;       /* a register offset shifted other than LSL */
        off = reg(c, in & 0xf, false) << ((in >> 7) & 0x1f);
    } else {
        off = in & 0xfff;
    }
    return load_pc(c, p ? (u ? rn + off : rn - off) : rn, next);
}

static bool arm_next_arm(const struct arm_next_ctx *c, uint32_t in, uint32_t *next)
{
    uint32_t pc = c->r[15], cond = in >> 28;
    *next = pc + 4;
    if (cond == 0xf) {
        if ((in & 0xfe000000) == 0xfa000000) {     /* BLX imm: to Thumb */
            *next = (pc + 8 + (sext(in & 0xffffff, 24) << 2) + ((in >> 23) & 2)) | THUMB_BIT;
            return true;
        }
        return (in & 0xfe500000) != 0xf8100000;    /* RFE: an exception return */
    }
    if (!insn_cond_holds(cond, c->cpsr))
        return true;
    if ((in & 0x0e000000) == 0x0a000000) {         /* B, BL */
        *next = pc + 8 + (sext(in & 0xffffff, 24) << 2);
        return true;
    }
    if ((in & 0x0fffffd0) == 0x012fff10) {         /* BX, BLX reg */
        uint32_t v = reg(c, in & 0xf, false);
        *next = (v & THUMB_BIT) ? v : (v & ~3u);
        return true;
    }
    bool writes_pc = ((in >> 12) & 0xf) == 15;
    bool media = (in & 0x0e000010) == 0x06000010;
    if ((in & 0x0c500000) == 0x04100000 && writes_pc && !media)  /* LDR PC */
        return arm_load_pc(c, in, next);
    if ((in & 0x0e108000) == 0x08108000)                /* LDM {.., PC} */
        return arm_load_pc(c, in, next);
    if ((in & 0x0c000000) == 0 && writes_pc) {
        if ((in & 0x01900000) == 0x01000000)
            return true;        /* op1 10xx0: misc., MOVW/MOVT, MSR: no PC write */
        if (!(in & (1u << 25)) && (in & 0x10))
            return (in & 0x90) != 0x10;     /* a register-shifted register: not
                                             * followed; multiply, extra loads */
        return arm_alu_pc(c, in, next);
    }
    return true;
}

/* Thumb, 16-bit (A6.2) */
static bool thumb16(const struct arm_next_ctx *c, uint32_t in, bool in_it, uint32_t *next)
{
    uint32_t pc = c->r[15];
    *next = (pc + 2) | THUMB_BIT;
    if ((in & 0xf000) == 0xd000 && !in_it) {       /* B<c> T1 (cond 111x: UDF, SVC) */
        uint32_t cond = (in >> 8) & 0xf;
        if (cond < 0xe && insn_cond_holds(cond, c->cpsr))
            *next = (pc + 4 + (sext(in & 0xff, 8) << 1)) | THUMB_BIT;
        return true;
    }
    if ((in & 0xf800) == 0xe000) {                 /* B T2 */
        *next = (pc + 4 + (sext(in & 0x7ff, 11) << 1)) | THUMB_BIT;
        return true;
    }
    if ((in & 0xff00) == 0x4700) {                 /* BX, BLX reg */
        uint32_t v = reg(c, (in >> 3) & 0xf, true);
        *next = (v & THUMB_BIT) ? v : (v & ~3u);
        return true;
    }
    if ((in & 0xf500) == 0xb100) {                 /* CBZ, CBNZ */
        bool nonzero = in & (1u << 11);
        uint32_t off = ((in >> 3) & 0x1f) << 1 | ((in >> 9) & 1) << 6;
        if ((c->r[in & 7] != 0) == nonzero)
            *next = (pc + 4 + off) | THUMB_BIT;
        return true;
    }
    if ((in & 0xff00) == 0xbd00)                   /* POP {.., PC} */
        return load_pc(c, c->r[13] + 4 * popcount16(in & 0xff), next);
    if ((in & 0xfd00) == 0x4400 && ((in >> 4 & 8) | (in & 7)) == 15) {
        /* ADD PC, Rm / MOV PC, Rm: BranchWritePC, stays Thumb (A2.3.2) */
        uint32_t v = reg(c, (in >> 3) & 0xf, true);
        if (!(in & 0x0200))
            v += pc + 4;
        *next = (v & ~1u) | THUMB_BIT;
    }
    return true;
}

/* Thumb, 32-bit branches and misc. control (A6.3.4) */
static bool thumb32_branch(const struct arm_next_ctx *c, uint32_t hw1, uint32_t hw2,
                           uint32_t *next)
{
    uint32_t pc = c->r[15], s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
    if ((hw2 & 0x5000) == 0) {                     /* B<c> T3, or misc. control */
        uint32_t cond = (hw1 >> 6) & 0xf;
        if ((cond & 0xe) == 0xe)
            return !(hw1 == 0xf3de && (hw2 & 0xff00) == 0x8f00);   /* SUBS PC, LR */
        if (insn_cond_holds(cond, c->cpsr)) {
            uint32_t imm = s << 20 | j2 << 19 | j1 << 18 | (hw1 & 0x3f) << 12 | (hw2 & 0x7ff) << 1;
            *next = (pc + 4 + sext(imm, 21)) | THUMB_BIT;
        }
        return true;
    }
    uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
    uint32_t imm = sext(s << 24 | i1 << 23 | i2 << 22 | (hw1 & 0x3ff) << 12 | (hw2 & 0x7ff) << 1,
                        25);
    if (hw2 & 0x1000)                               /* B T4, BL */
        *next = (pc + 4 + imm) | THUMB_BIT;
    else                                            /* BLX imm: to ARM */
        *next = ((pc + 4) & ~3u) + (imm & ~3u);
    return true;
}

/* Thumb, 32-bit loads of the PC: LDR (A8.8.62-64), LDM/POP, TBB/TBH */
static bool thumb32_load(const struct arm_next_ctx *c, uint32_t hw1, uint32_t hw2,
                         uint32_t *next, bool *done)
{
    uint32_t rn = reg(c, hw1 & 0xf, true), v;
    *done = true;
    if ((hw1 & 0xfff0) == 0xe8d0 && (hw2 & 0xffe0) == 0xf000) {     /* TBB, TBH */
        bool h = hw2 & 0x10;
        uint32_t rm = c->r[hw2 & 0xf];
        if (!c->read(c->arg, rn + (h ? 2 * rm : rm), h ? 2 : 1, &v))
            return false;
        *next = (c->r[15] + 4 + 2 * v) | THUMB_BIT;
        return true;
    }
    if ((hw1 & 0xffd0) == 0xe890 && (hw2 & 0x8000))                 /* LDMIA {.., PC} */
        return load_pc(c, rn + 4 * (popcount16(hw2) - 1), next);
    if ((hw1 & 0xffd0) == 0xe910 && (hw2 & 0x8000))                 /* LDMDB {.., PC} */
        return load_pc(c, rn - 4, next);
    if ((hw2 >> 12) == 15 && (hw1 & 0xff7f) == 0xf85f) {            /* LDR PC, literal */
        uint32_t base = (c->r[15] + 4) & ~3u, off = hw2 & 0xfff;
        return load_pc(c, (hw1 & 0x80) ? base + off : base - off, next);
    }
    if ((hw2 >> 12) == 15 && (hw1 & 0xfff0) == 0xf8d0)             /* LDR PC, [Rn, #imm12] */
        return load_pc(c, rn + (hw2 & 0xfff), next);
    if ((hw2 >> 12) == 15 && (hw1 & 0xfff0) == 0xf850) {
        if (hw2 & 0x0800) {                                         /* #imm8, P U W */
            uint32_t off = hw2 & 0xff, a = (hw2 & 0x200) ? rn + off : rn - off;
            return load_pc(c, (hw2 & 0x400) ? a : rn, next);
        }
        if ((hw2 & 0x0fc0) == 0)                                    /* [Rn, Rm, LSL #n] */
            return load_pc(c, rn + (c->r[hw2 & 0xf] << ((hw2 >> 4) & 3)), next);
    }
    *done = false;
    return true;
}

bool arm_next(const struct arm_next_ctx *c, uint32_t *next)
{
    uint32_t pc = c->r[15], hw1, hw2;
    if (!(c->cpsr & PSR_T)) {
        uint32_t in;
        return c->read(c->arg, pc, 4, &in) && arm_next_arm(c, in, next);
    }
    if (!c->read(c->arg, pc, 2, &hw1))
        return false;
    uint32_t it = insn_itstate(c->cpsr);
    bool in_it = (it & 0xf) != 0;
    bool wide = (hw1 >> 11) >= 0x1d;
    if (in_it && !insn_cond_holds(it >> 4, c->cpsr)) {
        *next = (pc + (wide ? 4 : 2)) | THUMB_BIT;     /* skipped, as a NOP */
        return true;
    }
    if (!wide)
        return thumb16(c, hw1, in_it, next);
    if (!c->read(c->arg, pc + 2, 2, &hw2))
        return false;
    *next = (pc + 4) | THUMB_BIT;
    if ((hw1 & 0xf800) == 0xf000 && (hw2 & 0x8000))
        return thumb32_branch(c, hw1, hw2, next);
    bool done;
    return thumb32_load(c, hw1, hw2, next, &done);
}
