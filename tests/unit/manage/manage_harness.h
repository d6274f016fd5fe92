/*
 * The management calls on the host (tests/unit/manage/test_manage.c,
 * tests/unit/fuzz_manage.c): hyp/manage/manage.c, image.c, lifecycle.c and
 * manage_ops.c compiled in, with the real configuration checks, over three
 * guests whose RAM is host memory below 4 GiB (so a caller's buffer is
 * checked and reached as on the target: identity mapped), each followed
 * by an inaccessible page.  What lies below them - starting a guest,
 * stopping its vCPUs, its devices - is a model here that checks the
 * promises the calls rely on:
 *   - a guest's store is never written while its devices are attached
 *     (the network ports and virtio console of a halted or crashed guest
 *     could write there on a peer's behalf);
 *   - every byte of a caller's buffer is read once in a call (another of
 *     its vCPUs may change it meanwhile); with flip set, the
 *     buffer changes after every read, as such a vCPU would change it;
 *   - the CRC a guest starts with is that of its store.
 * Guest 0 (boss) is the control partition of guest 1 (worker); guest 2
 * (guarded) is no guest of its.
 */
#ifndef TESTS_UNIT_GUEST_MANAGE_HARNESS_H
#define TESTS_UNIT_GUEST_MANAGE_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* this_cpu() reads HTPIDR: the harness has one CPU of its own (below) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wint-to-pointer-cast"
#include "hyp/platform/percpu.h"
#pragma GCC diagnostic pop
#include "hyp/guest/guest.h"
#include "hyp/manage/manage.h"
#include "hyp/guest/channel.h"
#include "hyp/guest/disk.h"
#include "hyp/lib/console.h"

#define H_BOSS      0
#define H_WORKER    1
#define H_GUARDED   2
#define H_NGUESTS   3
#define H_RAM_SIZE  0x100000u               /* 1 MiB each */
#define H_PAGE      0x1000u

#ifndef H_FAIL
#define H_FAIL(...) do { fprintf(stderr, __VA_ARGS__); abort(); } while (0)
#endif
#define H_ASSERT(c) do { if (!(c)) H_FAIL("manage harness: %s (line %d)\n", #c, __LINE__); } while (0)

struct guest guests[GUEST_MAX];
unsigned int nguests;
static struct system_config h_sys;
static uint8_t *h_ram[H_NGUESTS];
static struct guest_managed h_mg;
static const uint8_t h_configured_kernel[64] = { 0xfe, 0xff, 0xff, 0xea };     /* b . */

/* the caller's buffer of the call being made, and what the model saw */
static struct {
    const uint8_t *buf;
    uint32_t len;
    uint8_t reads[H_PAGE * 2];      /* per byte, this call */
    bool flip;                      /* change the buffer after each read */
    bool idle;                      /* the worker's vCPUs have left their CPUs */
    uint32_t store_writes;          /* bytes written into the worker's RAM by a load */
    uint32_t starts;
} h;

/* ---- what manage.c and image.c stand on ---- */
static struct pcpu h_cpu;       /* index 0: every call runs "on the boot CPU" */
#define this_cpu() (&h_cpu)

void console_printf(const char *fmt, ...) { (void)fmt; }
void *page_alloc(unsigned int pages, unsigned int align) { return NULL; }
int manage_page_init(struct guest *g) { return 0; }
void sched_cpu0_work(void) {}
static uint64_t h_now;          /* the counter: stands still unless a test moves it */
uint64_t timer_now(void) { return h_now; }
static uint32_t h_freq = 1000;  /* counter ticks a second */
uint32_t timer_freq(void) { return h_freq; }
uint64_t timer_ticks_to_us(uint64_t t) { return t; }
void dcache_clean_inval_range(const void *va, uint32_t len) { (void)va; (void)len; }
void channel_counts(const struct guest *g, unsigned int k, uint32_t *rung, uint32_t *raised)
{
    *rung = *raised = 0;
}
uint64_t guest_uptime_s(const struct guest *g) { return 0; }
/* every guest a frontend of disk 'vd' and the driver of disk 'store' */
unsigned int disk_guest_counts(const struct guest *g, struct disk_counts *out)
{
    memset(out, 0, 2 * sizeof(*out));
    out[0].name = "vd";
    out[0].fe = (struct vblk_stats){ .requests = 7, .completed = 5, .failed = 2,
                                     .bad_completions = 1, .dropped = 3, .errors = 1,
                                     .read_bytes = 0x100000200ull, .written_bytes = 4096 };
    out[1].name = "store";
    out[1].driver = true;
    out[1].be = (struct blk_backend_stats){ .moved = 9, .answers = 8, .bad_answers = 2,
                                            .requeued = 4 };
    out[1].waiting = 1;
    return 2;
}

static bool h_in_buf(const void *p, size_t n)
{
    const uint8_t *b = p;
    return h.buf && b < h.buf + h.len && b + n > h.buf;
}

static bool h_in_ram(unsigned int gi, const void *p, size_t n)
{
    const uint8_t *b = p;
    return b < h_ram[gi] + H_RAM_SIZE && b + n > h_ram[gi];
}

