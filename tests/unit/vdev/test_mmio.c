/*
 * Host unit tests for the data-abort decoder and the MMIO bus (hyp/vdev/mmio.c).
 *
 * Syndromes are built here from the ISS encoding of a data abort taken to
 * Hyp mode (ARM ARM B3.13.6): EC[31:26] = 0x24 (from a lower level),
 * IL[25], ISV[24], SAS[23:22], SSE[21], SRT[19:16], EA[9], CM[8],
 * S1PTW[7], WnR[6], DFSC[5:0]; HPFAR[31:4] = IPA[39:12] (B4.1.68).  A
 * table of real ARM and Thumb instructions gives, as literals worked out
 * by hand, the syndrome a Cortex-A15 reports for each.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <string.h>
#include "hyp/vdev/mmio.h"

#define DFSC_TRANS_L2 0x06u     /* long-descriptor translation fault, level 2 */
#define DFSC_TRANS_L3 0x07u
#define DFSC_PERM_L3  0x0fu     /* permission fault, level 3 */

struct iss {
    bool il, isv;
    unsigned int sas;
    bool sse;
    unsigned int srt;
    bool ea, cm, s1ptw, wnr;
    unsigned int dfsc;
};

static uint32_t hsr_of(struct iss f)
{
    return (uint32_t)HSR_EC_DABT << HSR_EC_SHIFT | (uint32_t)f.il << 25 | (uint32_t)f.isv << 24 |
           f.sas << 22 | (uint32_t)f.sse << 21 | f.srt << 16 | (uint32_t)f.ea << 9 |
           (uint32_t)f.cm << 8 | (uint32_t)f.s1ptw << 7 | (uint32_t)f.wnr << 6 | f.dfsc;
}
#define SYNDROME(...) hsr_of((struct iss){ __VA_ARGS__ })

/* HPFAR for an IPA: bits [31:4] hold IPA[39:12] */
static uint32_t hpfar_of(uint64_t ipa)
{
    return (uint32_t)((ipa >> 12) << 4);
}

/* What the trap takes from a syndrome: the device's record (size, write),
 * and from the HSR itself Rt and the sign extension (B3.13.6), the IPA
 * from HPFAR and HDFAR */
struct decoded {
    unsigned int size;
    bool write;
    unsigned int reg;
    bool sign_extend;
    uint64_t ipa;
    uint32_t value;
};

/* decode into records full of garbage, so nothing stale passes for a result */
static bool decode(uint32_t hsr, uint32_t hdfar, uint32_t hpfar, struct decoded *d)
{
    struct mmio_access a;
    memset(&a, 0xa5, sizeof(a));
    memset(d, 0xa5, sizeof(*d));
    if (!mmio_decode(hsr, &a))
        return false;
    *d = (struct decoded){ a.size, a.write, HSR_DABT_SRT(hsr), (hsr & HSR_DABT_SSE) != 0,
                           FAULT_IPA(hdfar, hpfar), a.value };
    return true;
}

/* ---- decoding ---- */

static void test_decode_sizes(void **state)
{
    static const unsigned int bytes[] = { 1, 2, 4 };
    struct decoded a;
    for (unsigned int sas = 0; sas < 3; sas++) {
        assert_true(decode(SYNDROME(.il = 1, .isv = 1, .sas = sas, .srt = 2, .dfsc = DFSC_TRANS_L2),
                           0x09000000, hpfar_of(0x09000000), &a));
        assert_int_equal(a.size, bytes[sas]);
        assert_false(a.write);
        assert_false(a.sign_extend);
        assert_int_equal(a.reg, 2);
        assert_int_equal(a.value, 0xa5a5a5a5);     /* left for the caller or the device */
    }
    /* SAS = 0b11 (doubleword) is reserved in ARMv7: no such access */
    assert_false(decode(SYNDROME(.il = 1, .isv = 1, .sas = 3, .srt = 2, .dfsc = DFSC_TRANS_L2),
                        0x09000000, hpfar_of(0x09000000), &a));
    assert_false(decode(SYNDROME(.il = 1, .isv = 1, .sas = 3, .srt = 2, .wnr = 1,
                            .dfsc = DFSC_TRANS_L2), 0x09000000, hpfar_of(0x09000000), &a));
}

