/*
 * The fuzzing guest: for each seed in its bootargs ("seeds=1,2,3
 * count=20000"; "rounds=0" repeats with the next seeds forever) it
 * generates random instructions that trap - MCR/MRC/MCRR/MRRC to trapped
 * CP15 and CP14 encodings, HVC and SMC with random function IDs and
 * arguments, loads and stores of every kind to the emulated distributor
 * and UART and to unmapped addresses, many of them conditional on random
 * flags, with random registers, a quarter of the batches in Thumb-2 with
 * the conditional ones in IT blocks - and runs them from a RAM buffer
 * (guests/lib jit_run), taking the aborts and undefined instructions it
 * gets back.  Per seed it prints what it ran and a checksum of the code, so
 * a seed's run can be compared and repeated (tests/system/test_fuzz.py).
 */
#include "guest.h"
#include "armenc.h"

#define GICD_SIZE 0x1000u
#define UART_SIZE 0x1000u
#define REG_BASE  12        /* jit_run gives r0-r11; r12 is free for addresses */

struct gen {
    uint32_t rng;
    bool thumb;                 /* this batch is Thumb code (n counts halfwords) */
    uint32_t code[JIT_MAX];
    unsigned int n;
    unsigned int trapping;      /* instructions meant to trap */
    uint32_t sum;               /* checksum of everything generated */
};

static uint32_t rnd(struct gen *g, uint32_t n) { return rand_next(&g->rng) % n; }

static void emit16(struct gen *g, uint16_t hw)
{
    ((uint16_t *)g->code)[g->n++] = hw;
    g->sum = (g->sum ^ hw) * 0x01000193u;      /* FNV-1 */
}

/* an ARM instruction, or a 32-bit Thumb one (first halfword first) */
static void emit(struct gen *g, uint32_t insn)
{
    if (g->thumb) {
        emit16(g, (uint16_t)(insn >> 16));
        emit16(g, (uint16_t)insn);
        return;
    }
    g->code[g->n++] = insn;
    g->sum = (g->sum ^ insn) * 0x01000193u;
}

/* A coprocessor instruction built in its ARM form with condition cond:
 * its Thumb-2 encoding is the same bits with 0b1110 on top (A6.3.18),
 * conditional inside an IT block of one (A8.8.54: IT <cond>, mask 0b1000) */
static void emit_cp(struct gen *g, uint32_t insn)
{
    uint32_t cond = insn >> 28;
    if (!g->thumb) {
        emit(g, insn);
        return;
    }
    if (cond != COND_AL)
        emit16(g, (uint16_t)(0xbf08u | (cond << 4)));
    emit(g, (insn & 0x0fffffffu) | 0xe0000000u);
}

static void emit_mov32(struct gen *g, uint32_t rd, uint32_t v)
{
    if (g->thumb) {     /* T3 MOVW / T1 MOVT: imm16 = imm4:i:imm3:imm8 */
        for (int top = 0; top < 2; top++) {
            uint32_t imm = top ? v >> 16 : v & 0xffff;
            emit(g, (top ? 0xf2c00000u : 0xf2400000u) | ((imm >> 12) << 16) |
                    (((imm >> 11) & 1) << 26) | (((imm >> 8) & 7) << 12) | (rd << 8) |
                    (imm & 0xff));
        }
        return;
    }
    emit(g, enc_movw(rd, v & 0xffff));
    emit(g, enc_movt(rd, v >> 16));
}

/* a condition: mostly AL, else any of EQ..LE (flags are random) */
static uint32_t rand_cond(struct gen *g)
{
    return rnd(g, 4) ? COND_AL : rnd(g, 15);
}

static uint32_t rand_rt(struct gen *g) { return rnd(g, 12); }

static void gen_cp15(struct gen *g)
{
    uint32_t opc1, crn, crm, opc2;
    static const uint8_t crns[] = { 1, 7, 9, 10, 11, 14, 15 };
    do {
        crn = crns[rnd(g, sizeof(crns))];
        opc1 = rnd(g, 8);
        crm = rnd(g, 16);
        opc2 = rnd(g, 8);
    } while (!cp15_traps(opc1, crn, crm, opc2));
    bool read = rnd(g, 2);
    /* a read may target r15: MRC to APSR_nzcv */
    uint32_t rt = read && !rnd(g, 16) ? 15 : rand_rt(g);
    emit_cp(g, enc_mcr_mrc(rand_cond(g), read, 15, opc1, crn, crm, opc2, rt));
}

