/*
 * A hostile control partition (tests/system/configs/managehostile.dts,
 * tests/system/test_manage.py test_hostile_control_partition): with two
 * vCPUs it races every management call at once - random (fixed seeds)
 * and boundary registers, buffers outside its RAM and straddling its end,
 * calls through its management page with both vCPUs writing it at once,
 * load streams whole, torn and malformed, start, stop and restart of its
 * managed guest 'target' from both vCPUs at once - and every answer must
 * be one the ABI defines, every call on a guest not its own refused.
 * Then, alone, it loads into 'target' in every state: running (refused),
 * stopped, halted and crashed (by images of its own that power off or
 * crash), each load booting intact with the CRC `info` shows.
 * Honest partitions run beside it (rt, victim): the test checks them.
 * bootargs: seed=N calls=N
 */
#include <string.h>
#include <partita/manage_calls.h>
#include "guest.h"
#include "manage_client.h"

#define SELF     0      /* guest ids: configuration order (managehostile.dts) */
#define TARGET   1
#define VICTIM   2
#define NGUESTS  4
#define RAM_END  (RAM_BASE + 0x01000000u)
#define PSCI_CPU_ON_32 0x84000003u
#define BUF      4096u


/* three raw images for the target: the banner (prints, sleeps), one that
 * powers itself off (PSCI SYSTEM_OFF), one that crashes (its vectors at
 * an address with nothing there, then an abort) */
extern const uint8_t banner_start[], banner_end[], halter_start[], halter_end[],
       crasher_start[], crasher_end[];
__asm__(".pushsection .rodata\n.balign 4\n"
        ".global banner_start\nbanner_start:\n"
        "  movw r1, #0\n  movt r1, #0x0900\n  adr r2, 1f\n"
        "2: ldrb r0, [r2], #1\n  cmp r0, #0\n  strneb r0, [r1]\n  bne 2b\n"
        "3: wfi\n  b 3b\n"
        "1: .asciz \"banner: the loaded image runs\\r\\n\"\n"
        ".balign 4\n.global banner_end\nbanner_end:\n"
        ".global halter_start\nhalter_start:\n"
        "  movw r0, #0x0008\n  movt r0, #0x8400\n  hvc #0\n4: b 4b\n"
        ".global halter_end\nhalter_end:\n"
        ".global crasher_start\ncrasher_start:\n"
        "  movw r0, #0\n  movt r0, #0x7f00\n  mcr p15, 0, r0, c12, c0, 0\n  isb\n"
        "  ldr r1, [r0]\n5: b 5b\n"
        ".global crasher_end\ncrasher_end:\n.popsection\n");

static bool known(int32_t rc)
{
    return rc >= 0 || rc == PARTITA_E_NOT_SUPPORTED || rc == PARTITA_E_INVALID ||
           rc == PARTITA_E_DENIED || rc == PARTITA_E_STATE || rc == PARTITA_E_FIT ||
           rc == PARTITA_E_BUSY || rc == PARTITA_E_ADDRESS;
}

/* ---- the race: both vCPUs ---- */
static uint8_t bufs[2][BUF] __attribute__((aligned(8)));
static volatile uint32_t v1_go, v1_done, v1_bad, v1_calls;
static uint32_t calls = 3000, seed = 1;

/* a buffer: its own, or one it may not name */
static uint32_t pick_buf(uint32_t r, uint32_t mine, uint32_t *len)
{
    static const uint32_t lens[] = { 0, 1, 64, BUF, 0x1000, 0xffffffffu, 0x80000000u };
    uint32_t l = lens[(r >> 4) % 7];
    switch (r % 6) {
    case 0: *len = l; return RAM_END - (l < 64 ? l : 64) + 1;     /* straddles its end */
    case 1: *len = l; return 0x09000000u;                          /* the UART */
    case 2: *len = l; return 0x48000000u;                          /* a physical address */
    case 3: *len = l; return r | 0x80000000u;
    default: *len = l <= BUF && l ? l : BUF; return mine;         /* its own */
    }
}

/* a load piece into its own buffer: a header (good or not) and banner
 * bytes, or a later piece at some offset */
static void fill_load(uint8_t *b, uint32_t r, uint32_t *len, uint32_t *off)
{
    struct partita_load *h = (struct partita_load *)b;
    uint32_t n = (uint32_t)(banner_end - banner_start);
    if (r & 1) {
        memset(h, 0, sizeof(*h));
        h->magic = r & 2 ? PARTITA_LOAD_MAGIC : r;
        h->format = (r >> 2) % 3;
        h->kernel_size = r & 0x10 ? n : r >> 8;
        h->initrd_size = r & 0x20 ? r >> 12 : 0;
        h->load_offset = r & 0x40 ? r : 0;
        memcpy(b + sizeof(*h), banner_start, n);
        *len = sizeof(*h) + (r & 0x80 ? n : n / 2);
        *off = 0;
    } else {
        memcpy(b, banner_start + n / 2, n - n / 2);
        *len = n - n / 2;
        *off = r & 2 ? sizeof(*h) + n / 2 : r >> 4;
    }
}