static void test_decode_every_register(void **state)
{
    struct decoded a;
    for (unsigned int rt = 0; rt < 16; rt++)
        for (unsigned int wnr = 0; wnr < 2; wnr++)
            for (unsigned int sas = 0; sas < 3; sas++) {
                uint32_t hsr = SYNDROME(.il = 1, .isv = 1, .sas = sas, .srt = rt, .wnr = wnr,
                                   .dfsc = DFSC_TRANS_L3);
                assert_true(decode(hsr, 0x1c090018, hpfar_of(0x1c090018), &a));
                assert_int_equal(a.reg, rt);
                assert_int_equal(a.write, wnr);
                assert_int_equal(a.size, 1u << sas);
            }
}

static void test_decode_sign_extension_flag(void **state)
{
    struct decoded a;
    assert_true(decode(SYNDROME(.isv = 1, .sas = 0, .sse = 1, .srt = 5, .dfsc = DFSC_TRANS_L2),
                       0x09000000, hpfar_of(0x09000000), &a));
    assert_true(a.sign_extend);
    assert_int_equal(a.size, 1);
    assert_true(decode(SYNDROME(.isv = 1, .sas = 1, .sse = 1, .srt = 5, .dfsc = DFSC_TRANS_L2),
                       0x09000000, hpfar_of(0x09000000), &a));
    assert_true(a.sign_extend);
    assert_int_equal(a.size, 2);
    assert_true(decode(SYNDROME(.isv = 1, .sas = 1, .srt = 5, .dfsc = DFSC_TRANS_L2),
                       0x09000000, hpfar_of(0x09000000), &a));
    assert_false(a.sign_extend);
}

static void test_decode_rejects_isv0(void **state)
{
    /* LDM/STM, LDRD/STRD, writeback forms...: no instruction details, the
     * guest gets an abort (whatever else the ISS happens to hold) */
    struct decoded a;
    for (unsigned int bits = 0; bits < 64; bits++) {
        uint32_t hsr = SYNDROME(.il = bits & 1, .isv = 0, .sas = (bits >> 1) & 3,
                           .sse = (bits >> 3) & 1, .srt = bits & 15, .wnr = (bits >> 4) & 1,
                           .dfsc = (bits >> 5) ? DFSC_TRANS_L3 : DFSC_TRANS_L2);
        assert_false(decode(hsr, 0x09000000, hpfar_of(0x09000000), &a));
    }
}

static void test_decode_rejects_cm_and_s1ptw(void **state)
{
    struct decoded a;
    /* cache maintenance on the IPA (reported as a write) */
    assert_false(decode(SYNDROME(.il = 1, .isv = 1, .sas = 2, .srt = 0, .cm = 1, .wnr = 1,
                            .dfsc = DFSC_TRANS_L2), 0x09000000, hpfar_of(0x09000000), &a));
    assert_false(decode(SYNDROME(.il = 1, .isv = 1, .sas = 2, .srt = 0, .cm = 1,
                            .dfsc = DFSC_TRANS_L2), 0x09000000, hpfar_of(0x09000000), &a));
    /* the guest's stage-1 walk touched the IPA: not a device access */
    assert_false(decode(SYNDROME(.il = 1, .isv = 1, .sas = 2, .srt = 3, .s1ptw = 1,
                            .dfsc = DFSC_TRANS_L2), 0x80001000, hpfar_of(0x09000000), &a));
    assert_false(decode(SYNDROME(.il = 1, .isv = 1, .sas = 2, .srt = 3, .s1ptw = 1, .wnr = 1,
                            .dfsc = DFSC_TRANS_L2), 0x80001000, hpfar_of(0x09000000), &a));
    /* the same syndromes without those bits are accesses */
    assert_true(decode(SYNDROME(.il = 1, .isv = 1, .sas = 2, .srt = 0, .wnr = 1,
                           .dfsc = DFSC_TRANS_L2), 0x09000000, hpfar_of(0x09000000), &a));
    assert_true(decode(SYNDROME(.il = 1, .isv = 1, .sas = 2, .srt = 3, .dfsc = DFSC_TRANS_L2),
                       0x80001000, hpfar_of(0x09000000), &a));
}

