/*
 * Host unit tests for channels at run time (hyp/guest/channel.c): ringing raises
 * the doorbell SPI in every other running member and nowhere else, the
 * doorbell page's registers, the counters, and the Stage-2 entries (rights
 * and the non-cacheable attribute), over fixtures/config-channels.dts as
 * the real parser reads it.  channel.c is included here so that its one
 * barrier can be a stub on the host; the vGIC is a recorder.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libfdt.h>
#include "fixture.h"

/* arch/sysregs.h's barriers are ARM instructions: the one channel.c uses,
 * dsb_ish, is counted instead (its field definitions are plain C) */
#include <arch/sysregs.h>
static unsigned int barriers;
#define dsb_ish() ((void)barriers++)
#include <partita/chan_doorbell.h>
#include "hyp/guest/channel.c"

/* ---- what channel.c calls ---- */

struct guest guests[GUEST_MAX];
static struct { const struct vgic *d; unsigned int intid; } raised[64];
static unsigned int nraised;

void vgic_inject_edge(struct vgic *d, unsigned int vcpu, unsigned int intid)
{
    assert_true(nraised < 64);
    raised[nraised].d = d;
    raised[nraised].intid = intid;
    nraised++;
}

void dcache_clean_inval_range(const void *va, uint32_t len) { (void)va; (void)len; }
/* guest.c's: the doorbell page on the guest's bus, refused as it would be */
int guest_mmio_add(struct guest *g, const char *prop, uint64_t base, uint64_t size,
                   mmio_handler_t h, void *dev)
{
    (void)prop;
    return mmio_register(&g->mmio, base, size, h, dev);
}
void console_printf(const char *fmt, ...) { (void)fmt; }

/* ---- the system: linux (0), rt (1), logger (2); chan0 = linux+rt, log = rt+logger(ro) ---- */

static struct system_config sys;
enum { LINUX, RT, LOGGER };

