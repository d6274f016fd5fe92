/*
 * The management calls from a bare-metal guest (tests/system/test_manage.py,
 * tests/system/configs/manage.dts).  With bootargs "role=control" it is the
 * control partition: it lists the guests, stops, starts and restarts
 * `worker` (the echo guest), talks to its console, loads a new image into
 * it (refused while it runs, when too big, when malformed), sees it boot
 * and survive a restart, is refused on `guarded` (not in its
 * control-guests) and on buffers outside its RAM, then runs load/start/stop
 * cycles.  Without control (role=rogue) it calls every management
 * hypercall with random arguments: every one must fail.  With "gdbrace=1"
 * (tests/system/test_gdb_hostile.py) it changes the life of the worker
 * that gdb holds from under gdb: once the worker makes no exit for 5 s
 * (held), it restarts it; once it is held again (the stub halted it
 * anew), it stops it and begins loading an image into it, and idles.
 */
#include <string.h>
#include <partita/manage_calls.h>
#include "guest.h"
#include "manage_client.h"
#include "vnet.h"

#define WORKER  worker  /* guest ids: configuration order (manage.dts) */
#define GUARDED 3
#define NGUESTS 4

static struct r4 mg(uint32_t fn, uint32_t id, const void *buf, uint32_t len, uint32_t a4)
{
    return mg_call(fn, id, (uint32_t)buf, len, a4);
}

/* A raw image for the worker: prints its banner on its UART, then sleeps */
extern const uint8_t banner_start[], banner_end[];
__asm__(".pushsection .rodata\n.balign 4\n.global banner_start\nbanner_start:\n"
        "  movw r1, #0\n  movt r1, #0x0900\n  adr r2, 1f\n"
        "2: ldrb r0, [r2], #1\n  cmp r0, #0\n  strneb r0, [r1]\n  bne 2b\n"
        "3: wfi\n  b 3b\n"
        "1: .asciz \"banner: the loaded image runs\\r\\n\"\n"
        ".balign 4\n.global banner_end\nbanner_end:\n.popsection\n");

/* the guest loaded and listened to: manage.dts's worker, or each prey of
 * managelife.dts in turn */
static uint32_t worker = 1;
static uint8_t stream[4096] __attribute__((aligned(8)));
static char out[4096];
static uint32_t out_pos;

static int32_t state_of(uint32_t id)
{
    struct partita_guest_info i;
    struct r4 r = mg(PARTITA_MG_INFO, id, &i, sizeof(i), 0);
    return r.r0 < 0 ? r.r0 : (int32_t)i.state;
}

/* wait up to ms for text in the worker's console output (from out_pos) */
static bool worker_says(const char *text, uint32_t ms)
{
    return mg_console_says(WORKER, out, sizeof(out), &out_pos, text, ms);
}

/* between the pieces of a load (life mode: a peer's frames) */
static void (*between_pieces)(void);

/* the banner as a new image of the worker, in two pieces; the result */
static int32_t load_banner_as(uint32_t kernel_size, uint32_t format)
{
    struct partita_load *h = (struct partita_load *)stream;
    uint32_t n = (uint32_t)(banner_end - banner_start);
    memset(h, 0, sizeof(*h));
    h->magic = PARTITA_LOAD_MAGIC;
    h->format = format;
    h->kernel_size = kernel_size ? kernel_size : n;
    memcpy(stream + sizeof(*h), banner_start, n);
    struct r4 r = mg(PARTITA_MG_LOAD, WORKER, stream, sizeof(*h) + 8, 0);
    if (r.r0 < 0)
        return r.r0;
    if (between_pieces)
        between_pieces();
    r = mg(PARTITA_MG_LOAD, WORKER, stream + sizeof(*h) + 8, n - 8, sizeof(*h) + 8);
    return r.r0;
}

static int32_t load_banner(uint32_t kernel_size)
{
    return load_banner_as(kernel_size, 0);
}