/* The same calls through its management page (include/partita/manage_abi.h,
 * PARTITA_MGPAGE_*), which both vCPUs share: each may change the other's
 * arguments and data words while a call runs - only the answer's form is
 * checked.  At most PAGE_DATA bytes of the buffer go to the data page. */
#define MGPAGE    0x090c0000u       /* hyp/config/guest_config.h VBOARD_MANAGE_IPA */
#define PAGE_DATA 512u

static int32_t page_call(uint32_t fn, uint32_t id, const uint8_t *src, uint32_t len, uint32_t a4)
{
    for (uint32_t i = 0; i < len && i < PAGE_DATA; i += 4) {
        uint32_t w;
        memcpy(&w, src + i, 4);
        mmio_write32(MGPAGE + PARTITA_MGPAGE_DATA + i, w);
    }
    mmio_write32(MGPAGE + PARTITA_MGPAGE_ARG(1), id);
    mmio_write32(MGPAGE + PARTITA_MGPAGE_ARG(3), len);
    mmio_write32(MGPAGE + PARTITA_MGPAGE_ARG(4), a4);
    mmio_write32(MGPAGE + PARTITA_MGPAGE_CALL, fn);
    return (int32_t)mmio_read32(MGPAGE + PARTITA_MGPAGE_RET(0));
}

/* random calls from vCPU cpu: the answers that are not the ABI's counted */
static uint32_t race(unsigned int cpu, uint32_t x, uint32_t n)
{
    uint32_t bad = 0, mine = (uint32_t)bufs[cpu];
    for (uint32_t k = 0; k < n; k++) {
        if (cpu)
            v1_calls = k;
        uint32_t r = rand_next(&x), len, off = rand_next(&x), fn, id, buf;
        /* the lifecycle calls and loads on its guest most, then anything */
        static const uint32_t life[] = { PARTITA_MG_START, PARTITA_MG_STOP, PARTITA_MG_RESTART,
                                         PARTITA_MG_LOAD, PARTITA_MG_LOAD, PARTITA_MG_INFO };
        static const uint32_t any[] = { PARTITA_MG_ALL_CALLS, PARTITA_MG_BESIDE_CALLS };
        fn = r % 3 ? life[(r >> 2) % 6] : any[(r >> 2) % (sizeof(any) / sizeof(any[0]))];
        id = (r >> 8) % 8 ? TARGET : (r >> 11) % 2 ? VICTIM : (r >> 12) % 2 ? SELF : r >> 13;
        if (fn == PARTITA_MG_LOAD && (r >> 16) % 4) {
            fill_load(bufs[cpu], rand_next(&x), &len, &off);
            buf = mine;
        } else {
            buf = pick_buf(r >> 16, mine, &len);
        }
        if ((r >> 20) % 4 == 0) {      /* through the shared page */
            int32_t rc = page_call(fn, id, bufs[cpu], len, off);
            if (!known(rc) && bad++ < 5)
                gprintf("race: vCPU %u: page call 0x%08lx: %ld\n", cpu, (unsigned long)fn,
                        (long)rc);
            continue;
        }
        int32_t rc = mg_call(fn, id, buf, len, off).r0;
        /* on any guest but its own (itself, the honest ones, none) no call
         * about a guest succeeds (all but VERSION and the schedules, which
         * are the system's) - but INFO of itself, which describes it */
        bool on_guest = ((fn > PARTITA_MG_VERSION && fn <= PARTITA_MG_LAST) ||
                         fn == PARTITA_MG_HEALTH) && !(fn == PARTITA_MG_INFO && id == SELF);
        if (!known(rc) || (on_guest && id != TARGET && rc >= 0)) {
            if (bad++ < 5)
                gprintf("race: vCPU %u: fn 0x%08lx id %lu buf 0x%08lx len 0x%lx: %ld\n", cpu,
                        (unsigned long)fn, (unsigned long)id, (unsigned long)buf,
                        (unsigned long)len, (long)rc);
        }
    }
    return bad;
}

void guest_secondary(unsigned int cpu)
{
    while (!v1_go)
        ;
    v1_bad = race(1, seed * 0x9e3779b9u + 1, calls);
    dsb();
    v1_done = 1;
}

static void test_race(void)
{
    test_begin("race");
    /* context id 1: vCPU 1 takes its own stack (guests/lib/start.S) */
    int32_t on = (int32_t)hvc_call(PSCI_CPU_ON_32, 1, (uint32_t)secondary_start, 1).r0;
    CHECK(on == 0, "CPU_ON vCPU 1: %ld", (long)on);
    v1_go = 1;
    dsb();
    uint32_t bad = race(0, seed, calls);
    uint64_t until = cntvct() + ms_to_ticks(120000);
    while (!v1_done && cntvct() < until)
        delay_ms(10);
    CHECK(v1_done, "vCPU 1 made %lu of %lu calls", (unsigned long)v1_calls,
          (unsigned long)calls);
    CHECK(bad == 0 && v1_bad == 0, "answers the ABI does not give: vCPU 0 %lu, vCPU 1 %lu",
          (unsigned long)bad, (unsigned long)v1_bad);
    gprintf("race: %lu calls from each of 2 vCPUs\n", (unsigned long)calls);
    test_end();
}