static void gen_cp14(struct gen *g)
{
    /* debug (opc1 0) read or written, trace (opc1 1) and Jazelle-side
     * (opc1 6, 7) only read */
    static const uint8_t opc1s[] = { 0, 0, 0, 1, 6, 7 };
    uint32_t opc1 = opc1s[rnd(g, sizeof(opc1s))];
    bool read = opc1 ? true : rnd(g, 2);
    emit_cp(g, enc_mcr_mrc(rand_cond(g), read, 14, opc1, rnd(g, 16), rnd(g, 16), rnd(g, 8),
                           rand_rt(g)));
}

static void gen_cp64(struct gen *g)
{
    uint32_t rt = rand_rt(g), rt2 = rand_rt(g);
    switch (rnd(g, 3)) {
    case 0: /* the counters and timers: CNTP_CVAL (opc1 2) undefined, both ways */
        emit_cp(g, enc_mcrr_mrrc(rand_cond(g), rnd(g, 4) != 0, 15, rnd(g, 4), 14, rt, rt2));
        break;
    case 1: /* implementation defined c15 (HSTR.T15) */
        emit_cp(g, enc_mcrr_mrrc(rand_cond(g), rnd(g, 2), 15, rnd(g, 16), 15, rt, rt2));
        break;
    default: /* DBGDRAR, DBGDSAR */
        emit_cp(g, enc_mcrr_mrrc(rand_cond(g), true, 14, 0, 1 + rnd(g, 2), rt, rt2));
        break;
    }
}

static void gen_call(struct gen *g)
{
    emit_mov32(g, 0, rand_smccc_fn(&g->rng));
    if (g->thumb) {
        /* T1 HVC (never in an IT block), T1 SMC (may be) */
        if (rnd(g, 3)) {
            uint32_t imm = rnd(g, 0x10000);
            emit(g, 0xf7e08000u | ((imm >> 12) << 16) | (imm & 0xfff));
        } else {
            uint32_t cond = rand_cond(g);
            if (cond != COND_AL)
                emit16(g, (uint16_t)(0xbf08u | (cond << 4)));
            emit(g, 0xf7f08000u | (rnd(g, 16) << 16));
        }
    } else if (rnd(g, 3)) {
        emit(g, enc_hvc(rnd(g, 0x10000)));
    } else {
        emit(g, enc_smc(rand_cond(g), rnd(g, 16)));
    }
}

/* an address in an emulated device, in nothing at all, or near either */
static uint32_t rand_mmio_addr(struct gen *g, bool *store_ok)
{
    *store_ok = true;
    switch (rnd(g, 4)) {
    case 0:
    case 1:
        return GICD_BASE + rnd(g, GICD_SIZE);
    case 2: {
        /* the UART is the console: a store to DR would print (and some
         * forms use the address rounded down to 8) */
        uint32_t off = rnd(g, UART_SIZE);
        *store_ok = off >= 8;
        return VUART_BASE + off;
    }
    default: {
        static const uint32_t holes[] = { 0x00000000u, 0x08020000u, 0x08030000u, 0x08040000u,
                                          0x09010000u, 0x0a000000u, 0x10000000u, 0x3f000000u,
                                          0x80000000u, 0xc0000000u, 0xfffff000u };
        return holes[rnd(g, sizeof(holes) / 4)] + rnd(g, 0x1000);
    }
    }
}