static int setup(void **state)
{
    char err[160];
    static struct platform plat;
    void *host = fixture_load("qemu-virt", 0, NULL);
    void *cfg = fixture_load("config-channels", 0, NULL);
    assert_int_equal(platform_probe(host, &plat, err, sizeof(err)), 0);
    struct config_host h = { &plat, 0x40000000, 0x40800000, host, 0, false, NULL, 0 };
    assert_int_equal(config_load(cfg, &h, &sys, NULL, NULL), 0);
    memset(guests, 0, sizeof(guests));
    for (unsigned int i = 0; i < sys.nguest_cfg; i++) {
        guests[i].cfg = &sys.guest_cfg[i];
        guests[i].id = i;
        guests[i].state = GUEST_RUNNING;
    }
    chan_sys = &sys;                /* channels_init would clear PAs of the host */
    memset(bells, 0, sizeof(bells));
    nraised = 0;
    barriers = 0;
    *state = cfg;                   /* kernel images point into it */
    free(host);
    return 0;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void expect_raised(unsigned int n, ...)
{
    va_list ap;
    va_start(ap, n);
    assert_int_equal(nraised, n);
    for (unsigned int i = 0; i < n; i++) {
        unsigned int g = va_arg(ap, unsigned int), intid = va_arg(ap, unsigned int);
        assert_ptr_equal(raised[i].d, &guests[g].vgic);
        assert_int_equal(raised[i].intid, intid);
    }
    va_end(ap);
    nraised = 0;
}

/* ---- ringing ---- */

static void test_ring_raises_the_peer_only(void **state)
{
    assert_int_equal(channel_ring(&guests[LINUX], 0), 0);
    expect_raised(1, RT, 40);                  /* rt's doorbell on chan0, not linux's 64 */
    assert_int_equal(barriers, 1);             /* the ringer's stores complete first */
    assert_int_equal(channel_ring(&guests[RT], 0), 0);
    expect_raised(1, LINUX, 64);
    assert_int_equal(channel_ring(&guests[RT], 1), 0);
    expect_raised(1, LOGGER, 50);              /* a read-only member still gets doorbells */
    assert_int_equal(channel_ring(&guests[LOGGER], 1), 0);
    expect_raised(1, RT, 41);                  /* and may ring */
    assert_int_equal(bells[0][0].sent, 1);
    assert_int_equal(bells[0][1].received, 1);
    assert_int_equal(bells[1][1].received, 1);
}

static void test_ring_not_a_member(void **state)
{
    assert_int_equal(channel_ring(&guests[LINUX], 1), PSCI_INVALID_PARAMETERS);
    assert_int_equal(channel_ring(&guests[LOGGER], 0), PSCI_INVALID_PARAMETERS);
    assert_int_equal(channel_ring(&guests[RT], 2), PSCI_INVALID_PARAMETERS);    /* no such */
    assert_int_equal(channel_ring(&guests[RT], 0xffffffffu), PSCI_INVALID_PARAMETERS);
    expect_raised(0);
    for (unsigned int c = 0; c < CHANNEL_MAX; c++)
        for (unsigned int m = 0; m < CHANNEL_MAX_MEMBERS; m++)
            assert_int_equal(bells[c][m].sent + bells[c][m].received, 0);
}

static void test_ring_skips_stopped_peers(void **state)
{
    for (enum guest_state s = GUEST_STOPPED; s <= GUEST_CRASHED; s++) {
        if (s == GUEST_RUNNING)
            continue;
        guests[RT].state = s;
        assert_int_equal(channel_ring(&guests[LINUX], 0), 0);
        expect_raised(0);
    }
    assert_int_equal(bells[0][0].sent, 3);           /* rung three times... */
    assert_int_equal(bells[0][1].received, 0);       /* ...raised never */
}

/* ---- the doorbell page ---- */

static bool mmio(struct guest *g, uint32_t ipa, bool write, unsigned int size, uint32_t *val)
{
    struct mmio_access a = { .size = size, .write = write,
                             .value = write ? *val : 0xdeadbeef };
    bool ok = mmio_dispatch(&g->mmio, ipa, &a) == MMIO_HANDLED;
    if (ok && !write)
        *val = a.value;
    return ok;
}

static uint32_t rd(struct guest *g, uint32_t ipa)
{
    uint32_t v = 0;
    assert_true(mmio(g, ipa, false, 4, &v));
    return v;
}

static void test_doorbell_page(void **state)
{
    for (unsigned int i = 0; i < sys.nguest_cfg; i++)
        channel_guest_start(&guests[i]);
    struct guest *rt = &guests[RT];
    /* rt: chan0 at 0x60000000 (64 KiB), log at 0x60100000 (16 KiB) */
    assert_int_equal(rt->mmio.n, 2);
    assert_int_equal(rd(rt, 0x60010000 + CHAN_DB_ID), 0);
    assert_int_equal(rd(rt, 0x60104000 + CHAN_DB_ID), 1);
    assert_int_equal(rd(rt, 0x60010000 + CHAN_DB_MEMBER), 1 | (2 << 8));
    assert_int_equal(rd(&guests[LOGGER], 0x70004000 + CHAN_DB_MEMBER), 1 | (2 << 8) | (1 << 16));

    uint32_t one = 1;
    assert_true(mmio(rt, 0x60010000 + CHAN_DB_RING, true, 4, &one));
    expect_raised(1, LINUX, 64);
    assert_true(mmio(rt, 0x60010000 + CHAN_DB_RING, true, 4, &one));
    expect_raised(1, LINUX, 64);
    assert_int_equal(rd(rt, 0x60010000 + CHAN_DB_SENT), 2);
    assert_int_equal(rd(&guests[LINUX], 0x70010000 + CHAN_DB_RECEIVED), 2);
    assert_int_equal(rd(&guests[LINUX], 0x70010000 + CHAN_DB_SENT), 0);
    /* writes elsewhere ring nothing and change nothing; unknown offsets read 0 */
    assert_true(mmio(rt, 0x60010000 + CHAN_DB_ID, true, 4, &one));
    assert_true(mmio(rt, 0x60010000 + 0x800, true, 4, &one));
    expect_raised(0);
    assert_int_equal(rd(rt, 0x60010000 + CHAN_DB_ID), 0);
    assert_int_equal(rd(rt, 0x60010ffc), 0);
    /* 32-bit registers only: a byte or an unaligned word is refused (an abort) */
    uint32_t v = 0;
    assert_false(mmio(rt, 0x60010000 + CHAN_DB_RING, true, 1, &one));
    assert_false(mmio(rt, 0x60010000 + CHAN_DB_ID + 2, false, 2, &v));
    expect_raised(0);
    /* the memory itself is not on the bus: it is mapped */
    assert_false(mmio(rt, 0x60000000, false, 4, &v));
    /* a restart of the guest starts its counters afresh */
    mmio_bus_init(&guests[LINUX].mmio);
    channel_guest_start(&guests[LINUX]);
    assert_int_equal(rd(&guests[LINUX], 0x70010000 + CHAN_DB_RECEIVED), 0);
    assert_int_equal(rd(rt, 0x60010000 + CHAN_DB_SENT), 2);
}

/* ---- Stage-2 and lookups ---- */

/* table pages from a small pool, at made-up PAs (descriptors hold 40 bits) */
#define POOL_PA 0x100000u
static uint8_t pool[16][4096] __attribute__((aligned(4096)));
static unsigned int pool_used;

static void *s2_page(void *ctx, uint64_t *pa)
{
    assert_true(pool_used < 16);
    memset(pool[pool_used], 0, 4096);
    *pa = POOL_PA + pool_used * 4096u;
    return pool[pool_used++];
}
static void s2_page_free(void *ctx, void *va) { (void)va; }
static void *s2_page_va(void *ctx, uint64_t pa) { return pool[(pa - POOL_PA) / 4096]; }
static const struct s2_mm_ops s2_host_ops = { s2_page, s2_page_free, s2_page_va, NULL };

static void expect_map(const struct stage2 *s2, uint64_t ipa, uint64_t pa, unsigned int attrs)
{
    uint64_t got;
    unsigned int a, level;
    assert_int_equal(s2_lookup(s2, ipa, &got, &a, &level), 0);
    assert_int_equal(got, pa);
    assert_int_equal(a, attrs);
}

static void test_stage2(void **state)
{
    struct stage2 s2;
    pool_used = 0;
    assert_int_equal(s2_init(&s2, &s2_host_ops), 0);
    assert_int_equal(channel_map(&sys.guest_cfg[RT], &s2), 0);
    /* read-write, never executable, normal non-cacheable; the whole region */
    expect_map(&s2, 0x60000000, 0x5f000000, S2_RW | S2_NOCACHE);
    expect_map(&s2, 0x6000fffc, 0x5f00fffc, S2_RW | S2_NOCACHE);
    expect_map(&s2, 0x60100000, 0x5f100000, S2_RW | S2_NOCACHE);
    /* the doorbell pages stay unmapped: they trap to the emulation */
    uint64_t pa;
    unsigned int a, l;
    assert_int_equal(s2_lookup(&s2, 0x60010000, &pa, &a, &l), -1);
    assert_int_equal(s2_lookup(&s2, 0x60104000, &pa, &a, &l), -1);
    s2_destroy(&s2);

    assert_int_equal(s2_init(&s2, &s2_host_ops), 0);
    assert_int_equal(channel_map(&sys.guest_cfg[LOGGER], &s2), 0);
    expect_map(&s2, 0x70003ffc, 0x5f103ffc, S2_READ | S2_NOCACHE);     /* read-only */
    s2_destroy(&s2);
}

static void test_lookups(void **state)
{
    assert_string_equal(channel_at(&sys.guest_cfg[RT], 0x60000000), "chan0");
    assert_string_equal(channel_at(&sys.guest_cfg[RT], 0x6000ffff), "chan0");
    assert_null(channel_at(&sys.guest_cfg[RT], 0x60010000));          /* its doorbell page */
    assert_string_equal(channel_at(&sys.guest_cfg[RT], 0x60103fff), "log");
    assert_null(channel_at(&sys.guest_cfg[LINUX], 0x60000000));
    assert_int_equal(channel_max_doorbell(&sys.guest_cfg[LINUX]), 64);
    assert_int_equal(channel_max_doorbell(&sys.guest_cfg[RT]), 41);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_ring_raises_the_peer_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ring_not_a_member, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ring_skips_stopped_peers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_doorbell_page, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stage2, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lookups, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