static void test_decode_ipa(void **state)
{
    struct decoded a;
    uint32_t hsr = SYNDROME(.il = 1, .isv = 1, .sas = 2, .srt = 1, .dfsc = DFSC_TRANS_L3);

    /* the guest's VA (MMU on) differs from the IPA but for the page offset */
    assert_true(decode(hsr, 0xc0801ffc, hpfar_of(0x09000ffc), &a));
    assert_int_equal(a.ipa, 0x09000ffc);

    /* a 40-bit IPA; HPFAR[3:0] are reserved and ignored */
    assert_true(decode(hsr, 0x00000234, hpfar_of(0xabcdef1000ull) | 0xf, &a));
    assert_int_equal(a.ipa, 0xabcdef1234ull);

    /* every HPFAR bit lands at its place */
    for (unsigned int bit = 4; bit < 32; bit++) {
        assert_true(decode(hsr, 0xfffff000 | bit, 1u << bit, &a));
        assert_int_equal(a.ipa, (1ull << (bit + 8)) | bit);
    }
    /* every HDFAR bit: [11:0] are the offset, the rest is not the IPA's */
    for (unsigned int bit = 0; bit < 32; bit++) {
        assert_true(decode(hsr, 1u << bit, hpfar_of(0x08000000), &a));
        assert_int_equal(a.ipa, 0x08000000 | ((1u << bit) & 0xfff));
    }
}

/* ---- real instructions and their syndromes ---- */

struct insn_case {
    const char *text;
    uint32_t encoding;      /* ARM word; Thumb: first halfword in the high half if 32-bit */
    uint32_t hsr;           /* as a Cortex-A15 reports it */
    uint64_t ipa;
    uint32_t hdfar;
    unsigned int size;
    bool write, sign;
    unsigned int reg;
};

/*
 * EC 0x24 = 0x90000000, IL 0x02000000 (32-bit instruction), ISV 0x01000000,
 * SAS 0x00000000 / 0x00400000 / 0x00800000 (byte / half / word), SSE
 * 0x00200000, SRT << 16, WnR 0x40, DFSC 0x06 / 0x07 translation fault at
 * level 2 / 3 (nothing mapped there), 0x0f permission fault at level 3.
 */