/* the banner behind a zImage's head: a branch over the magic at 0x24 */
static int32_t load_zimage(uint32_t magic)
{
    struct partita_load *h = (struct partita_load *)stream;
    uint32_t n = (uint32_t)(banner_end - banner_start), head = 0x30;
    uint32_t *k = (uint32_t *)(stream + sizeof(*h));
    memset(h, 0, sizeof(*h));
    h->magic = PARTITA_LOAD_MAGIC;
    h->format = 1;
    h->kernel_size = head + n;
    memset(k, 0, head);
    k[0] = 0xea000000u | (head / 4 - 2);     /* b head: over the words below */
    k[0x24 / 4] = magic;
    memcpy((uint8_t *)k + head, banner_start, n);
    return mg(PARTITA_MG_LOAD, WORKER, stream, sizeof(*h) + head + n, 0).r0;
}

static void test_version_and_list(void)
{
    test_begin("version-list");
    struct r4 v = mg(PARTITA_MG_VERSION, 0, 0, 0, 0);
    CHECK(v.r0 == (PARTITA_MANAGE_ABI_MAJOR << 16 | PARTITA_MANAGE_ABI_MINOR),
          "version 0x%lx", (unsigned long)v.r0);
    /* a bare `control`: every right, the cyclic schedule's switch (bit 7)
     * among them (hyp/config/guest_config.h) */
    CHECK(v.r1 == 0xff && v.r2 == NGUESTS && v.r3 == 0x6, "rights 0x%lx guests %lu mask 0x%lx",
          (unsigned long)v.r1, (unsigned long)v.r2, (unsigned long)v.r3);
    /* the worker has no memory-bandwidth budget: none to read or change */
    struct partita_budget bu;
    struct r4 rb = mg(PARTITA_MG_BUDGET, WORKER, &bu, sizeof(bu), 0);
    struct r4 sb = mg_call(PARTITA_MG_BUDGET_SET, WORKER, 1000, 4000, 0);
    CHECK(rb.r0 == PARTITA_E_INVALID && sb.r0 == PARTITA_E_INVALID, "budget of the worker: "
          "%ld, set: %ld", (long)rb.r0, (long)sb.r0);
    static const char *const names[] = { "boss", "worker", "rogue", "guarded" };
    for (uint32_t id = 0; id < NGUESTS; id++) {
        struct partita_guest_info i;
        struct r4 r = mg(PARTITA_MG_INFO, id, &i, sizeof(i), 0);
        if (id == GUARDED) {
            CHECK(r.r0 == PARTITA_E_DENIED, "info of guarded: %ld", (long)r.r0);
            continue;
        }
        CHECK(r.r0 == sizeof(i) && strcmp(i.name, names[id]) == 0 && i.id == id,
              "info %lu: %ld '%s'", (unsigned long)id, (long)r.r0, i.name);
        gprintf("list: %s %lu vcpus cpu%lu %luM crc 0x%08lx\n", i.name, (unsigned long)i.nvcpus,
                (unsigned long)i.pcpu[0], (unsigned long)(i.mem_size_lo >> 20),
                (unsigned long)i.image_crc32);
    }
    CHECK(mg(PARTITA_MG_INFO, 99, stream, 64, 0).r0 == PARTITA_E_INVALID, "info of guest 99");
    test_end();
}