/* ---- then alone: a load into every state ---- */
static char out[4096];
static uint32_t out_pos;

static int32_t state_of(uint32_t id)
{
    struct partita_guest_info i;
    struct r4 r = mg_call(PARTITA_MG_INFO, id, (uint32_t)&i, sizeof(i), 0);
    return r.r0 < 0 ? r.r0 : (int32_t)i.state;
}

/* the target's output from now on */
static void skip_output(void)
{
    for (int k = 0; k < 64; k++) {
        struct r4 r = mg_call(PARTITA_MG_CONSOLE_READ, TARGET, (uint32_t)out, sizeof(out) - 1, out_pos);
        if (r.r0 <= 0)
            return;
        out_pos = r.r1;
    }
}

static bool target_says(const char *text, uint32_t ms)
{
    return mg_console_says(TARGET, out, sizeof(out), &out_pos, text, ms);
}

/* an image into the target, in one piece; refused while its vCPUs leave */
static int32_t load(const uint8_t *img, uint32_t n)
{
    struct partita_load *h = (struct partita_load *)bufs[0];
    memset(h, 0, sizeof(*h));
    h->magic = PARTITA_LOAD_MAGIC;
    h->kernel_size = n;
    memcpy(bufs[0] + sizeof(*h), img, n);
    int32_t rc = PARTITA_E_STATE;
    for (int tries = 0; tries < 200 && rc == PARTITA_E_STATE; tries++) {
        rc = mg_call(PARTITA_MG_LOAD, TARGET, (uint32_t)bufs[0], sizeof(*h) + n, 0).r0;
        if (rc == PARTITA_E_STATE)
            delay_ms(10);
    }
    return rc;
}

static bool wait_state(int32_t want)
{
    uint64_t until = cntvct() + ms_to_ticks(10000);
    while (state_of(TARGET) != want && cntvct() < until)
        delay_ms(5);
    return state_of(TARGET) == want;
}

/* the banner into the target in state `name`, then it must boot intact */
static void banner_boots(const char *name)
{
    uint32_t n = (uint32_t)(banner_end - banner_start);
    int32_t rc = load(banner_start, n);
    CHECK(rc > 0 && (rc & PARTITA_LOAD_DONE), "%s: load: %ld", name, (long)rc);
    struct partita_guest_info i;
    mg_call(PARTITA_MG_INFO, TARGET, (uint32_t)&i, sizeof(i), 0);
    CHECK(i.image_loaded && i.image_crc32 == mg_crc32(banner_start, n), "%s: crc 0x%08lx", name,
          (unsigned long)i.image_crc32);
    skip_output();
    CHECK(mg_call(PARTITA_MG_START, TARGET, 0, 0, 0).r0 == 0, "%s: start", name);
    CHECK(target_says("banner: the loaded image runs", 5000), "%s: no banner: '%s'", name, out);
    mg_call(PARTITA_MG_INFO, TARGET, (uint32_t)&i, sizeof(i), 0);
    CHECK(i.image_crc32 == mg_crc32(banner_start, n), "%s: crc once running 0x%08lx", name,
          (unsigned long)i.image_crc32);
    gprintf("every-state: %s: loaded, boots intact\n", name);
}

/* start the target on img and let it end its life as img does */
static void end_with(const uint8_t *img, uint32_t n, int32_t state, const char *name)
{
    int32_t rc = load(img, n);
    CHECK(rc > 0 && (rc & PARTITA_LOAD_DONE), "%s: its image: %ld", name, (long)rc);
    CHECK(mg_call(PARTITA_MG_START, TARGET, 0, 0, 0).r0 == 0, "%s: start", name);
    CHECK(wait_state(state), "%s: state %ld", name, (long)state_of(TARGET));
}

static void test_every_state(void)
{
    test_begin("every-state");
    mg_call(PARTITA_MG_STOP, TARGET, 0, 0, 0);       /* whatever the race left */
    CHECK(wait_state(PARTITA_STOPPED), "not stopped: %ld", (long)state_of(TARGET));
    banner_boots("stopped");
    CHECK(load(banner_start, 8) == PARTITA_E_STATE, "a load into the running target");
    CHECK(mg_call(PARTITA_MG_STOP, TARGET, 0, 0, 0).r0 == 0, "stop");
    end_with(halter_start, (uint32_t)(halter_end - halter_start), PARTITA_HALTED, "halted");
    banner_boots("halted");
    CHECK(mg_call(PARTITA_MG_STOP, TARGET, 0, 0, 0).r0 == 0, "stop");
    end_with(crasher_start, (uint32_t)(crasher_end - crasher_start), PARTITA_CRASHED,
             "crashed");
    banner_boots("crashed");
    test_end();
}

void guest_main(uint32_t dtb)
{
    bootarg_u32("seed", &seed);
    bootarg_u32("calls", &calls);
    test_race();
    test_every_state();
    tests_finish();
    guest_poweroff();
}