static const struct insn_case insns[] = {
    /* ARM (A32): IL = 1 */
    { "ldr r3, [r0]",          0xe5903000, 0x93830006, 0x09000000, 0xf8000000, 4, false, false, 3 },
    { "strb r1, [r2, #1]",     0xe5c21001, 0x93010046, 0x09000001, 0xf8000001, 1, true,  false, 1 },
    { "ldrsh r4, [r5]",        0xe1d540f0, 0x93640006, 0x09000024, 0xf8000024, 2, false, true,  4 },
    { "ldrh r6, [r7, #2]",     0xe1d760b2, 0x93460006, 0x09000002, 0xf8000002, 2, false, false, 6 },
    { "ldrsb r0, [r1]",        0xe1d100d0, 0x93200006, 0x09000000, 0xf8000000, 1, false, true,  0 },
    { "ldrb r9, [sl, #3]",     0xe5da9003, 0x93090006, 0x09000003, 0xf8000003, 1, false, false, 9 },
    { "str ip, [r3, #4]",      0xe583c004, 0x938c0047, 0x08001004, 0xf8201004, 4, true,  false, 12 },
    { "strh lr, [r8]",         0xe1c8e0b0, 0x934e004f, 0x00000ffe, 0x00000ffe, 2, true,  false, 14 },
    { "ldr pc, [r0]",          0xe590f000, 0x938f0006, 0x09000000, 0x09000000, 4, false, false, 15 },
    /* Thumb 16-bit: IL = 0 */
    { "ldr r0, [r1]",          0x6808,     0x91800006, 0x09000000, 0xf8000000, 4, false, false, 0 },
    { "strh r2, [r3]",         0x801a,     0x91420046, 0x09000010, 0xf8000010, 2, true,  false, 2 },
    { "ldrsb r4, [r5, r6]",    0x57ac,     0x91240006, 0x09000018, 0xf8000018, 1, false, true,  4 },
    { "ldrb r7, [r0, #5]",     0x7947,     0x91070006, 0x09000005, 0xf8000005, 1, false, false, 7 },
    /* Thumb-2 32-bit: IL = 1 */
    { "ldr.w r8, [r9]",        0xf8d98000, 0x93880006, 0x09000000, 0xf8000000, 4, false, false, 8 },
    { "str.w sl, [fp, #8]",    0xf8cba008, 0x938a0046, 0x09000008, 0xf8000008, 4, true,  false, 10 },
    { "ldrsh.w ip, [r0]",      0xf9b0c000, 0x936c0007, 0x2c002000, 0xf8102000, 2, false, true,  12 },
    { "ldrh.w r1, [r2, #6]",   0xf8b21006, 0x93410006, 0x09000006, 0xf8000006, 2, false, false, 1 },
    { "strb.w lr, [r4]",       0xf884e000, 0x930e0046, 0x09000000, 0xf8000000, 1, true,  false, 14 },
};

/* what the encoding says about itself, decoded here by the ARM ARM's
 * load/store encoding tables (chapters A5, A6), as a check on the literal table */
static void insn_fields(uint32_t enc, unsigned int *size, bool *write, bool *sign,
                        unsigned int *rt, bool *is32)
{
    *is32 = true;
    if (enc <= 0xffff) {                                /* Thumb 16-bit */
        *is32 = false;
        *rt = enc & 7;
        if ((enc >> 12) == 0x5) {                       /* load/store register offset */
            static const unsigned int sz[8] = { 4, 2, 1, 1, 4, 2, 1, 2 };
            unsigned int opb = (enc >> 9) & 7;
            *size = sz[opb];
            *write = opb < 3;
            *sign = opb == 3 || opb == 7;
        } else {                                        /* immediate offset */
            unsigned int op = enc >> 11;                /* 01100 STR .. 10001 LDRH */
            *size = op <= 0x0d ? 4 : op <= 0x0f ? 1 : 2;
            *write = !(op & 1);
            *sign = false;
        }
    } else if ((enc >> 27) == 0x1f) {                   /* Thumb-2 1111 100x xxxx */
        *rt = (enc >> 12) & 15;
        *size = 1u << ((enc >> 21) & 3);
        *write = !((enc >> 20) & 1);
        *sign = (enc >> 24) & 1;
    } else if (((enc >> 26) & 3) == 1) {                /* ARM LDR/STR(B) */
        *rt = (enc >> 12) & 15;
        *size = (enc >> 22) & 1 ? 1 : 4;
        *write = !((enc >> 20) & 1);
        *sign = false;
    } else {                                            /* ARM extra load/store */
        unsigned int sh = (enc >> 5) & 3;
        *rt = (enc >> 12) & 15;
        *write = !((enc >> 20) & 1);
        *size = sh == 2 ? 1 : 2;
        *sign = !*write && sh != 1;
    }
}