static void test_buffers(void)
{
    test_begin("buffers");
    /* outside its RAM, straddling its end, wrapping: refused, never followed */
    uint32_t ram_end = 0x40000000u + 0x01000000u;
    CHECK(mg(PARTITA_MG_INFO, WORKER, (void *)0x09000000u, 64, 0).r0 == PARTITA_E_ADDRESS,
          "a buffer in the UART");
    CHECK(mg(PARTITA_MG_INFO, WORKER, (void *)(ram_end - 16), 64, 0).r0 == PARTITA_E_ADDRESS,
          "a buffer straddling the end of RAM");
    CHECK(mg(PARTITA_MG_INFO, WORKER, (void *)ram_end, 64, 0).r0 == PARTITA_E_ADDRESS,
          "a buffer just past RAM");
    CHECK(mg(PARTITA_MG_STATS, WORKER, (void *)0x48000000u, 64, 0).r0 == PARTITA_E_ADDRESS,
          "a buffer at another guest's physical address");
    CHECK(mg(PARTITA_MG_INFO, WORKER, stream, 0xfffffff0u, 0).r0 == PARTITA_E_ADDRESS,
          "a length that wraps");
    /* a short buffer gets the start of the structure */
    CHECK(mg(PARTITA_MG_INFO, WORKER, stream, 8, 0).r0 == 8, "a short buffer");
    test_end();
}

static void test_lifecycle(void)
{
    test_begin("lifecycle");
    CHECK(worker_says("echo", 5000), "the worker's banner never showed: '%s'", out);
    CHECK(mg(PARTITA_MG_STOP, WORKER, 0, 0, 0).r0 == 0, "stop");
    CHECK(state_of(WORKER) == PARTITA_STOPPED, "stopped: %ld", (long)state_of(WORKER));
    CHECK(mg(PARTITA_MG_STOP, WORKER, 0, 0, 0).r0 == PARTITA_E_STATE, "stop twice");
    CHECK(mg(PARTITA_MG_START, WORKER, 0, 0, 0).r0 == 0, "start");
    CHECK(mg(PARTITA_MG_START, WORKER, 0, 0, 0).r0 == PARTITA_E_STATE, "start twice");
    CHECK(state_of(WORKER) == PARTITA_RUNNING, "running: %ld", (long)state_of(WORKER));
    CHECK(mg(PARTITA_MG_RESTART, WORKER, 0, 0, 0).r0 == 0, "restart");
    CHECK(worker_says("ready", 5000), "no banner after the restart: '%s'", out);
    /* its console input */
    static const char cmd[] = "ping-from-boss\r";
    CHECK(mg(PARTITA_MG_CONSOLE_WRITE, WORKER, cmd, sizeof(cmd) - 1, 0).r0 == sizeof(cmd) - 1,
          "console write");
    CHECK(worker_says("got: ping-from-boss", 5000), "no answer: '%s'", out);
    struct partita_guest_stats s;
    CHECK(mg(PARTITA_MG_STATS, WORKER, &s, sizeof(s), 0).r0 == sizeof(s) && s.nvcpus == 1 &&
          s.vcpu[0].exits_lo > 0, "stats");
    /* not its guest, or not a guest */
    CHECK(mg(PARTITA_MG_STOP, GUARDED, 0, 0, 0).r0 == PARTITA_E_DENIED, "stop guarded");
    CHECK(mg(PARTITA_MG_STOP, 0, 0, 0, 0).r0 == PARTITA_E_DENIED, "stop itself");
    CHECK(mg(PARTITA_MG_STOP, 7, 0, 0, 0).r0 == PARTITA_E_INVALID, "stop guest 7");
    test_end();
}