/* Thumb-2 loads and stores (A6.3.7-A6.3.10), one in an IT block of one */
static void gen_access_thumb(struct gen *g, uint32_t addr, bool store)
{
    uint32_t rn = REG_BASE, rt = rand_rt(g) & ~1u, off = addr & 7, cond = rand_cond(g);
    uint32_t l = store ? 0 : 1u << 20;
    if (rnd(g, 4) == 0) {           /* 16-bit LDR/STR (imm5), base r7 */
        emit_mov32(g, 7, addr - off);
        if (cond != COND_AL)
            emit16(g, (uint16_t)(0xbf08u | (cond << 4)));
        emit16(g, (uint16_t)((store ? 0x6000u : 0x6800u) | (7u << 3) | (rt & 7)));
        return;
    }
    emit_mov32(g, rn, addr - off);
    if (cond != COND_AL)
        emit16(g, (uint16_t)(0xbf08u | (cond << 4)));
    switch (rnd(g, 7)) {
    case 0: /* LDR.W/STR.W, LDRB.W/STRB.W, LDRH.W/STRH.W (imm12) */
    case 1: {
        static const uint32_t sz[] = { 0xf8c00000u, 0xf8800000u, 0xf8a00000u };
        emit(g, sz[rnd(g, 3)] | l | (rn << 16) | (rt << 12) | off);
        break;
    }
    case 2: /* LDRSB.W / LDRSH.W */
        emit(g, (rnd(g, 2) ? 0xf9900000u : 0xf9b00000u) | (rn << 16) | (rt << 12) | off);
        break;
    case 3: /* LDRD / STRD (imm8 * 4 = 0) */
        emit(g, (store ? 0xe9c00000u : 0xe9d00000u) | (rn << 16) | (rt << 12) |
                ((rt + 1) << 8));
        break;
    case 4: /* LDM.W / STM.W */
        emit(g, (store ? 0xe8800000u : 0xe8900000u) | (rn << 16) | (3u << rt));
        break;
    case 5: /* LDREX / STREX (imm8 0), status r10 or r8 */
        emit(g, store ? 0xe8400000u | (rn << 16) | (rt << 12) | ((rt >= 10 ? 8u : 10u) << 8)
                      : 0xe8500f00u | (rn << 16) | (rt << 12));
        break;
    default: /* post-indexed LDR/STR (T4, #4): writeback, no syndrome */
        emit(g, 0xf8400b04u | l | (rn << 16) | (rt << 12));
        break;
    }
}

static void gen_access(struct gen *g)
{
    bool store_ok;
    uint32_t addr = rand_mmio_addr(g, &store_ok);
    uint32_t kind = rnd(g, 12);
    bool store = store_ok && rnd(g, 2);
    if (g->thumb) {
        gen_access_thumb(g, addr, store);
        return;
    }
    uint32_t c = rand_cond(g) << 28, rn = REG_BASE, rt = rand_rt(g) & ~1u;
    /* the offsets are in the instruction; the base is 8-byte aligned below
     * the address so that every form reaches it */
    uint32_t off = addr & 7;
    emit_mov32(g, rn, addr - off);
    uint32_t l = store ? 0 : 1u << 20;
    switch (kind) {
    case 0: /* A8.8.63 LDR / A8.8.204 STR (immediate), word or byte */
    case 1:
        emit(g, c | 0x05800000u | l | (kind ? 1u << 22 : 0) | (rn << 16) | (rt << 12) | off);
        break;
    case 2: /* LDRH/STRH (immediate): A8.8.80, A8.8.217 */
        emit(g, c | 0x01c000b0u | l | (rn << 16) | (rt << 12) | off);
        break;
    case 3: /* LDRSB / LDRSH (immediate) */
        emit(g, c | 0x01d000d0u | (rnd(g, 2) ? 0x20u : 0) | (rn << 16) | (rt << 12) | off);
        break;
    case 4: /* LDRD / STRD (immediate), Rt even: no syndrome */
        emit(g, c | (store ? 0x01c000f0u : 0x01c000d0u) | (rn << 16) | (rt << 12) | off);
        break;
    case 5: /* LDM / STM: no syndrome */
        emit(g, c | 0x08800000u | l | (rn << 16) | (1u << rt) | (1u << (rt + 1)));
        break;
    case 6: /* LDREX / STREX (word, byte, halfword, doubleword) */
    case 7: {
        /* A8.8.213 STREX / A8.8.75 LDREX and their B, H, D forms; size 0
         * word, 1 doubleword, 2 byte, 3 halfword; the status register is
         * neither of the pair */
        uint32_t size = rnd(g, 4), status = rt >= 10 ? 8 : 10;
        emit(g, c | 0x01800f90u | (size << 21) | (store ? 0 : 1u << 20) | (rn << 16) |
                (store ? (status << 12) | rt : (rt << 12) | 0xf));
        break;
    }
    case 8: /* post-indexed LDR/STR: writeback, no syndrome */
        emit(g, c | 0x04800004u | l | (rn << 16) | (rt << 12));
        break;
    case 9: /* register offset LDR (r0..r11 + rn: anywhere, its own RAM too,
             * so never a store) */
        emit(g, c | 0x07900000u | (rn << 16) | (rt << 12) | rand_rt(g));
        break;
    default: /* PLD: never faults */
        emit(g, 0xf5d0f000u | (rn << 16) | off);
        break;
    }
}