static void test_decode_real_instructions(void **state)
{
    struct decoded a;
    for (unsigned int i = 0; i < sizeof(insns) / sizeof(insns[0]); i++) {
        const struct insn_case *c = &insns[i];
        unsigned int size, rt;
        bool write, sign, is32;
        insn_fields(c->encoding, &size, &write, &sign, &rt, &is32);
        if (size != c->size || write != c->write || sign != c->sign || rt != c->reg)
            fail_msg("table row '%s' disagrees with its encoding 0x%08x", c->text,
                     c->encoding);
        /* the literal syndrome agrees with the instruction */
        if (HSR_EC(c->hsr) != HSR_EC_DABT || !!(c->hsr & HSR_IL) != is32 ||
            !(c->hsr & HSR_DABT_ISV))
            fail_msg("'%s': syndrome 0x%08x has the wrong EC, IL or ISV", c->text, c->hsr);

        if (!decode(c->hsr, c->hdfar, hpfar_of(c->ipa), &a))
            fail_msg("'%s': syndrome 0x%08x refused", c->text, c->hsr);
        if (a.size != c->size || a.write != c->write || a.sign_extend != c->sign ||
            a.reg != c->reg || a.ipa != c->ipa)
            fail_msg("'%s': decoded size %u write %d sign %d reg %u ipa 0x%llx",
                     c->text, a.size, a.write, a.sign_extend, a.reg,
                     (unsigned long long)a.ipa);
    }
}

static void test_decode_real_instructions_without_syndrome(void **state)
{
    /* ISV = 0 for these (B3.13.6): the guest gets an abort */
    static const struct { const char *text; uint32_t encoding, hsr; } rows[] = {
        { "ldr r1, [r0], #4",      0xe4901004, 0x92000006 },
        { "ldr r1, [r0, #4]!",     0xe5b01004, 0x92000006 },
        { "str r1, [r0], #4",      0xe4801004, 0x92000046 },
        { "ldm r0, {r1, r2}",      0xe8900006, 0x92000006 },
        { "stm r0, {r1, r2}",      0xe8800006, 0x92000046 },
        { "ldrd r2, r3, [r0]",     0xe1c020d0, 0x92000006 },
        { "strd r2, r3, [r0]",     0xe1c020f0, 0x92000046 },
        { "ldmia r0!, {r1, r2}",   0xc806,     0x90000006 },
        { "ldrd r2, r3, [r0] (T32)", 0xe9d02300, 0x92000006 },
        /* cache maintenance by VA on the IPA: CM = 1, reported as a write */
        { "mcr p15, 0, r0, c7, c14, 1", 0xee070f3e, 0x92000146 },
    };
    struct decoded a;
    for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (decode(rows[i].hsr, 0x09000000, hpfar_of(0x09000000), &a))
            fail_msg("'%s' (0x%08x): syndrome 0x%08x accepted", rows[i].text,
                     rows[i].encoding, rows[i].hsr);
}

/* ---- the value loaded into Rt ---- */

/* mmio_load_value for a load of size bytes, sign-extending (LDRSB/LDRSH) or not */
static uint32_t load(unsigned int size, bool sse, uint32_t raw)
{
    return mmio_load_value(SYNDROME(.il = 1, .isv = 1, .sas = size == 1 ? 0 : size == 2 ? 1 : 2,
                                    .sse = sse, .srt = 3, .dfsc = DFSC_TRANS_L2), raw);
}

static void test_load_value_extension(void **state)
{
    for (uint32_t v = 0; v < 0x100; v++) {
        uint32_t raw = 0xabcdef00u | v;     /* junk above the access size */
        assert_int_equal(load(1, false, raw), v);                               /* LDRB */
        assert_int_equal(load(1, true, raw), (uint32_t)(int32_t)(int8_t)v);     /* LDRSB */
    }
    for (uint32_t v = 0; v < 0x10000; v++) {
        uint32_t raw = 0x5a5a0000u | v;
        assert_int_equal(load(2, false, raw), v);                               /* LDRH */
        assert_int_equal(load(2, true, raw), (uint32_t)(int32_t)(int16_t)v);    /* LDRSH */
    }
    /* some by value */
    assert_int_equal(load(1, true, 0x80), 0xffffff80);
    assert_int_equal(load(1, true, 0x7f), 0x7f);
    assert_int_equal(load(2, true, 0x12348001), 0xffff8001);
    assert_int_equal(load(2, true, 0xffff7fff), 0x7fff);
    /* words are what they are */
    static const uint32_t words[] = { 0, 1, 0x7fffffff, 0x80000000, 0xdeadbeef, 0xffffffff };
    for (unsigned int i = 0; i < 6; i++) {
        assert_int_equal(load(4, false, words[i]), words[i]);
        assert_int_equal(load(4, true, words[i]), words[i]);
    }
}