static void test_load(void)
{
    test_begin("load");
    CHECK(load_banner(0) == PARTITA_E_STATE, "a load into the running worker");
    CHECK(mg(PARTITA_MG_STOP, WORKER, 0, 0, 0).r0 == 0, "stop");
    CHECK(load_banner(0x02000000u) == PARTITA_E_FIT, "32 MiB into 16 MiB");
    CHECK(load_banner(0x00ff0000u) == PARTITA_E_FIT, "an image over its device tree");
    stream[0] ^= 1;     /* bad magic */
    CHECK(mg(PARTITA_MG_LOAD, WORKER, stream, sizeof(struct partita_load), 0).r0 ==
          PARTITA_E_INVALID, "a bad header");
    CHECK(mg(PARTITA_MG_LOAD, WORKER, stream, 8, 100).r0 == PARTITA_E_INVALID,
          "a piece with no load begun");
    int32_t rc = load_banner(0);
    CHECK(rc > 0 && (rc & PARTITA_LOAD_DONE), "load: %ld", (long)rc);
    struct partita_guest_info i;
    uint32_t n = (uint32_t)(banner_end - banner_start);
    mg(PARTITA_MG_INFO, WORKER, &i, sizeof(i), 0);
    CHECK(i.image_loaded == 1 && i.image_size == n && i.image_crc32 == mg_crc32(banner_start, n),
          "info: loaded %lu size %lu crc 0x%08lx", (unsigned long)i.image_loaded,
          (unsigned long)i.image_size, (unsigned long)i.image_crc32);
    /* a refused load leaves the loaded image as it was */
    uint32_t crc_before = i.image_crc32;
    CHECK(load_banner(0x02000000u) == PARTITA_E_FIT, "32 MiB after a load");
    mg(PARTITA_MG_INFO, WORKER, &i, sizeof(i), 0);
    CHECK(i.image_loaded == 1 && i.image_size == n && i.image_crc32 == crc_before,
          "a refused load changed the image: loaded %lu size %lu", (unsigned long)i.image_loaded,
          (unsigned long)i.image_size);
    /* another image in the same place: its own CRC */
    struct partita_load *h = (struct partita_load *)stream;
    h->kernel_size = n + 4;
    memset(stream + sizeof(*h) + n, 0xa5, 4);
    int32_t rc2 = mg(PARTITA_MG_LOAD, WORKER, stream, sizeof(*h) + n + 4, 0).r0;
    mg(PARTITA_MG_INFO, WORKER, &i, sizeof(i), 0);
    CHECK(rc2 > 0 && i.image_size == n + 4 &&
          i.image_crc32 == mg_crc32(stream + sizeof(*h), n + 4), "a second image: %ld, crc 0x%08lx",
          (long)rc2, (unsigned long)i.image_crc32);
    /* the Linux format: a zImage, or refused; placed at RAM + 32 KiB and
     * entered with r2 = its DTB (the banner is position independent: a
     * zImage's magic word at 0x24 in its code is skipped by a branch) */
    CHECK(load_banner_as(0, 1) == PARTITA_E_INVALID, "a zImage's head split");
    CHECK(load_zimage(0x12345678u) == PARTITA_E_INVALID, "a zImage without its magic");
    CHECK(load_zimage(0x016f2818u) > 0, "the banner as a zImage");
    CHECK(mg(PARTITA_MG_START, WORKER, 0, 0, 0).r0 == 0, "start as a zImage");
    CHECK(worker_says("banner: the loaded image runs", 5000), "no banner as a zImage");
    CHECK(mg(PARTITA_MG_STOP, WORKER, 0, 0, 0).r0 == 0, "stop the zImage");
    CHECK(load_banner(0) > 0, "the banner again");
    CHECK(mg(PARTITA_MG_START, WORKER, 0, 0, 0).r0 == 0, "start");
    CHECK(worker_says("banner: the loaded image runs", 5000), "no banner: '%s'", out);
    CHECK(mg(PARTITA_MG_RESTART, WORKER, 0, 0, 0).r0 == 0, "restart");
    CHECK(worker_says("banner: the loaded image runs", 5000), "no banner after a restart");
    test_end();
}