static void gen_one(struct gen *g)
{
    if (!rnd(g, 6)) {                           /* random NZCV for the conditions */
        uint32_t rn = rand_rt(g);
        emit(g, g->thumb ? 0xf3808800u | (rn << 16) : enc_msr_flags(rn));
    }
    switch (rnd(g, 8)) {
    case 0: case 1: gen_cp15(g); break;
    case 2: gen_cp14(g); break;
    case 3: gen_cp64(g); break;
    case 4: gen_call(g); break;
    default: gen_access(g); break;
    }
    g->trapping++;
}

struct fuzz_result {
    unsigned int insns, faults;
    uint64_t traps;
    uint32_t sum;
};

static uint64_t all_traps(void)
{
    uint64_t t = 0;
    for (unsigned int i = 1; i <= 8; i++)
        t += partita_stat(STAT_TRAP(i));
    return t;
}

static struct fuzz_result fuzz_seed(uint32_t seed, unsigned int count)
{
    struct gen g = { .rng = seed * 2654435761u + 1 };
    uint32_t regs[12];
    uint64_t t0 = all_traps();
    unsigned int f0 = my_fault()->count;
    while (g.trapping < count) {
        /* a quarter of the batches in Thumb: 16/32-bit stepping, IT blocks */
        g.thumb = rnd(&g, 4) == 0;
        g.n = 0;
        unsigned int room = g.thumb ? 2 * JIT_MAX - 16 : JIT_MAX - 8;
        while (g.n < room && g.trapping < count)
            gen_one(&g);
        for (unsigned int i = 0; i < 12; i++)
            regs[i] = rand_next(&g.rng);
        if (g.thumb)
            jit_run_thumb((const uint16_t *)g.code, g.n, regs);
        else
            jit_run(g.code, g.n, regs);
    }
    return (struct fuzz_result){ g.trapping, my_fault()->count - f0, all_traps() - t0, g.sum };
}

void guest_main(uint32_t dtb)
{
    uint32_t seeds[16], count = 20000, rounds = 1;
    int nseeds = bootarg_u32s("seeds", seeds, 16);
    if (nseeds <= 0) {
        seeds[0] = 1;
        nseeds = 1;
    }
    bootarg_u32("count", &count);
    bootarg_u32("rounds", &rounds);
    gprintf("fuzz: %d seeds, %lu instructions each, %lu rounds%s\n", nseeds,
            (unsigned long)count, (unsigned long)rounds, rounds ? "" : " (forever)");
    for (uint32_t round = 0; !rounds || round < rounds; round++) {
        for (int i = 0; i < nseeds; i++) {
            uint32_t seed = seeds[i] + round * (uint32_t)nseeds;
            uint64_t t0 = cntvct();
            struct fuzz_result r = fuzz_seed(seed, count);
            gprintf("fuzz: seed %lu: %u instructions, %lu traps, %u faults back, checksum "
                    "%08lx, %lu ms\n", (unsigned long)seed, r.insns, (unsigned long)r.traps,
                    r.faults, (unsigned long)r.sum,
                    (unsigned long)((cntvct() - t0) * 1000 / cntfrq()));
            test_begin("seed");
            CHECK(r.traps + r.faults >= r.insns / 2, "seed %lu: %lu traps and %u faults for %u "
                  "instructions", (unsigned long)seed, (unsigned long)r.traps, r.faults, r.insns);
            test_end();
        }
    }
    tests_finish();
}