/* ---- routing ---- */

struct fake_dev {
    const char *name;
    unsigned int calls;
    uint32_t offset;
    struct mmio_access seen;
    uint32_t read_value;
    bool answer;
};

static bool fake_handler(void *dev, struct mmio_access *a, uint32_t offset)
{
    struct fake_dev *d = dev;
    d->calls++;
    d->offset = offset;
    d->seen = *a;
    if (!a->write)
        a->value = d->read_value;
    return d->answer;
}

static struct mmio_bus bus;
static struct fake_dev gicd, uart, rtc;

static int bus_setup(void **state)
{
    mmio_bus_init(&bus);
    gicd = (struct fake_dev){ .name = "gicd", .read_value = 0x0000043b, .answer = true };
    uart = (struct fake_dev){ .name = "uart", .read_value = 0x00000080, .answer = true };
    rtc = (struct fake_dev){ .name = "rtc", .read_value = 0x12345678, .answer = true };
    assert_int_equal(mmio_register(&bus, 0x08000000, 0x10000, fake_handler, &gicd), 0);
    assert_int_equal(mmio_register(&bus, 0x09000000, 0x1000, fake_handler, &uart), 0);
    assert_int_equal(mmio_register(&bus, 0x09010000, 0x1000, fake_handler, &rtc), 0);
    return 0;
}

static void reset_calls(void)
{
    gicd.calls = uart.calls = rtc.calls = 0;
}

static struct mmio_access mk_access(unsigned int size, bool write)
{
    return (struct mmio_access){ .size = size, .write = write, .value = 0 };
}

/* routed to dev at offset, and nowhere else */
static void expect_routed(uint64_t ipa, unsigned int size, struct fake_dev *dev,
                          uint32_t offset)
{
    struct mmio_access a = mk_access(size, false);
    reset_calls();
    if (mmio_dispatch(&bus, ipa, &a) != MMIO_HANDLED)
        fail_msg("%u-byte access at 0x%llx not routed", size, (unsigned long long)ipa);
    if (dev->calls != 1 || gicd.calls + uart.calls + rtc.calls != 1)
        fail_msg("access at 0x%llx: wrong device called", (unsigned long long)ipa);
    assert_int_equal(dev->offset, offset);
    assert_int_equal(a.value, dev->read_value);
}

#define expect_unrouted(ipa, size) expect_unrouted_as(ipa, size, MMIO_UNCLAIMED)
#define expect_refused(ipa, size)  expect_unrouted_as(ipa, size, MMIO_REFUSED)

/* an access no device completes: why is `want` (MMIO_REFUSED when the
 * address is a device's but the access is not, MMIO_UNCLAIMED when no
 * device is there) */
static void expect_unrouted_as(uint64_t ipa, unsigned int size, enum mmio_result want)
{
    struct mmio_access a = mk_access(size, false);
    reset_calls();
    enum mmio_result got = mmio_dispatch(&bus, ipa, &a);
    if (got != want)
        fail_msg("%u-byte access at 0x%llx: bus answered %d, not %d", size,
                 (unsigned long long)ipa, got, want);
    if (gicd.calls + uart.calls + rtc.calls)
        fail_msg("%u-byte access at 0x%llx reached a device", size, (unsigned long long)ipa);
}

static void test_dispatch_by_range(void **state)
{
    expect_routed(0x08000000, 4, &gicd, 0);
    expect_routed(0x08000ffc, 4, &gicd, 0xffc);
    expect_routed(0x08001000, 1, &gicd, 0x1000);
    expect_routed(0x09000000, 4, &uart, 0);
    expect_routed(0x09000018, 2, &uart, 0x18);
    expect_routed(0x09010000, 4, &rtc, 0);
    expect_routed(0x09010abc, 1, &rtc, 0xabc);
}