static void test_cycles(uint32_t count)
{
    test_begin("cycles");
    /* the operator measures the hypervisor's free memory, then stops the
     * worker at the monitor: that is the signal */
    gprintf("cycles: waiting for worker to be stopped at the monitor\n");
    uint64_t end = cntvct() + ms_to_ticks(60000);
    while (state_of(WORKER) != PARTITA_STOPPED && cntvct() < end)
        delay_ms(10);
    CHECK(state_of(WORKER) == PARTITA_STOPPED, "worker was not stopped at the monitor");
    uint32_t ok = 0;
    for (uint32_t k = 0; k < count; k++) {
        int32_t stop = k ? mg(PARTITA_MG_STOP, WORKER, 0, 0, 0).r0 : 0;
        int32_t load = load_banner(0);
        int32_t start = mg(PARTITA_MG_START, WORKER, 0, 0, 0).r0;
        /* each life prints the banner anew */
        ok += stop == 0 && load > 0 && start == 0 &&
              worker_says("banner: the loaded image runs", 5000);
    }
    CHECK(ok == count, "%lu of %lu cycles went through", (unsigned long)ok,
          (unsigned long)count);
    test_end();
}

/* not a control partition: every call, any arguments, is refused */
static void rogue(void)
{
    test_begin("rogue");
    /* every call, in ID order (include/partita/manage_calls.h) */
    static const uint32_t calls[] = { PARTITA_MG_ALL_CALLS };
    const uint32_t nfn = sizeof(calls) / sizeof(calls[0]);
    uint32_t x = 0x12345678u, ok = 0, n = 20000;
    for (uint32_t k = 0; k < n; k++) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        uint32_t fn = calls[k % nfn];
        uint32_t id = x & 7, buf = x * 2654435761u, len = x >> (x & 31);
        struct r4 r = mg(fn, k & 1 ? id : x, (void *)(k & 2 ? buf : (uint32_t)stream),
                         k & 4 ? len : 64, x);
        ok += r.r0 == PARTITA_E_DENIED;
    }
    CHECK(ok == n, "%lu of %lu calls refused", (unsigned long)ok, (unsigned long)n);
    test_end();
}


/*
 * Life mode (tests/system/configs/managelife.dts, test_manage.py
 * test_load_into_every_state): each prey (guests/test/prey.c) aims every
 * receive buffer of its network device at the top of its RAM, where the
 * store of an image goes, and ends its life its own way; this control
 * partition, a member of the same network, loads the banner into it in
 * that state and sends broadcast frames between the load's pieces and
 * after it.  The image must boot intact, with the CRC `info` shows.
 */
#define PREYS 5
static const struct { const char *end; int32_t state; } preys[PREYS] = {
    { "halt", PARTITA_HALTED }, { "crash", PARTITA_CRASHED }, { "stop", PARTITA_STOPPED },
    { "halt-tx", PARTITA_HALTED }, { "crash-tx", PARTITA_CRASHED },
};
static struct vnet net;
static uint32_t frames_sent;

/* one broadcast frame to every member: every prey's old buffers */
static void send_frame(void)
{
    static uint8_t frame[128];
    memset(frame, 0xff, 6);
    memcpy(frame + 6, net.mac, 6);
    frame[12] = 0x88;
    frame[13] = 0xb6;
    memset(frame + 14, 0xe7, sizeof(frame) - 14);      /* undefined instructions */
    uint8_t rx[64];
    while (vnet_recv(&net, rx, sizeof(rx)))
        ;       /* drain: the preys' frames to it */
    for (int tries = 0; tries < 100 && !vnet_send(&net, frame, sizeof(frame)); tries++)
        delay_ms(1);
    frames_sent++;
    delay_ms(20);       /* switched on the next exit: let it land */
}

