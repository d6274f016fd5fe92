/*
 * A hostile control partition's program for the harness of
 * manage_harness.h (tests/unit/fuzz_manage.c's inputs, and test_manage.c's
 * fixed-seed ones): each step is a load piece, any call with any
 * registers, the managed guest ending its own life, the boot CPU's
 * service pass, or start/stop/restart.  Included after hyp/manage/image.c
 * and manage.c (their constants), with tests/unit/fuzz_input.h.
 */
#ifndef TESTS_UNIT_GUEST_MANAGE_PROGRAM_H
#define TESTS_UNIT_GUEST_MANAGE_PROGRAM_H

#include "fuzz_input.h"
#include <partita/manage_calls.h>

static uint32_t h_crc32(uint32_t crc, const uint8_t *p, uint32_t n) { return crc32(crc, p, n); }

/* guest_console.c's ends: each byte of the buffer read once */
uint32_t guest_console_inject(struct guest *g, const uint8_t *buf, uint32_t len)
{
    volatile uint8_t sink = 0;
    for (uint32_t i = 0; i < len && i < 256; i++)
        sink ^= buf[i];
    (void)sink;
    return len < 256 ? len : 256;
}

uint32_t guest_console_recent(struct guest *g, uint8_t *buf, uint32_t len, uint32_t *pos,
                              uint32_t *lost)
{
    *lost = 0;
    memset(buf, 'x', len < 64 ? len : 64);
    return len < 64 ? len : 64;
}

#define PROG_STREAM 0x2000u     /* where a program's pieces sit in the boss's RAM */

/* a buffer's IPA: mostly in the caller's RAM, sometimes at its edges or
 * anywhere */
static uint32_t any_ipa(struct input *in)
{
    uint32_t v = take(in, 4);
    switch (take(in, 1) % 4) {
    case 0: return h_ipa(v % H_RAM_SIZE);
    case 1: return h_ipa(H_RAM_SIZE - (v % 64));
    case 2: return h_ipa(0) - (v % 64);
    default: return v;
    }
}

static uint32_t any_len(struct input *in)
{
    uint32_t v = take(in, 4);
    switch (take(in, 1) % 4) {
    case 0: return v % 64;
    case 1: return v % (2 * H_PAGE);
    case 2: return 0xffffffffu - (v % 64);
    default: return v;
    }
}

static uint32_t expect_next;

/* a load piece: a header (valid-looking unless the input says) and kernel
 * bytes, or a later piece at the offset the stream expects, or not */
static void load_piece(struct input *in)
{
    uint8_t *s = h_boss(PROG_STREAM);
    uint32_t kind = take(in, 1), len, off;
    if (kind % 3 == 0) {
        struct partita_load *hd = (struct partita_load *)s;
        memset(hd, 0, sizeof(*hd));
        hd->magic = kind & 0x80 ? take(in, 4) : PARTITA_LOAD_MAGIC;
        hd->format = take(in, 1) % 3;
        hd->kernel_size = take(in, 1) & 1 ? take(in, 4) : take(in, 2) % H_RAM_SIZE;
        hd->initrd_size = take(in, 1) & 1 ? take(in, 2) : 0;
        hd->load_offset = take(in, 1) & 1 ? take(in, 4) : 0;
        hd->entry_offset = take(in, 1) & 1 ? take(in, 4) : 0;
        if (take(in, 1) & 1)
            memset(hd->bootargs, 'a', sizeof(hd->bootargs));    /* unterminated */
        uint8_t *k = (uint8_t *)(hd + 1);
        for (unsigned int i = 0; i < 0x40; i++)
            k[i] = (uint8_t)take(in, 1);
        if (take(in, 1) & 1)
            memcpy(k + ZIMAGE_MAGIC_OFFSET, &(uint32_t){ ZIMAGE_MAGIC }, 4);
        len = sizeof(*hd) + take(in, 2) % (H_PAGE - sizeof(*hd));
        off = 0;
    } else {
        len = take(in, 2) % H_PAGE;
        off = kind % 3 == 1 ? expect_next : take(in, 4);
        for (uint32_t i = 0; i < len; i += 64)
            s[i] = (uint8_t)take(in, 1);
    }
    bool running = guests[H_WORKER].state == GUEST_RUNNING;
    h.flip = take(in, 1) & 1;
    uint32_t r[5] = { PARTITA_MG_LOAD, H_WORKER, h_ipa(PROG_STREAM), len, off };
    h_call(r);
    h.flip = false;
    int32_t rc = (int32_t)r[0];
    H_ASSERT(!running || rc < 0);       /* never into a running guest */
    if (rc > 0)
        expect_next = off + (uint32_t)(rc & ~PARTITA_LOAD_DONE);
}

/* every call a control partition has, and the IDs beside their two ranges */
static const uint32_t calls[] = { PARTITA_MG_ALL_CALLS, PARTITA_MG_BESIDE_CALLS };

/* a call about one guest (r1), which a guest not its own is denied */
static bool call_names_a_guest(uint32_t fn)
{
    return (fn > PARTITA_MG_VERSION && fn <= PARTITA_MG_LAST) || fn == PARTITA_MG_HEALTH;
}

static void raw_call(struct input *in)
{
    uint32_t fn = calls[take(in, 1) % (sizeof(calls) / sizeof(calls[0]))];
    if (take(in, 1) % 8 == 0)
        fn = take(in, 4);
    uint32_t id = take(in, 1) & 0x80 ? take(in, 4) : take(in, 1) % (H_NGUESTS + 1);
    uint32_t r[5] = { fn, id, any_ipa(in), any_len(in), take(in, 4) };
    bool running = guests[H_WORKER].state == GUEST_RUNNING;
    h.flip = take(in, 1) & 1;
    h_call(r);
    h.flip = false;
    if (fn == PARTITA_MG_LOAD && id == H_WORKER && running)
        H_ASSERT((int32_t)r[0] < 0);
    if (id == H_GUARDED && call_names_a_guest(fn) && (int32_t)r[0] != PARTITA_E_ADDRESS)
        H_ASSERT((int32_t)r[0] == PARTITA_E_DENIED);
}

static void h_step(struct input *in)
{
    switch (take(in, 1) % 8) {
    case 0: case 1: case 2: load_piece(in); break;
    case 3: case 4: raw_call(in); break;
    case 5: h_end_life(take(in, 1) & 1 ? GUEST_HALTED : GUEST_CRASHED); break;
    case 6: h_service(); break;
    default: {
        static const uint32_t ops[] = { PARTITA_MG_START, PARTITA_MG_STOP, PARTITA_MG_RESTART };
        uint32_t r[5] = { ops[take(in, 1) % 3], H_WORKER, 0, 0, 0 };
        h_call(r);
        break;
    }
    }
}

/* one program: at most 200 steps from a fresh world */
static void h_run(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    h_setup();
    expect_next = 0;
    for (unsigned int i = 0; i < 200 && in.n; i++)
        h_step(&in);
}

#endif