static void test_dispatch_boundaries(void **state)
{
    /* the last bytes of a region */
    expect_routed(0x0800fffc, 4, &gicd, 0xfffc);
    expect_routed(0x0800fffe, 2, &gicd, 0xfffe);
    expect_routed(0x0800ffff, 1, &gicd, 0xffff);
    expect_routed(0x09000ffc, 4, &uart, 0xffc);
    /* straddling the end: the device's address, but refused */
    expect_refused(0x0800fffd, 4);
    expect_refused(0x0800fffe, 4);
    expect_refused(0x0800ffff, 2);
    expect_refused(0x09000fff, 2);
    expect_refused(0x09000ffe, 4);
    /* just outside */
    expect_unrouted(0x07ffffff, 1);
    expect_unrouted(0x07fffffc, 4);
    expect_unrouted(0x08010000, 1);
    expect_unrouted(0x09001000, 4);             /* the hole between uart and rtc */
    expect_unrouted(0x0900fffc, 4);
    expect_unrouted(0x09011000, 4);
    /* IPAs are 40 bits: the same low 32 bits higher up are not the device */
    expect_unrouted(0x109000000ull, 4);
    expect_unrouted(0xff08000000ull, 4);
}

static void test_dispatch_no_owner(void **state)
{
    struct mmio_bus empty;
    mmio_bus_init(&empty);
    struct mmio_access a = mk_access(4, false);
    assert_int_equal(mmio_dispatch(&empty, 0x09000000, &a), MMIO_UNCLAIMED);
    expect_unrouted(0, 4);
    expect_unrouted(0x40000000, 4);
    expect_unrouted(0xfffffffc, 4);
}

static void test_dispatch_device_answer(void **state)
{
    /* a write carries the value to the device */
    struct mmio_access a = mk_access(1, true);
    a.value = 0x41;
    reset_calls();
    assert_int_equal(mmio_dispatch(&bus, 0x09000000, &a), MMIO_HANDLED);
    assert_int_equal(uart.calls, 1);
    assert_true(uart.seen.write);
    assert_int_equal(uart.seen.value, 0x41);
    assert_int_equal(uart.seen.size, 1);
    assert_int_equal(a.value, 0x41);            /* a write gets no value back */

    /* a device that refuses the access: false, after asking it */
    rtc.answer = false;
    a = mk_access(4, false);
    reset_calls();
    assert_int_equal(mmio_dispatch(&bus, 0x09010004, &a), MMIO_REFUSED);   /* the device said no */
    assert_int_equal(rtc.calls, 1);
}

static void test_register_limit(void **state)
{
    static struct fake_dev devs[MMIO_MAX_REGIONS + 1];
    struct mmio_bus b;
    mmio_bus_init(&b);
    for (unsigned int i = 0; i <= MMIO_MAX_REGIONS; i++)
        devs[i] = (struct fake_dev){ .read_value = i, .answer = true };
    for (unsigned int i = 0; i < MMIO_MAX_REGIONS; i++)
        assert_int_equal(mmio_register(&b, 0x10000000 + i * 0x1000, 0x1000, fake_handler,
                                       &devs[i]), 0);
    assert_int_equal(b.n, MMIO_MAX_REGIONS);
    assert_int_equal(mmio_register(&b, 0x20000000, 0x1000, fake_handler,
                                   &devs[MMIO_MAX_REGIONS]), -1);
    assert_int_equal(b.n, MMIO_MAX_REGIONS);
    /* every registered region routes, the refused one does not */
    for (unsigned int i = 0; i < MMIO_MAX_REGIONS; i++) {
        struct mmio_access a = mk_access(4, false);
        assert_int_equal(mmio_dispatch(&b, 0x10000000 + i * 0x1000 + 8, &a), MMIO_HANDLED);
        assert_int_equal(a.value, i);
        assert_int_equal(devs[i].offset, 8);
    }
    struct mmio_access a = mk_access(4, false);
    assert_int_equal(mmio_dispatch(&b, 0x20000000, &a), MMIO_UNCLAIMED);
    assert_int_equal(devs[MMIO_MAX_REGIONS].calls, 0);
}