/* every byte read from the caller's buffer counted; a store write checked */
static void *h_memcpy(void *dst, const void *src, size_t n)
{
    if (h_in_ram(H_WORKER, dst, n)) {
        H_ASSERT(!guests[H_WORKER].devices_live);      /* no device aimed at the store */
        h.store_writes += (uint32_t)n;
    }
    memmove(dst, src, n);
    if (h_in_buf(src, n)) {
        const uint8_t *s = src;
        for (size_t i = 0; i < n; i++) {
            if (s + i < h.buf || s + i >= h.buf + h.len)
                continue;
            size_t k = (size_t)(s + i - h.buf);
            if (k < sizeof(h.reads))
                H_ASSERT(++h.reads[k] == 1);        /* read once: copy once */
        }
        if (h.flip)     /* another vCPU of the caller's writes it at once */
            for (uint32_t k = 0; k < h.len; k++)
                ((uint8_t *)h.buf)[k] ^= 0xa5;
    }
    return dst;
}

/* ---- the lifecycle below the calls: a model ---- */
bool guest_vcpus_idle(struct guest *g) { return g != &guests[H_WORKER] || h.idle; }

void guest_detach_devices(struct guest *g) { g->devices_live = false; }

void guest_stop(struct guest *g)
{
    if (g->state == GUEST_RUNNING)
        g->state = GUEST_STOPPED;
    g->restart_pending = false;
    h.idle = true;
    guest_detach_devices(g);
}

uint32_t guest_image_crc(struct guest *g);
void guest_image_verify(struct guest *g);
static uint32_t h_crc32(uint32_t crc, const uint8_t *p, uint32_t n);

int guest_start(struct guest *g)
{
    H_ASSERT(g->state != GUEST_RUNNING && h.idle);
    guest_detach_devices(g);
    guest_image_verify(g);
    /* what boots is what the CRC says */
    const struct guest_config *c = g->cfg;
    uint32_t crc = h_crc32(0, c->kernel, c->kernel_size);
    if (c->initrd_size)
        crc = h_crc32(crc, c->initrd, c->initrd_size);
    H_ASSERT(guest_image_crc(g) == crc);
    g->devices_live = true;
    g->state = GUEST_RUNNING;
    g->starts++;
    h.starts++;
    return 0;
}

/* its own vCPU ends its life: devices still aimed, vCPUs still leaving */
static void h_end_life(enum guest_state to)
{
    struct guest *g = &guests[H_WORKER];
    if (g->state != GUEST_RUNNING)
        return;
    g->state = to;
    h.idle = false;
}

/* guests_service on the boot CPU: once they have left */
static void h_service(void)
{
    struct guest *g = &guests[H_WORKER];
    h.idle = true;
    if (g->devices_live && g->state != GUEST_RUNNING)
        guest_detach_devices(g);
}

static uint8_t *h_map_ram(void)
{
    /* below 4 GiB, as guest RAM is to the hypervisor, and an inaccessible
     * page after it: a write past the end faults */
    uint8_t *p = mmap(NULL, H_RAM_SIZE + H_PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    H_ASSERT(p != MAP_FAILED);
    H_ASSERT(mprotect(p + H_RAM_SIZE, H_PAGE, PROT_NONE) == 0);
    return p;
}

static void h_setup(void)
{
    static const char *const names[H_NGUESTS] = { "boss", "worker", "guarded" };
    memset(&h_sys, 0, sizeof(h_sys));
    memset(guests, 0, sizeof(guests));
    memset(&h_mg, 0, sizeof(h_mg));
    memset(&h, 0, sizeof(h));
    h.idle = true;
    h_sys.nguest_cfg = nguests = H_NGUESTS;
    for (unsigned int i = 0; i < H_NGUESTS; i++) {
        if (!h_ram[i])
            h_ram[i] = h_map_ram();
        memset(h_ram[i], 0, H_RAM_SIZE);
        struct guest_config *c = &h_sys.guest_cfg[i];
        snprintf(c->name, sizeof(c->name), "%s", names[i]);
        c->ncpus = 1;
        c->mem_base = (uint64_t)(uintptr_t)h_ram[i];
        c->mem_size = H_RAM_SIZE;
        c->kernel = h_configured_kernel;
        c->kernel_size = sizeof(h_configured_kernel);
        c->format = KERNEL_RAW;
        struct guest *g = &guests[i];
        g->cfg = g->configured = c;
        g->id = i;
        g->state = GUEST_RUNNING;
        g->devices_live = true;
        g->vcpu[0].vm = guest_vm(g);
    }
    h_sys.guest_cfg[H_BOSS].control = CONTROL_ALL;
    h_sys.guest_cfg[H_BOSS].control_guests = 1u << H_WORKER;
    guests[H_WORKER].mg = &h_mg;
}

/* a call as the boss's vCPU makes it: the hypercall, registers r[0..4] */
static void h_call(uint32_t *r)
{
    uint64_t pa;
    h.buf = NULL;
    h.len = 0;
    if (guest_config_buffer(guests[H_BOSS].cfg, r[2], r[3], &pa)) {
        h.buf = (const uint8_t *)(uintptr_t)pa;
        h.len = r[3];
    }
    memset(h.reads, 0, sizeof(h.reads));
    manage_hypercall(&guests[H_BOSS].vcpu[0], r);
    h.buf = NULL;
}

/* the boss's RAM at offset off: its IPA, and where the harness writes it */
static uint32_t h_ipa(uint32_t off) { return VBOARD_RAM_IPA + off; }
static uint8_t *h_boss(uint32_t off) { return h_ram[H_BOSS] + off; }

#endif