static void test_prey(uint32_t id, const char *end, int32_t want)
{
    uint32_t n = (uint32_t)(banner_end - banner_start);
    worker = id;
    out_pos = 0;
    /* "ending" follows "aimed": its buffers are at the top of its RAM */
    CHECK(worker_says("ending", 10000), "%s: never aimed its buffers: '%s'", end, out);
    if (want == PARTITA_STOPPED) {
        CHECK(load_banner(0) == PARTITA_E_STATE, "%s: a load into the running prey", end);
        CHECK(mg(PARTITA_MG_STOP, id, 0, 0, 0).r0 == 0, "%s: stop", end);
    }
    uint64_t until = cntvct() + ms_to_ticks(10000);
    while (state_of(id) != want && cntvct() < until)
        delay_ms(5);
    CHECK(state_of(id) == want, "%s: state %ld, not %ld", end, (long)state_of(id), (long)want);
    /* its vCPUs may still be leaving: the load is refused until they have */
    int32_t rc = PARTITA_E_STATE;
    for (int tries = 0; tries < 100 && rc == PARTITA_E_STATE; tries++) {
        rc = load_banner(0);
        if (rc == PARTITA_E_STATE)
            delay_ms(10);
    }
    CHECK(rc > 0 && (rc & PARTITA_LOAD_DONE), "%s: load: %ld", end, (long)rc);
    send_frame();
    struct partita_guest_info i;
    mg(PARTITA_MG_INFO, id, &i, sizeof(i), 0);
    CHECK(i.image_loaded && i.image_size == n && i.image_crc32 == mg_crc32(banner_start, n),
          "%s: info after the load: crc 0x%08lx", end, (unsigned long)i.image_crc32);
    CHECK(mg(PARTITA_MG_START, id, 0, 0, 0).r0 == 0, "%s: start", end);
    CHECK(worker_says("banner: the loaded image runs", 5000), "%s: the loaded image did not "
          "boot intact: '%s'", end, out);
    mg(PARTITA_MG_INFO, id, &i, sizeof(i), 0);
    CHECK(i.image_crc32 == mg_crc32(banner_start, n), "%s: info once it runs: crc 0x%08lx", end,
          (unsigned long)i.image_crc32);
    gprintf("life: %s: loaded, boots intact\n", end);
}

static void life(void)
{
    test_begin("life-setup");
    mmu_enable();           /* the device is DMA coherent: cacheable rings */
    CHECK(vnet_setup(&net), "no network device");
    test_end();
    between_pieces = send_frame;
    for (uint32_t k = 0; k < PREYS; k++) {
        char name[16] = "life-";
        strncpy(name + 5, preys[k].end, sizeof(name) - 6);
        test_begin(name);
        test_prey(1 + k, preys[k].end, preys[k].state);
        test_end();
    }
}

/* the worker's exits, all its vCPUs: a guest gdb holds makes none */
static uint64_t worker_exits(void)
{
    static struct partita_guest_stats s;
    if (mg(PARTITA_MG_STATS, WORKER, &s, sizeof(s), 0).r0 != (int32_t)sizeof(s))
        return ~0ull;
    uint64_t n = 0;
    for (uint32_t i = 0; i < s.nvcpus && i < PARTITA_INFO_VCPUS; i++)
        n += s.vcpu[i].exits_lo | (uint64_t)s.vcpu[i].exits_hi << 32;
    return n;
}

/* until the worker made no exit for quiet_ms of this guest's time */
static uint64_t wait_worker_held(uint32_t quiet_ms)
{
    uint64_t last = worker_exits(), since = cntvct();
    for (;;) {
        delay_ms(100);
        uint64_t n = worker_exits();
        if (n != last) {
            last = n;
            since = cntvct();
        } else if (cntvct() - since >= ms_to_ticks(quiet_ms)) {
            return n;
        }
    }
}

static void gdb_race(void)
{
    uint64_t n = wait_worker_held(5000);
    gprintf("gdbrace: worker held, %lu exits\n", (unsigned long)n);
    gprintf("gdbrace: restart %ld\n", (long)mg(PARTITA_MG_RESTART, WORKER, 0, 0, 0).r0);
    n = wait_worker_held(5000);
    gprintf("gdbrace: worker held again, %lu exits\n", (unsigned long)n);
    int32_t stop = mg(PARTITA_MG_STOP, WORKER, 0, 0, 0).r0;
    /* the first piece of the banner's image: the worker is being loaded */
    struct partita_load *h = (struct partita_load *)stream;
    memset(h, 0, sizeof(*h));
    h->magic = PARTITA_LOAD_MAGIC;
    h->kernel_size = (uint32_t)(banner_end - banner_start);
    memcpy(stream + sizeof(*h), banner_start, 8);
    int32_t load = mg(PARTITA_MG_LOAD, WORKER, stream, sizeof(*h) + 8, 0).r0;
    gprintf("gdbrace: stop %ld, load begun %ld\n", (long)stop, (long)load);
    for (;;)
        delay_ms(1000);
}