/*
 * A guest given every device it may have (hyp/config/guest_config.h's
 * limits), registered in guest_start's order: the distributor, the UART,
 * GUEST_MAX_CHANNELS doorbell pages, the management page, GUEST_MAX_NETS
 * network devices and the virtio console.  The bus used to hold 9 regions:
 * the console, last, was refused, and its accesses aborted.
 */
static void test_bus_holds_every_device(void **state)
{
    enum { N = GUEST_VBOARD_REGIONS + GUEST_MAX_CHANNELS + 1 + GUEST_MAX_NETS + 1 };
    static struct fake_dev devs[N];
    uint32_t base[N];
    unsigned int n = 0;
    base[n++] = VBOARD_GICD_IPA;
    base[n++] = VBOARD_UART_IPA;
    for (unsigned int k = 0; k < GUEST_MAX_CHANNELS; k++)
        base[n++] = 0x60000000u + k * 0x100000u + 0x10000u;    /* after 64 KiB each */
    base[n++] = VBOARD_MANAGE_IPA;
    for (unsigned int k = 0; k < GUEST_MAX_NETS; k++)
        base[n++] = 0x0a000000u + k * VIRTIO_MMIO_SIZE;
    base[n++] = 0x0a000000u + GUEST_MAX_NETS * VIRTIO_MMIO_SIZE;   /* the console */
    assert_int_equal(n, N);
    struct mmio_bus b;
    mmio_bus_init(&b);
    for (unsigned int i = 0; i < N; i++) {
        devs[i] = (struct fake_dev){ .read_value = 0x100 + i, .answer = true };
        assert_int_equal(mmio_register(&b, base[i], 0x200, fake_handler, &devs[i]), 0);
    }
    for (unsigned int i = 0; i < N; i++) {
        struct mmio_access a = mk_access(4, false);
        assert_int_equal(mmio_dispatch(&b, base[i] + 4, &a), MMIO_HANDLED);
        assert_int_equal(a.value, 0x100 + i);
    }
}

/* ---- decode, route and load together ---- */

static void test_guest_ldrsb_from_device(void **state)
{
    /* Thumb "ldrsb r4, [r5, r6]" reading UART offset 0x18 holding 0x80 */
    uint32_t hsr = 0x91240006;
    struct mmio_access a;
    assert_true(mmio_decode(hsr, &a));
    reset_calls();
    assert_int_equal(mmio_dispatch(&bus, FAULT_IPA(0xf8000018, hpfar_of(0x09000018)), &a),
                     MMIO_HANDLED);
    assert_int_equal(uart.calls, 1);
    assert_int_equal(uart.offset, 0x18);
    assert_int_equal(uart.seen.size, 1);
    assert_false(uart.seen.write);
    assert_int_equal(HSR_DABT_SRT(hsr), 4);
    assert_int_equal(mmio_load_value(hsr, a.value), 0xffffff80);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_sizes),
        cmocka_unit_test(test_decode_every_register),
        cmocka_unit_test(test_decode_sign_extension_flag),
        cmocka_unit_test(test_decode_rejects_isv0),
        cmocka_unit_test(test_decode_rejects_cm_and_s1ptw),
        cmocka_unit_test(test_decode_ipa),
        cmocka_unit_test(test_decode_real_instructions),
        cmocka_unit_test(test_decode_real_instructions_without_syndrome),
        cmocka_unit_test(test_load_value_extension),
        cmocka_unit_test_setup(test_dispatch_by_range, bus_setup),
        cmocka_unit_test_setup(test_dispatch_boundaries, bus_setup),
        cmocka_unit_test_setup(test_dispatch_no_owner, bus_setup),
        cmocka_unit_test_setup(test_dispatch_device_answer, bus_setup),
        cmocka_unit_test(test_register_limit),
        cmocka_unit_test(test_bus_holds_every_device),
        cmocka_unit_test_setup(test_guest_ldrsb_from_device, bus_setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