static void gdb_restarts(uint32_t count)
{
    uint64_t n = wait_worker_held(2000);
    gprintf("gdbrestarts: worker held, %lu exits\n", (unsigned long)n);
    for (uint32_t i = 0; i < count; i++) {
        int32_t rc = mg(PARTITA_MG_RESTART, WORKER, 0, 0, 0).r0;
        gprintf("gdbrestarts: restart %lu: %ld\n", (unsigned long)i, (long)rc);
        delay_ms(200);
    }
    gprintf("gdbrestarts: done\n");
    for (;;)
        delay_ms(1000);
}

volatile uint32_t mgspin_go;

/* mgspin=2 mgtarget=ID: after two seconds, restarts guest ID back to
 * back, each restart a scrub of its memory on the boot CPU
 * (tests/system/test_manage_share.py) */
static void mg_restarts(void)
{
    uint32_t target = 0, busy = 0;
    bootarg_u32("mgtarget", &target);
    delay_ms(2000);
    gprintf("mgspin: restarting %lu\n", (unsigned long)target);
    for (uint32_t n = 1;; n++) {
        int32_t rc = mg(PARTITA_MG_RESTART, target, 0, 0, 0).r0;
        if (rc == PARTITA_E_BUSY)
            busy++;
        else if (rc < 0)
            gprintf("mgspin: call %lu failed: %ld\n", (unsigned long)n, (long)rc);
        if (n % 10 == 0)
            gprintf("mgspin: %lu restarts, %lu busy\n", (unsigned long)n, (unsigned long)busy);
    }
}

/* mgspin=1: calls back to back once gdb sets mgspin_go */
static void mg_spin(uint32_t mode)
{
    if (mode == 2)
        mg_restarts();
    gprintf("mgspin: ready, go at 0x%08lx\n", (unsigned long)&mgspin_go);
    while (!mgspin_go)
        delay_ms(50);
    /* busy: gdb halted it in a call the boot CPU had not begun, which was
     * withdrawn (hyp/manage/manage.c caller_halts); made again */
    uint32_t busy = 0;
    for (uint32_t n = 1;; n++) {
        int32_t rc = mg(PARTITA_MG_VERSION, 0, 0, 0, 0).r0;
        if (rc == PARTITA_E_BUSY)
            busy++;
        else if (rc < 0)
            gprintf("mgspin: call %lu failed\n", (unsigned long)n);
        if (n % 200 == 0)
            gprintf("mgspin: %lu calls, %lu busy\n", (unsigned long)n, (unsigned long)busy);
    }
}

void guest_main(uint32_t dtb)
{
    uint32_t role = 0, cycles = 100, life_mode = 0, race = 0, restarts = 0, spin = 0;
    bootarg_u32("rogue", &role);
    bootarg_u32("cycles", &cycles);
    bootarg_u32("life", &life_mode);
    bootarg_u32("gdbrace", &race);
    bootarg_u32("gdbrestarts", &restarts);
    bootarg_u32("mgspin", &spin);
    if (spin)
        mg_spin(spin);
    if (restarts)
        gdb_restarts(restarts);
    if (race)
        gdb_race();
    if (life_mode) {
        life();
    } else if (role) {
        rogue();
    } else {
        test_version_and_list();
        test_buffers();
        test_lifecycle();
        test_load();
        test_cycles(cycles);
    }
    tests_finish();
    guest_poweroff();
}
