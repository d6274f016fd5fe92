/*
 * The virtual distributor model (vgic/vgic_dist.c) driven like a guest
 * would: registers through vgic_dist_mmio, interrupts through a fake bank
 * of GICH list registers (GICv2 IHI 0048B 5.3) and a tiny guest CPU
 * interface that acknowledges and ends them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include "vgic/vgic.h"
#include "vgic/vgic_lr.h"
#include "fake_lrs.h"

#define NCPU VGIC_MAX_VCPUS

/* ---- a fake environment ---- */

struct hw_call {
    unsigned int intid, target;
    bool enabled;
    uint8_t priority, targets;
};

struct env_rec {
    unsigned int kicks[64];
    unsigned int nkicks;
    struct hw_call hw[64];
    unsigned int nhw;
};

static void e_kick(void *ctx, unsigned int vcpu)
{
    struct env_rec *e = ctx;
    assert_true(e->nkicks < 64);
    e->kicks[e->nkicks++] = vcpu;
}

static void e_hw_update(void *ctx, unsigned int intid, const struct vgic_irq *irq,
                        unsigned int target)
{
    struct env_rec *e = ctx;
    assert_true(e->nhw < 64);
    e->hw[e->nhw++] = (struct hw_call){ intid, target, irq->enabled, irq->priority,
                                        irq->targets };
}

/* ---- fixture ---- */

static struct vgic D;
static struct vgic_cpu CPU[NCPU];
static struct fake_lrs LRS[NCPU];
static struct vgic_lr_ops OPS[NCPU];
static struct env_rec ENV;

static void setup_n(unsigned int nr_irqs, unsigned int nr_vcpus, unsigned int nlrs)
{
    memset(&D, 0, sizeof(D));
    memset(&ENV, 0, sizeof(ENV));
    memset(LRS, 0, sizeof(LRS));
    struct vgic_cpu *cpus[NCPU];
    for (unsigned int i = 0; i < NCPU; i++) {
        cpus[i] = &CPU[i];
        LRS[i].n = nlrs;
        LRS[i].vmcr = 0x1fu << 27;      /* priority mask: everything passes */
        OPS[i] = (struct vgic_lr_ops){ f_lr_mask, f_read_lr, f_write_lr, f_elrsr,
                                       f_set_underflow, f_vmcr, &LRS[i] };
    }
    struct vgic_env env = { .kick = e_kick, .hw_update = e_hw_update, .ctx = &ENV };
    vgic_init(&D, nr_irqs, nr_vcpus, cpus, &env);
}

/* A physical distributor's pending and active banks, as QEMU's GIC keeps
 * them: a level interrupt is pending while its line is high or its latch
 * (ISPENDR) is set; the hypervisor's acknowledgement clears the latch and
 * makes it active (GICv2 3.2.4) */
static struct {
    uint32_t line[8], latch[8], active[8];
} PHYS;

static uint32_t e_hw_read(void *ctx, uint32_t off)
{
    unsigned int w = (off % 0x80) / 4;
    assert_true(w < 8);
    if (off >= 0x200 && off < 0x300)
        return PHYS.line[w] | PHYS.latch[w];
    assert_true(off >= 0x300 && off < 0x400);
    return PHYS.active[w];
}

static void e_hw_write(void *ctx, uint32_t off, uint32_t bits)
{
    unsigned int w = (off % 0x80) / 4;
    assert_true(w < 8);
    switch (off & ~0x7fu) {
    case 0x200: PHYS.latch[w] |= bits; break;
    case 0x280: PHYS.latch[w] &= ~bits; break;
    case 0x300: PHYS.active[w] |= bits; break;
    case 0x380: PHYS.active[w] &= ~bits; break;
    default: fail();
    }
}

#define PBIT(n, a) (((a)[(n) / 32] >> ((n) % 32)) & 1)
#define PSET(n, a, v) ((a)[(n) / 32] = ((a)[(n) / 32] & ~(1u << ((n) % 32))) | ((uint32_t)(v) << ((n) % 32)))

/* One vCPU, SPI 40 passed through from physical 72, with a physical side */
static void setup_passthrough(void)
{
    setup_n(128, 1, 4);
    memset(&PHYS, 0, sizeof(PHYS));
    D.env.hw_read = e_hw_read;
    D.env.hw_write = e_hw_write;
    vgic_set_hw(&D, 0, 40, 72);
}

/* The hypervisor takes physical 72 if it is enabled and pending, not active
 * (gic_handle_irq, passthrough_irq): acknowledged, and the guest's */
static bool phys_take(void)
{
    if (!D.spi[40 - 32].enabled || PBIT(72, PHYS.active) ||
        !(PBIT(72, PHYS.line) || PBIT(72, PHYS.latch)))
        return false;
    PSET(72, PHYS.latch, 0);
    PSET(72, PHYS.active, 1);
    vgic_hw_acked(&D, 40);
    vgic_inject_edge(&D, 0, 40);
    return true;
}

static void setup(void) { setup_n(128, 2, 4); }

/* ---- MMIO helpers ---- */

#define SENTINEL 0xdeadbeefu

static bool access(unsigned int vcpu, uint32_t off, unsigned int size, bool write,
                   uint32_t *val)
{
    struct mmio_access a = { .size = size, .write = write,
                             .value = write ? *val : SENTINEL };
    bool ok = vgic_dist_mmio(&D, &a, off, vcpu);
    if (!write)
        *val = size == 4 ? a.value : a.value & ((1u << (8 * size)) - 1);
    return ok;
}

static uint32_t rd(unsigned int vcpu, uint32_t off, unsigned int size)
{
    uint32_t v = 0;
    assert_true(access(vcpu, off, size, false, &v));
    return v;
}

static void wr(unsigned int vcpu, uint32_t off, unsigned int size, uint32_t v)
{
    assert_true(access(vcpu, off, size, true, &v));
}

static uint32_t rd32(unsigned int vcpu, uint32_t off) { return rd(vcpu, off, 4); }
static void wr32(unsigned int vcpu, uint32_t off, uint32_t v) { wr(vcpu, off, 4, v); }

static void flush(unsigned int vcpu) { vgic_flush_with(&D, vcpu, &OPS[vcpu]); }
static void sync_(unsigned int vcpu) { vgic_sync_with(&D, vcpu, &OPS[vcpu]); }

/* an edge-triggered SPI targeted at one vCPU, with a priority, enabled */
static void spi_setup(unsigned int intid, unsigned int target, uint8_t prio)
{
    uint32_t cfg = rd32(0, 0xc00 + 4 * (intid / 16));
    wr32(0, 0xc00 + 4 * (intid / 16), cfg | 2u << (2 * (intid % 16)));
    wr(0, 0x400 + intid, 1, prio);
    wr(0, 0x800 + intid, 1, 1u << target);
    wr32(0, 0x100 + 4 * (intid / 32), 1u << (intid % 32));
}

static uint32_t lr_expect(unsigned int intid, uint8_t prio)
{
    return LR_VIRTID(intid) | LR_PRIO(prio) | LR_PENDING;
}

static int guest_ack(unsigned int vcpu) { return fake_ack(&LRS[vcpu]); }
static void guest_eoi(unsigned int vcpu, int i) { fake_eoi(&LRS[vcpu], i); }

/* acknowledge and end the best interrupt; returns its LR value at ack time */
static uint32_t guest_take(unsigned int vcpu)
{
    int i = guest_ack(vcpu);
    assert_true(i >= 0);
    uint32_t v = LRS[vcpu].lr[i];
    guest_eoi(vcpu, i);
    return v;
}

static unsigned int lrs_in_state(unsigned int vcpu, uint32_t state)
{
    unsigned int k = 0;
    for (unsigned int i = 0; i < LRS[vcpu].n; i++)
        if ((LRS[vcpu].lr[i] & LR_STATE_MASK) == state)
            k++;
    return k;
}

/* Will the hardware raise a maintenance interrupt (GICv2 5.3.2, 5.3.9)?
 * EOI maintenance: an LR with no state, EOI set, not HW; underflow: UIE
 * and at most one valid LR. */
static bool maintenance_due(unsigned int vcpu)
{
    unsigned int valid = 0;
    bool eoi = false;
    for (unsigned int i = 0; i < LRS[vcpu].n; i++) {
        uint32_t v = LRS[vcpu].lr[i];
        if (v & LR_STATE_MASK)
            valid++;
        else if ((v & LR_EOI) && !(v & LR_HW))
            eoi = true;
    }
    return eoi || (LRS[vcpu].underflow && valid <= 1);
}

/* Something will bring the vCPU's waiting interrupt in: a pending LR, a
 * maintenance interrupt, or a reason to leave WFI. */
static bool delivery_assured(unsigned int vcpu)
{
    return lrs_in_state(vcpu, LR_PENDING) || lrs_in_state(vcpu, LR_PENDING | LR_ACTIVE) ||
           maintenance_due(vcpu) || vgic_has_pending_with(&D, vcpu, &OPS[vcpu]);
}

/* ================= distributor registers ================= */

static void test_ctlr_enable_kicks_every_vcpu(void **s)
{
    setup_n(128, 3, 4);
    assert_int_equal(rd32(0, 0x000), 0);
    wr32(1, 0x000, 0xffffffff);
    assert_int_equal(rd32(0, 0x000), 1);
    assert_int_equal(ENV.nkicks, 3);
    assert_int_equal(ENV.kicks[0], 0);
    assert_int_equal(ENV.kicks[1], 1);
    assert_int_equal(ENV.kicks[2], 2);
    assert_true(CPU[2].queued);
    wr32(0, 0x000, 1);                  /* already on: no new kicks */
    assert_int_equal(ENV.nkicks, 3);
    wr32(0, 0x000, 0);
    assert_int_equal(rd32(1, 0x000), 0);
    assert_int_equal(ENV.nkicks, 3);
    wr32(0, 0x000, 2);                  /* only bit 0 exists */
    assert_int_equal(rd32(0, 0x000), 0);
}

static void test_typer_iidr(void **s)
{
    setup_n(128, 2, 4);
    assert_int_equal(rd32(0, 0x004), 0x23);     /* ITLines 3, CPUNumber 1 */
    assert_int_equal(rd32(0, 0x008), 0x43b);
    setup_n(100, 4, 4);                         /* rounded up to 128 */
    assert_int_equal(D.nr_irqs, 128);
    assert_int_equal(rd32(0, 0x004), 0x63);
    setup_n(1000, 1, 4);                        /* capped to 256 */
    assert_int_equal(rd32(0, 0x004), 0x07);
    setup_n(64, 8, 4);
    assert_int_equal(rd32(7, 0x004), 0xe1);
    wr32(0, 0x004, 0);                          /* read-only */
    assert_int_equal(rd32(7, 0x004), 0xe1);
    wr32(0, 0x008, 0);
    assert_int_equal(rd32(0, 0x008), 0x43b);
}

static void test_igroupr(void **s)
{
    setup();
    assert_int_equal(rd32(0, 0x080), 0);
    wr32(0, 0x080, 0x80010001);
    assert_int_equal(rd32(0, 0x080), 0x80010001);
    assert_int_equal(rd32(1, 0x080), 0);        /* banked per vCPU */
    wr32(1, 0x084, 0xa5a5a5a5);
    assert_int_equal(rd32(0, 0x084), 0xa5a5a5a5);
    assert_true(D.spi[0].group1);
    assert_false(D.spi[1].group1);
    wr32(0, 0x08c, 0xffffffff);
    assert_int_equal(rd32(0, 0x08c), 0xffffffff);
    /* beyond nr_irqs (128): RAZ/WI */
    wr32(0, 0x090, 0xffffffff);
    assert_int_equal(rd32(0, 0x090), 0);
    assert_false(D.spi[96].group1);
}

static void test_enablers(void **s)
{
    setup();
    assert_int_equal(rd32(0, 0x100), 0x0000ffff);   /* SGIs always enabled */
    assert_int_equal(rd32(0, 0x180), 0x0000ffff);
    wr32(0, 0x180, 0xffffffff);                     /* SGI bits WI */
    assert_int_equal(rd32(0, 0x100), 0x0000ffff);
    wr32(0, 0x100, 0x00030000);                     /* PPIs 16, 17 */
    assert_int_equal(rd32(0, 0x100), 0x0003ffff);
    assert_int_equal(rd32(1, 0x100), 0x0000ffff);   /* banked */
    wr32(0, 0x180, 0x00010000);
    assert_int_equal(rd32(0, 0x180), 0x0002ffff);
    wr32(0, 0x104, 0x80000005);
    assert_int_equal(rd32(1, 0x104), 0x80000005);
    assert_int_equal(rd32(1, 0x184), 0x80000005);
    wr32(0, 0x184, 0x00000004);
    assert_int_equal(rd32(0, 0x104), 0x80000001);
    wr32(0, 0x104, 0);                              /* zeros have no effect */
    assert_int_equal(rd32(0, 0x104), 0x80000001);
    wr32(0, 0x110, 0xffffffff);                     /* out of range */
    assert_int_equal(rd32(0, 0x110), 0);
}

static void test_pendr(void **s)
{
    setup();
    wr32(0, 0x204, 0x00000003);
    assert_int_equal(rd32(0, 0x204), 0x3);
    assert_int_equal(rd32(1, 0x284), 0x3);
    wr32(0, 0x284, 0x1);
    assert_int_equal(rd32(0, 0x204), 0x2);
    wr32(0, 0x200, 0xffffffff);             /* SGI bits WI; PPIs banked */
    assert_int_equal(rd32(0, 0x200), 0xffff0000);
    assert_int_equal(rd32(1, 0x200), 0);
    wr32(0, 0x280, 0x00010000);
    assert_int_equal(rd32(0, 0x200), 0xfffe0000);
    /* an SGI pending through SPENDSGIR shows, ICPENDR cannot clear it */
    wr(0, 0xf22, 1, 0x01);
    assert_int_equal(rd32(0, 0x200), 0xfffe0004);
    wr32(0, 0x280, 0x4);
    assert_int_equal(rd32(0, 0x200), 0xfffe0004);
}

static void test_activer(void **s)
{
    setup();
    wr32(0, 0x304, 0x10);
    assert_int_equal(rd32(1, 0x304), 0x10);
    assert_int_equal(rd32(1, 0x384), 0x10);
    wr32(0, 0x300, 0x00000101);
    assert_int_equal(rd32(0, 0x380), 0x101);
    assert_int_equal(rd32(1, 0x380), 0);
    wr32(0, 0x384, 0x10);
    assert_int_equal(rd32(0, 0x304), 0);
    wr32(0, 0x380, 0x1);
    assert_int_equal(rd32(0, 0x300), 0x100);
}

static void test_priority(void **s)
{
    setup();
    wr(0, 0x400 + 33, 1, 0xff);
    assert_int_equal(rd(0, 0x400 + 33, 1), 0xf8);
    assert_int_equal(rd32(1, 0x420), 0x0000f800);
    wr32(0, 0x424, 0x12345678);
    assert_int_equal(rd32(0, 0x424), 0x10305078);
    assert_int_equal(rd(0, 0x427, 1), 0x10);
    wr(0, 0x400, 1, 0xa7);                          /* SGI 0, banked */
    assert_int_equal(rd(0, 0x400, 1), 0xa0);
    assert_int_equal(rd(1, 0x400, 1), 0);
    wr32(0, 0x480, 0xffffffff);                     /* INTID 128+: out of range */
    assert_int_equal(rd32(0, 0x480), 0);
}

static void test_targets(void **s)
{
    setup_n(128, 3, 4);
    assert_int_equal(rd(0, 0x800, 1), 0x01);        /* SGI 0 */
    assert_int_equal(rd(1, 0x800, 1), 0x02);
    assert_int_equal(rd(2, 0x81f, 1), 0x04);        /* PPI 31 */
    assert_int_equal(rd32(1, 0x81c), 0x02020202);
    wr(0, 0x800, 1, 0x06);                          /* ignored */
    wr32(0, 0x81c, 0xffffffff);
    assert_int_equal(rd(0, 0x800, 1), 0x01);
    assert_int_equal(rd32(0, 0x81c), 0x01010101);
    wr(0, 0x820, 1, 0xff);                          /* masked to 3 vCPUs */
    assert_int_equal(rd(1, 0x820, 1), 0x07);
    wr32(0, 0x824, 0x01020408);
    assert_int_equal(rd32(2, 0x824), 0x01020400);
    assert_int_equal(rd(0, 0x826, 1), 0x02);
    wr(0, 0x880, 1, 1);                             /* INTID 128: ignored */
    assert_int_equal(rd(0, 0x880, 1), 0);
}

static void test_icfgr(void **s)
{
    setup();
    assert_int_equal(rd32(0, 0xc00), 0xaaaaaaaa);   /* SGIs: edge */
    wr32(0, 0xc00, 0);
    assert_int_equal(rd32(0, 0xc00), 0xaaaaaaaa);
    assert_int_equal(rd32(0, 0xc04), 0);            /* PPIs: level, fixed */
    wr32(0, 0xc04, 0xffffffff);
    assert_int_equal(rd32(0, 0xc04), 0);
    assert_int_equal(rd32(0, 0xc08), 0);            /* SPIs 32-47 level */
    wr32(0, 0xc08, 0x0000000b);                     /* 32 edge (bit 0 ignored), 33 level */
    assert_int_equal(rd32(1, 0xc08), 0x0000000a);
    assert_true(D.spi[0].edge);
    assert_true(D.spi[1].edge);
    wr32(0, 0xc08, 0x00000008);
    assert_int_equal(rd32(1, 0xc08), 0x00000008);
    assert_false(D.spi[0].edge);
    wr32(0, 0xc20, 0xffffffff);                     /* INTID 128+ */
    assert_int_equal(rd32(0, 0xc20), 0);
}

static void test_sgir_filters(void **s)
{
    setup_n(128, 3, 4);
    wr32(0, 0x000, 1);
    ENV.nkicks = 0;
    /* filter 0: target list {1, 2}, SGI 5 (bits beyond the vCPUs ignored) */
    wr32(0, 0xf00, (0u << 24) | (0xf6u << 16) | 5);
    assert_int_equal(CPU[0].priv[5].sgi_src, 0);
    assert_int_equal(CPU[1].priv[5].sgi_src, 0x01);
    assert_int_equal(CPU[2].priv[5].sgi_src, 0x01);
    assert_int_equal(ENV.nkicks, 2);
    assert_int_equal(ENV.kicks[0], 1);
    assert_int_equal(ENV.kicks[1], 2);
    assert_int_equal(rd32(1, 0xf24), 0x00000100);   /* SPENDSGIR1: SGI 5 from CPU 0 */
    /* filter 1: all but self, from vCPU 1, SGI 2 (target list ignored) */
    wr32(1, 0xf00, (1u << 24) | (0x02u << 16) | 2);
    assert_int_equal(CPU[0].priv[2].sgi_src, 0x02);
    assert_int_equal(CPU[1].priv[2].sgi_src, 0);
    assert_int_equal(CPU[2].priv[2].sgi_src, 0x02);
    /* filter 2: self, from vCPU 2, SGI 15 */
    wr32(2, 0xf00, (2u << 24) | (0x01u << 16) | 15);
    assert_int_equal(CPU[0].priv[15].sgi_src, 0);
    assert_int_equal(CPU[1].priv[15].sgi_src, 0);
    assert_int_equal(CPU[2].priv[15].sgi_src, 0x04);
    /* filter 3: reserved, ignored */
    unsigned int k = ENV.nkicks;
    wr32(0, 0xf00, (3u << 24) | (0x07u << 16) | 7);
    for (unsigned int i = 0; i < 3; i++)
        assert_int_equal(CPU[i].priv[7].sgi_src, 0);
    assert_int_equal(ENV.nkicks, k);
    assert_int_equal(CPU[0].stats.sgis_sent, 1);
    /* SGIR reads as zero; a byte write sends nothing */
    assert_int_equal(rd32(0, 0xf00), 0);
    wr(0, 0xf00, 1, 6);
    assert_int_equal(CPU[0].priv[6].sgi_src | CPU[1].priv[6].sgi_src, 0);

    /* the source CPU ID arrives in LR bits [12:10] */
    flush(2);
    assert_int_equal(LRS[2].lr[0], lr_expect(2, 0) | LR_CPUID(1));
    assert_int_equal(LRS[2].lr[1], lr_expect(5, 0) | LR_CPUID(0));
    assert_int_equal(LRS[2].lr[2], lr_expect(15, 0) | LR_CPUID(2));
    assert_int_equal(LRS[2].lr[2] & (7u << 10), 2u << 10);
    assert_int_equal(LRS[2].lr[3], 0);
}

static void test_sgi_pend_registers(void **s)
{
    setup();
    wr(0, 0xf21, 1, 0x03);                  /* SPENDSGIR: SGI 1 from CPUs 0, 1 */
    assert_int_equal(rd(0, 0xf21, 1), 0x03);
    assert_int_equal(rd(0, 0xf11, 1), 0x03);        /* CPENDSGIR reads the same */
    assert_int_equal(rd32(0, 0xf20), 0x00000300);
    assert_int_equal(rd32(1, 0xf20), 0);            /* banked */
    assert_int_equal(rd32(0, 0x200), 0x2);
    wr32(0, 0xf2c, 0x80000000);                     /* SGI 15 from CPU 7 */
    assert_int_equal(rd(0, 0xf2f, 1), 0x80);
    assert_int_equal(rd32(0, 0xf1c), 0x80000000);
    wr(0, 0xf11, 1, 0x01);                          /* clear source 0 */
    assert_int_equal(rd(0, 0xf21, 1), 0x02);
    wr32(0, 0xf1c, 0xffffffff);
    assert_int_equal(rd32(0, 0xf2c), 0);
    wr32(0, 0xf10, 0x0000ff00);
    assert_int_equal(rd32(0, 0xf20), 0);
    assert_int_equal(rd32(0, 0x200), 0);
}

static void test_id_registers(void **s)
{
    static const uint32_t id[12] = { 0x04, 0, 0, 0, 0x90, 0xb4, 0x2b, 0x00,
                                     0x0d, 0xf0, 0x05, 0xb1 };
    setup();
    for (unsigned int i = 0; i < 12; i++)
        assert_int_equal(rd32(0, 0xfd0 + 4 * i), id[i]);
    wr32(0, 0xfe8, 0);
    assert_int_equal(rd32(0, 0xfe8), 0x2b);
    assert_int_equal(rd32(0, 0xfcc), 0);        /* reserved below */
    assert_int_equal(rd32(0, 0x00c), 0);
}

static void test_width_rules(void **s)
{
    setup();
    uint32_t v;
    /* halfword: RAZ/WI */
    wr32(0, 0x000, 1);
    assert_int_equal(rd(0, 0x000, 2), 0);
    assert_int_equal(rd(0, 0x100, 2), 0);
    assert_int_equal(rd(0, 0x400, 2), 0);
    wr(0, 0x104, 2, 0xffff);
    wr(0, 0x404, 2, 0xffff);
    assert_int_equal(rd32(0, 0x104), 0);
    assert_int_equal(rd32(0, 0x404), 0);
    /* byte access to word-only registers: RAZ/WI */
    assert_int_equal(rd(0, 0x100, 1), 0);
    assert_int_equal(rd(0, 0xc00, 1), 0);
    assert_int_equal(rd(0, 0x000, 1), 0);       /* CTLR */
    assert_int_equal(rd(0, 0x004, 1), 0);       /* TYPER */
    assert_int_equal(rd(0, 0xfe0, 1), 0);       /* PIDR0 */
    wr(0, 0x104, 1, 0xff);
    wr(0, 0xc08, 1, 0xff);
    wr(0, 0x000, 1, 0);
    assert_int_equal(rd32(0, 0x104), 0);
    assert_int_equal(rd32(0, 0xc08), 0);
    assert_int_equal(rd32(0, 0x000), 1);
    /* unaligned: refused */
    v = 0;
    assert_false(access(0, 0x402, 4, false, &v));
    assert_false(access(0, 0x101, 4, true, &v));
    assert_false(access(0, 0x801, 2, false, &v));
    assert_false(access(0, 0x003, 2, true, &v));
    v = 0xffffffff;
    assert_false(access(0, 0x106, 4, true, &v));
    assert_int_equal(rd32(0, 0x104), 0);
}

static void test_out_of_range_ids(void **s)
{
    setup_n(64, 2, 4);
    wr32(0, 0x108, 0xffffffff);
    assert_int_equal(rd32(0, 0x108), 0);
    wr32(0, 0x208, 0xffffffff);
    assert_int_equal(rd32(0, 0x208), 0);
    wr(0, 0x440, 1, 0x80);
    assert_int_equal(rd(0, 0x440, 1), 0);
    assert_int_equal(D.spi[32].priority, 0);
    assert_false(D.spi[32].enabled);
    assert_false(D.spi[32].pending);
    assert_null(vgic_get_irq(&D, 0, 64));
    assert_null(vgic_get_irq(&D, 2, 5));        /* no such vCPU */
    assert_non_null(vgic_get_irq(&D, 1, 63));
    vgic_inject_edge(&D, 0, 64);
    vgic_set_level(&D, 0, 200, true);
    assert_false(D.spi[32].pending);
    assert_false(D.spi[168].pending);
}

/* ================= list registers ================= */

static void test_flush_priority_order_and_fields(void **s)
{
    setup_n(128, 2, 8);
    wr32(0, 0x000, 1);
    spi_setup(40, 0, 0x80);
    spi_setup(41, 0, 0x40);
    spi_setup(42, 0, 0x80);
    spi_setup(33, 0, 0x47);             /* kept as 0x40: ties with 41 */
    spi_setup(50, 0, 0xa0);
    wr32(0, 0xc0c, 0);                  /* 48-63 level-sensitive again */
    spi_setup(45, 0, 0x90);             /* hardware-linked */
    spi_setup(60, 1, 0x00);             /* for the other vCPU */
    vgic_set_hw(&D, 0, 45, 77);
    wr32(0, 0x084, 1u << (41 - 32));    /* 41 in group 1 */
    vgic_inject_edge(&D, 0, 40);
    vgic_inject_edge(&D, 0, 41);
    vgic_inject_edge(&D, 0, 42);
    vgic_inject_edge(&D, 0, 33);
    vgic_set_level(&D, 0, 50, true);
    vgic_inject_edge(&D, 0, 45);
    vgic_inject_edge(&D, 0, 60);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(33, 0x40));
    assert_int_equal(LRS[0].lr[1], lr_expect(41, 0x40) | LR_GROUP1);
    assert_int_equal(LRS[0].lr[2], lr_expect(40, 0x80));
    assert_int_equal(LRS[0].lr[3], lr_expect(42, 0x80));
    assert_int_equal(LRS[0].lr[4], lr_expect(45, 0x90) | LR_HW | LR_PHYSID(77));
    assert_int_equal(LRS[0].lr[5], lr_expect(50, 0xa0) | LR_EOI);
    assert_int_equal(LRS[0].lr[6], 0);
    assert_int_equal(LRS[0].lr[2] >> 23 & 0x1f, 0x10);
    assert_false(LRS[0].underflow);
    assert_false(CPU[0].queued);
    assert_int_equal(CPU[0].lr_used, 0x3f);
    assert_int_equal(CPU[0].stats.injected, 6);
    /* pending while in an LR (60 waits for vCPU 1) */
    assert_int_equal(rd32(0, 0x204), 0x10042702);
    /* the guest takes them in priority order (50's line dropped by then) */
    vgic_set_level(&D, 0, 50, false);
    uint32_t order[6] = { 33, 41, 40, 42, 45, 50 };
    for (unsigned int i = 0; i < 6; i++)
        assert_int_equal(LR_VIRTID(guest_take(0)), order[i]);
    assert_int_equal(LRS[0].ndeact, 1);
    assert_int_equal(LRS[0].deactivated[0], 77);
    flush(0);
    assert_int_equal(CPU[0].lr_used, 0);
    for (unsigned int i = 0; i < 8; i++)
        assert_int_equal(LRS[0].lr[i], 0);
    /* the other vCPU gets its own */
    flush(1);
    assert_int_equal(LRS[1].lr[0], lr_expect(60, 0));
}

static void test_more_pending_than_lrs(void **s)
{
    setup();                            /* 4 list registers */
    wr32(0, 0x000, 1);
    for (unsigned int i = 0; i < 6; i++) {
        spi_setup(32 + i, 0, (uint8_t)(0x80 - 8 * i));  /* 37 best, 32 worst */
        vgic_inject_edge(&D, 0, 32 + i);
    }
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(37, 0x58));
    assert_int_equal(LRS[0].lr[1], lr_expect(36, 0x60));
    assert_int_equal(LRS[0].lr[2], lr_expect(35, 0x68));
    assert_int_equal(LRS[0].lr[3], lr_expect(34, 0x70));
    assert_true(LRS[0].underflow);
    assert_true(CPU[0].queued);
    assert_int_equal(CPU[0].stats.overflow, 1);
    assert_true(vgic_has_pending_with(&D, 0, &OPS[0]));
    assert_int_equal(rd32(0, 0x204), 0x3f);
    /* the guest handles two; the underflow maintenance brings in the rest */
    assert_int_equal(LR_VIRTID(guest_take(0)), 37);
    assert_int_equal(LR_VIRTID(guest_take(0)), 36);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(33, 0x78));
    assert_int_equal(LRS[0].lr[1], lr_expect(32, 0x80));
    assert_int_equal(LRS[0].lr[2], lr_expect(35, 0x68));
    assert_int_equal(LRS[0].lr[3], lr_expect(34, 0x70));
    assert_false(LRS[0].underflow);
    assert_false(CPU[0].queued);
    assert_int_equal(rd32(0, 0x204), 0x0f);
}

static void test_higher_priority_evicts_pending_lr(void **s)
{
    setup();
    wr32(0, 0x000, 1);
    for (unsigned int i = 0; i < 4; i++) {
        spi_setup(32 + i, 0, (uint8_t)(0x40 + 8 * i));  /* 35 the worst */
        vgic_inject_edge(&D, 0, 32 + i);
    }
    flush(0);
    assert_int_equal(LRS[0].lr[3], lr_expect(35, 0x58));
    assert_false(LRS[0].underflow);
    /* an equal-priority one waits */
    spi_setup(40, 0, 0x58);
    vgic_inject_edge(&D, 0, 40);
    flush(0);
    assert_int_equal(LRS[0].lr[3], lr_expect(35, 0x58));
    assert_true(LRS[0].underflow);
    /* a better one takes the worst pending-only LR */
    spi_setup(41, 0, 0x10);
    vgic_inject_edge(&D, 0, 41);
    flush(0);
    assert_int_equal(LRS[0].lr[3], lr_expect(41, 0x10));
    assert_true(D.spi[35 - 32].pending);
    assert_false(D.spi[35 - 32].in_lr);
    assert_true(LRS[0].underflow);
    assert_true(CPU[0].queued);
    assert_int_equal(rd32(0, 0x204), 0x0000030f);      /* 32-35, 40, 41 */
    /* active LRs are never evicted */
    for (unsigned int i = 0; i < 4; i++)
        assert_true(guest_ack(0) >= 0);
    spi_setup(42, 0, 0x00);
    vgic_inject_edge(&D, 0, 42);
    flush(0);
    assert_int_equal(lrs_in_state(0, LR_ACTIVE), 4);
    assert_true(D.spi[42 - 32].pending);
    assert_true(LRS[0].underflow);
    /* ending them brings in 42 first */
    for (unsigned int i = 0; i < 4; i++)
        guest_eoi(0, (int)i);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(42, 0x00));
    assert_int_equal(LRS[0].lr[1], lr_expect(35, 0x58));
    assert_int_equal(LRS[0].lr[2], lr_expect(40, 0x58));
    assert_int_equal(LRS[0].lr[3], 0);
    assert_false(LRS[0].underflow);
}

static void test_level_repended_while_high(void **s)
{
    setup();
    wr32(0, 0x000, 1);
    spi_setup(50, 0, 0x20);
    wr32(0, 0xc0c, 0);                  /* level-sensitive */
    vgic_set_level(&D, 0, 50, true);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(50, 0x20) | LR_EOI);
    guest_take(0);
    /* EOI with the line high: maintenance, pending again */
    assert_int_equal(f_elrsr(&LRS[0]) & 1, 0);
    sync_(0);
    assert_true(CPU[0].queued);
    assert_int_equal(rd32(0, 0x204), 1u << 18);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(50, 0x20) | LR_EOI);
    /* the line drops while it is being handled: done at EOI */
    int i = guest_ack(0);
    vgic_set_level(&D, 0, 50, false);
    guest_eoi(0, i);
    flush(0);
    assert_int_equal(LRS[0].lr[0], 0);
    assert_int_equal(CPU[0].lr_used, 0);
    assert_int_equal(rd32(0, 0x204), 0);
    assert_false(vgic_has_pending_with(&D, 0, &OPS[0]));
    /* a line that drops before delivery is not pending either */
    vgic_set_level(&D, 0, 50, true);
    vgic_set_level(&D, 0, 50, false);
    flush(0);
    assert_int_equal(LRS[0].lr[0], 0);
    assert_int_equal(rd32(0, 0x204), 0);
}

static void test_sgi_two_sources_delivered_twice(void **s)
{
    setup_n(128, 3, 4);
    wr32(0, 0x000, 1);
    wr(0, 0x403, 1, 0x30);              /* vCPU 2's SGI 3 priority */
    wr(2, 0x403, 1, 0x30);
    wr32(0, 0xf00, (0x4u << 16) | 3);
    wr32(1, 0xf00, (0x4u << 16) | 3);
    assert_int_equal(CPU[2].priv[3].sgi_src, 0x03);
    flush(2);
    assert_int_equal(LRS[2].lr[0], lr_expect(3, 0x30) | LR_CPUID(0) | LR_EOI);
    assert_int_equal(LRS[2].lr[1], 0);
    assert_int_equal(CPU[2].priv[3].sgi_src, 0x02);
    guest_take(2);
    assert_int_equal(f_elrsr(&LRS[2]) & 1, 0);  /* EOI maintenance pending */
    flush(2);
    assert_int_equal(LRS[2].lr[0], lr_expect(3, 0x30) | LR_CPUID(1));
    assert_int_equal(LRS[2].lr[1], 0);
    assert_int_equal(CPU[2].priv[3].sgi_src, 0);
    guest_take(2);
    flush(2);
    assert_int_equal(LRS[2].lr[0], 0);
    assert_int_equal(CPU[2].lr_used, 0);
    assert_false(vgic_has_pending_with(&D, 2, &OPS[2]));
    assert_int_equal(CPU[2].stats.injected, 2);
}

static void test_has_pending_honours_priority_mask(void **s)
{
    setup();
    wr32(0, 0x000, 1);
    flush(0);
    flush(1);
    assert_false(vgic_has_pending_with(&D, 0, &OPS[0]));
    spi_setup(40, 0, 0x80);
    vgic_inject_edge(&D, 0, 40);
    assert_true(vgic_has_pending_with(&D, 0, &OPS[0]));     /* queued */
    LRS[0].vmcr = 0x10u << 27;          /* mask 0x80: priority 0x80 masked */
    flush(0);
    assert_false(vgic_has_pending_with(&D, 0, &OPS[0]));
    assert_false(vgic_has_pending_with(&D, 1, &OPS[1]));
    LRS[0].vmcr = 0x11u << 27;          /* mask 0x88: passes */
    assert_true(vgic_has_pending_with(&D, 0, &OPS[0]));
    LRS[0].vmcr = 0;
    assert_false(vgic_has_pending_with(&D, 0, &OPS[0]));
    /* once acknowledged, nothing pending, whatever the mask */
    LRS[0].vmcr = 0x1fu << 27;
    int i = guest_ack(0);
    assert_int_equal(i, 0);
    assert_false(vgic_has_pending_with(&D, 0, &OPS[0]));
}

static void test_disabled_distributor_injects_nothing(void **s)
{
    setup();
    spi_setup(40, 0, 0x80);
    vgic_inject_edge(&D, 0, 40);
    wr32(0, 0xf00, (2u << 24) | 1);     /* SGI 1 to self */
    assert_int_equal(ENV.nkicks, 0);
    flush(0);
    assert_int_equal(LRS[0].writes, 0);
    assert_false(LRS[0].underflow);
    assert_false(vgic_has_pending_with(&D, 0, &OPS[0]));
    wr32(0, 0x000, 1);
    assert_int_equal(ENV.nkicks, 2);
    assert_true(vgic_has_pending_with(&D, 0, &OPS[0]));
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(1, 0) | LR_CPUID(0));
    assert_int_equal(LRS[0].lr[1], lr_expect(40, 0x80));
    /* disabled again: what is not in an LR stays out */
    wr32(0, 0x000, 0);
    vgic_inject_edge(&D, 0, 40);
    assert_int_equal(ENV.nkicks, 2);
    guest_take(0);
    guest_take(0);
    flush(0);
    assert_int_equal(LRS[0].lr[0], 0);
    assert_int_equal(LRS[0].lr[1], 0);
    assert_true(D.spi[8].pending);
}

static void test_vcpu_reset(void **s)
{
    setup();
    wr32(0, 0x000, 1);
    spi_setup(40, 0, 0x80);
    spi_setup(41, 1, 0x80);
    wr32(0, 0x100, 1u << 20);           /* PPI 20 */
    vgic_set_level(&D, 0, 20, true);
    vgic_inject_edge(&D, 0, 40);
    vgic_inject_edge(&D, 1, 41);
    wr32(1, 0xf00, (1u << 16) | 4);     /* SGI 4 to vCPU 0 */
    wr32(0, 0x300, 1u << 21);           /* PPI 21 active */
    flush(0);
    flush(1);
    assert_int_equal(CPU[0].lr_used, 0x7);
    wr(0, 0xf25, 1, 0x02);              /* another SGI 5 waits */
    wr(1, 0xf25, 1, 0x01);
    vgic_vcpu_reset(&D, 0);
    assert_int_equal(CPU[0].lr_used, 0);
    assert_false(CPU[0].queued);
    assert_int_equal(CPU[0].priv[4].sgi_src, 0);
    assert_int_equal(CPU[0].priv[5].sgi_src, 0);
    assert_false(CPU[0].priv[20].level);
    assert_false(CPU[0].priv[20].pending);
    assert_false(CPU[0].priv[20].in_lr);
    assert_false(D.spi[8].in_lr);
    assert_int_equal(rd32(0, 0x200), 0);
    assert_int_equal(rd32(0, 0x300), 0);
    assert_int_equal(rd32(0, 0xf24), 0);
    /* the other vCPU keeps its state */
    assert_true(D.spi[9].in_lr);
    assert_int_equal(CPU[1].priv[5].sgi_src, 0x01);
    assert_int_equal(CPU[1].lr_used, 0x1);
    /* with the LRs cleared too, it can receive anew */
    memset(LRS[0].lr, 0, sizeof(LRS[0].lr));
    vgic_inject_edge(&D, 0, 40);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(40, 0x80));
    assert_int_equal(CPU[0].lr_used, 0x1);
}

/* A direct guest's distributor (docs/direct-interrupts.md): its hardware
 * PPI (the virtual timer) is mirrored like a passthrough SPI, so the
 * physical distributor enables it on the guest's own CPU; a PPI without
 * hardware behind it is not */
static void test_hw_update_direct_ppi(void **s)
{
    setup_n(64, 1, 4);
    vgic_set_hw(&D, 0, 27, 27);
    wr32(0, 0x100, 1u << 27);           /* not direct: the PPI is the LRs' */
    assert_int_equal(ENV.nhw, 0);
    setup_n(64, 1, 4);                  /* a direct guest (set up so at start) */
    D.direct = true;
    vgic_set_hw(&D, 0, 27, 27);
    wr32(0, 0x100, 1u << 27);
    assert_int_equal(ENV.nhw, 1);
    assert_int_equal(ENV.hw[0].intid, 27);
    assert_true(ENV.hw[0].enabled);
    wr(0, 0x41b, 1, 0xa0);              /* its priority, as written */
    assert_int_equal(ENV.nhw, 2);
    assert_int_equal(ENV.hw[1].priority, 0xa0);
    wr32(0, 0x180, 1u << 27);
    assert_int_equal(ENV.nhw, 3);
    assert_false(ENV.hw[2].enabled);
    wr32(0, 0x100, 1u << 26);           /* no hardware behind it: nothing */
    assert_int_equal(ENV.nhw, 3);
    /* its CPU interface was reset (CPU_OFF, then CPU_ON): the model's word
     * goes to the hardware again, for its hardware PPIs only */
    wr32(0, 0x100, 1u << 27);
    ENV.nhw = 0;
    vgic_hw_resync_private(&D, 0);
    assert_int_equal(ENV.nhw, 1);
    assert_int_equal(ENV.hw[0].intid, 27);
    assert_true(ENV.hw[0].enabled);
    assert_int_equal(ENV.hw[0].priority, 0xa0);
    D.direct = false;                   /* a virtual guest's PPIs: never */
    vgic_hw_resync_private(&D, 0);
    assert_int_equal(ENV.nhw, 1);
}

static void test_hw_update_calls(void **s)
{
    setup_n(128, 3, 4);
    vgic_set_hw(&D, 0, 40, 72);
    vgic_set_hw(&D, 0, 27, 27);         /* a PPI: no mirroring */
    assert_true(D.spi[8].hw);
    assert_int_equal(D.spi[8].hwirq, 72);
    wr(0, 0x828, 1, 0x04);              /* target vCPU 2 */
    assert_int_equal(ENV.nhw, 1);
    assert_int_equal(ENV.hw[0].intid, 40);
    assert_int_equal(ENV.hw[0].target, 2);
    assert_int_equal(ENV.hw[0].targets, 0x04);
    wr32(0, 0x104, 1u << 8);            /* enable */
    assert_int_equal(ENV.nhw, 2);
    assert_true(ENV.hw[1].enabled);
    assert_int_equal(ENV.hw[1].target, 2);
    wr(1, 0x428, 1, 0xa0);              /* priority */
    assert_int_equal(ENV.nhw, 3);
    assert_int_equal(ENV.hw[2].priority, 0xa0);
    assert_int_equal(ENV.hw[2].intid, 40);
    wr(0, 0x828, 1, 0x06);              /* vCPUs 1, 2: the lowest is used */
    assert_int_equal(ENV.nhw, 4);
    assert_int_equal(ENV.hw[3].target, 1);
    wr32(0, 0x184, 1u << 8);            /* disable */
    assert_int_equal(ENV.nhw, 5);
    assert_false(ENV.hw[4].enabled);
    assert_int_equal(ENV.hw[4].target, 1);
    /* nothing for other interrupts or registers */
    wr32(0, 0x104, 1u << 9);
    wr(0, 0x429, 1, 0x10);
    wr(0, 0x829, 1, 0x01);
    wr32(0, 0x100, 1u << 27);
    wr(0, 0x41b, 1, 0x10);
    wr32(0, 0x084, 1u << 8);
    wr32(0, 0x204, 1u << 8);
    assert_int_equal(ENV.nhw, 5);
    /* a hardware-linked SPI goes into the LR with its physical ID */
    wr32(0, 0x000, 1);
    wr32(0, 0x104, 1u << 8);
    vgic_inject_edge(&D, 0, 40);
    flush(1);
    assert_int_equal(LRS[1].lr[0], lr_expect(40, 0xa0) | LR_GROUP1 | LR_HW | LR_PHYSID(72));
    assert_false(D.spi[8].pending);
    /* the guest's EOI ends it without maintenance: the ELRSR bit is set */
    guest_take(1);
    assert_int_equal(f_elrsr(&LRS[1]) & 1, 1);
    assert_int_equal(LRS[1].deactivated[0], 72);
    vgic_set_level(&D, 0, 40, true);    /* hardware re-asserts, not the model */
    flush(1);
    assert_int_equal(LRS[1].lr[0], lr_expect(40, 0xa0) | LR_GROUP1 | LR_HW | LR_PHYSID(72));
}

static void test_kicks_go_to_spi_target(void **s)
{
    setup_n(128, 3, 4);
    wr32(0, 0x000, 1);
    for (unsigned int i = 0; i < 3; i++)
        flush(i);
    ENV.nkicks = 0;
    wr32(0, 0x104, 1u << 8);                /* no target: no kick */
    vgic_inject_edge(&D, 0, 40);
    assert_int_equal(ENV.nkicks, 0);
    wr(0, 0x828, 1, 0x04);                  /* targeting it delivers: kick 2 */
    assert_int_equal(ENV.nkicks, 1);
    assert_int_equal(ENV.kicks[0], 2);
    assert_true(CPU[2].queued);
    assert_false(CPU[0].queued);
    flush(0);
    assert_int_equal(LRS[0].lr[0], 0);
    flush(2);
    assert_int_equal(LRS[2].lr[0], lr_expect(40, 0) | LR_EOI);    /* level */
    guest_take(2);
    wr(0, 0x828, 1, 0x02);                  /* nothing pending: no kick */
    assert_int_equal(ENV.nkicks, 1);
    vgic_inject_edge(&D, 2, 40);            /* whoever injects, the target hears */
    assert_int_equal(ENV.nkicks, 2);
    assert_int_equal(ENV.kicks[1], 1);
    /* a disabled SPI: no kick */
    wr32(0, 0x184, 1u << 8);
    vgic_inject_edge(&D, 0, 40);
    assert_int_equal(ENV.nkicks, 2);
    /* enabling a pending one: kick */
    wr32(0, 0x104, 1u << 8);
    assert_int_equal(ENV.nkicks, 3);
    assert_int_equal(ENV.kicks[2], 1);
    /* private interrupts kick their own vCPU */
    wr32(1, 0x100, 1u << 16);
    vgic_inject_edge(&D, 1, 16);
    assert_int_equal(ENV.nkicks, 4);
    assert_int_equal(ENV.kicks[3], 1);
}

/* An edge interrupt that comes again while the guest handles it must not
 * wait for an unrelated trap once the guest EOIs the first one. */
static void test_edge_again_while_active_not_lost(void **s)
{
    setup_n(128, 2, 4);
    wr32(0, 0x000, 1);
    spi_setup(40, 0, 0x80);
    vgic_inject_edge(&D, 0, 40);
    flush(0);
    int i = guest_ack(0);
    assert_int_equal(i, 0);
    vgic_inject_edge(&D, 0, 40);        /* again, while active */
    flush(0);                           /* the kick: the vCPU trapped in */
    guest_eoi(0, i);
    assert_true(delivery_assured(0));
    flush(0);                           /* what the maintenance handler does */
    assert_int_equal(LRS[0].lr[0], lr_expect(40, 0x80));
    guest_take(0);
    flush(0);
    assert_int_equal(LRS[0].lr[0], 0);
    assert_false(delivery_assured(0));

    /* the same for an SGI sent again by the same source */
    wr32(1, 0xf00, (1u << 16) | 2);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(2, 0) | LR_CPUID(1));
    i = guest_ack(0);
    wr32(1, 0xf00, (1u << 16) | 2);
    flush(0);
    guest_eoi(0, i);
    assert_true(delivery_assured(0));
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(2, 0) | LR_CPUID(1));
    guest_take(0);
    flush(0);
    assert_false(delivery_assured(0));
}

static void test_group_and_priority_reach_a_waiting_lr(void **s)
{
    /* an SGI waits in a list register as group 1; the guest makes it group
     * 0 and raises its priority: the list register must follow, or a
     * guest with only group 0 enabled never sees it (found by the hostile
     * guest, guests/test/hostile.c gicd_patterns) */
    setup_n(128, 2, 4);
    wr32(0, 0x000, 1);
    wr32(0, 0x080, 0xffffffffu);                /* every private one group 1 */
    wr(0, 0x403, 1, 0xf0);
    wr32(0, 0xf00, (2u << 24) | 3);             /* SGI 3 to itself */
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(3, 0xf0) | LR_GROUP1 | LR_CPUID(0));
    ENV.nkicks = 0;
    wr32(0, 0x080, 0);
    wr(0, 0x403, 1, 0x80);
    assert_true(CPU[0].queued);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(3, 0x80) | LR_CPUID(0));
    assert_false(CPU[0].lr_stale);
    /* an SPI of another vCPU: its owner is kicked and refreshes its own */
    spi_setup(40, 1, 0x40);
    vgic_inject_edge(&D, 0, 40);
    flush(1);
    assert_int_equal(LRS[1].lr[0], lr_expect(40, 0x40));
    ENV.nkicks = 0;
    wr(0, 0x400 + 40, 1, 0x10);
    assert_true(ENV.nkicks == 1 && ENV.kicks[0] == 1);
    flush(1);
    assert_int_equal(LRS[1].lr[0], lr_expect(40, 0x10));
    /* once active, the priority stays what it was taken with */
    int i = guest_ack(1);
    wr(0, 0x400 + 40, 1, 0x20);
    flush(1);
    assert_int_equal(LRS[1].lr[i], (lr_expect(40, 0x10) & ~LR_PENDING) | LR_ACTIVE);
}

static void test_hw_never_pending_and_active(void **s)
{
    /* the guest marks its hardware-linked timer PPI active, then it fires:
     * the list register must not be pending and active with HW set (found
     * by the hostile guest writing every ISACTIVER pattern) */
    setup();
    vgic_set_hw(&D, 0, 27, 27);
    wr32(0, 0x000, 1);
    wr32(0, 0x100, 1u << 27);
    wr32(0, 0x300, 1u << 27);                   /* ISACTIVER0 */
    vgic_inject_edge(&D, 0, 27);
    flush(0);
    uint32_t v = LRS[0].lr[0];
    assert_true(v & LR_HW);
    assert_int_equal(v & LR_STATE_MASK, LR_ACTIVE);
}

/* A 1-bit bank's word write visits only the interrupts it changes: an
 * enable or disable that is already so mirrors and kicks nothing (GICv2
 * 4.3.5, 4.3.6), and an enabled interrupt written again stays deliverable */
static void test_enable_rewrite_changes_nothing(void **s)
{
    setup_n(128, 2, 4);
    vgic_set_hw(&D, 0, 40, 72);
    vgic_set_hw(&D, 0, 41, 73);
    wr32(0, 0x000, 1);
    wr(0, 0x828, 1, 0x02);
    wr(0, 0x829, 1, 0x02);
    flush(0);
    flush(1);
    ENV.nhw = ENV.nkicks = 0;
    wr32(0, 0x104, 1u << 8);                    /* INTID 40 */
    assert_int_equal(ENV.nhw, 1);
    wr32(1, 0x104, 3u << 8);                    /* 40 again, and 41: one change */
    assert_int_equal(ENV.nhw, 2);
    assert_int_equal(ENV.hw[1].intid, 41);
    assert_true(ENV.hw[1].enabled);
    wr32(0, 0x104, 3u << 8);                    /* both enabled: nothing */
    assert_int_equal(ENV.nhw, 2);
    assert_int_equal(rd32(0, 0x104), 3u << 8);
    /* pending and enabled: written again, it is still delivered once */
    vgic_inject_edge(&D, 0, 40);
    assert_int_equal(ENV.nkicks, 1);
    wr32(0, 0x104, 1u << 8);
    assert_int_equal(ENV.nkicks, 1);
    flush(1);
    assert_int_equal(LR_VIRTID(LRS[1].lr[0]), 40);
    assert_int_equal(lrs_in_state(1, LR_PENDING), 1);
    /* disabling: once */
    wr32(0, 0x184, 1u << 9);
    assert_int_equal(ENV.nhw, 3);
    assert_false(ENV.hw[2].enabled);
    wr32(1, 0x184, 1u << 9);
    assert_int_equal(ENV.nhw, 3);
    assert_int_equal(rd32(0, 0x104), 1u << 8);
    /* a private bank: SGI bits ignored, a PPI enabled once, banked */
    wr32(1, 0x100, 0xffffffffu);
    assert_int_equal(rd32(1, 0x100), 0xffffffffu);
    assert_int_equal(rd32(0, 0x100), 0x0000ffffu);
    assert_int_equal(ENV.nhw, 3);               /* PPIs: the list registers' */
}

/* A forwarded PPI taken on its vCPU's own CPU (vgic_ppi_fired): no lock,
 * no kick; pending from the next flush (or sync), like vgic_inject_edge */
static void test_ppi_fired_pending_at_next_flush(void **s)
{
    setup();
    vgic_set_hw(&D, 0, 27, 27);
    wr32(0, 0x000, 1);
    wr32(0, 0x100, 1u << 27);
    flush(0);
    ENV.nkicks = 0;
    vgic_ppi_fired(&CPU[0], 27);
    assert_true(CPU[0].queued);
    assert_int_equal(ENV.nkicks, 0);
    assert_true(vgic_has_pending_with(&D, 0, &OPS[0]));     /* wakes WFI */
    sync_(0);                           /* as vgic_dist_handler before ISPENDR */
    assert_int_equal(rd32(0, 0x200) & (1u << 27), 1u << 27);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(27, 0) | LR_HW | LR_PHYSID(27));
    assert_int_equal(CPU[0].ppi_fired, 0);
    assert_false(CPU[0].queued);
    /* the guest ends it (the hardware deactivates 27); it fires again: the
     * list register it had is reused, written once */
    guest_take(0);
    unsigned int w = LRS[0].writes;
    vgic_ppi_fired(&CPU[0], 27);
    flush(0);
    assert_int_equal(LRS[0].writes, w + 1);
    assert_int_equal(LRS[0].lr[0], lr_expect(27, 0) | LR_HW | LR_PHYSID(27));
    assert_int_equal(LRS[0].lr[1], 0);
    /* disabled: pending, not delivered until enabled */
    guest_take(0);
    wr32(0, 0x180, 1u << 27);
    vgic_ppi_fired(&CPU[0], 27);
    flush(0);
    assert_int_equal(LRS[0].lr[0], 0);
    assert_int_equal(CPU[0].lr_used, 0);
    wr32(0, 0x100, 1u << 27);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(27, 0) | LR_HW | LR_PHYSID(27));
    /* a vCPU reset forgets one not taken in yet */
    vgic_ppi_fired(&CPU[1], 27);
    vgic_vcpu_reset(&D, 1);
    assert_int_equal(CPU[1].ppi_fired, 0);
}

/* The list registers the sync freed are written 0 unless one is reused at
 * once; with more than one candidate, nothing stale is left either */
/* ================= passthrough SPIs ================= */

static void test_uniprocessor_spis_target_its_cpu(void **s)
{
    setup_n(128, 1, 4);
    assert_int_equal(rd(0, 0x828, 1), 0x01);        /* SPI 40: the one CPU */
    wr(0, 0x828, 1, 0);                             /* read-only (4.3.12) */
    assert_int_equal(rd(0, 0x828, 1), 0x01);
    wr32(0, 0, 1);
    wr(0, 0x400 + 40, 1, 0xa0);
    wr32(0, 0x104, 1u << 8);
    wr32(0, 0x204, 1u << 8);
    flush(0);
    assert_int_equal(LR_VIRTID(LRS[0].lr[0]), 40);  /* delivered, never targeted */
}

static uint32_t pend40(void) { return (rd32(0, 0x204) >> 8) & 1; }

static void test_passthrough_pending_is_the_line(void **s)
{
    setup_passthrough();
    wr32(0, 0, 1);
    wr(0, 0x400 + 40, 1, 0xa0);
    PSET(72, PHYS.line, 1);                         /* asserted, SPI disabled */
    assert_int_equal(pend40(), 1);
    assert_false(phys_take());
    wr32(0, 0x104, 1u << 8);                        /* enabled: taken, forwarded */
    assert_true(ENV.nhw > 0 && ENV.hw[ENV.nhw - 1].enabled);
    assert_true(phys_take());
    flush(0);
    assert_true((LRS[0].lr[0] & (LR_HW | LR_STATE_MASK)) == (LR_HW | LR_PENDING));
    assert_int_equal(pend40(), 1);
    flush(0);                                       /* held: looked at at every entry */
    assert_int_equal(D.cpu[0]->queued, VGIC_QUEUED_WATCH);
    LRS[0].vmcr = 0;                                /* masked by the guest: no WFI wake */
    assert_false(vgic_has_pending_with(&D, 0, &OPS[0]));
    LRS[0].vmcr = 0x1fu << 27;
    PSET(72, PHYS.line, 0);                         /* the device quietened */
    assert_int_equal(pend40(), 0);
    flush(0);                                       /* withdrawn, not taken */
    assert_int_equal(LRS[0].lr[0] & LR_STATE_MASK, 0);
    assert_int_equal(PBIT(72, PHYS.active), 0);
    assert_int_equal(guest_ack(0), -1);
    assert_false(D.cpu[0]->queued);
    /* asserted again: taken, ended by the guest, not pending after */
    PSET(72, PHYS.line, 1);
    assert_true(phys_take());
    flush(0);
    int i = guest_ack(0);
    assert_true(i >= 0);
    flush(0);
    assert_int_equal(rd32(0, 0x304) >> 8 & 1, 1);   /* active */
    PSET(72, PHYS.line, 0);
    guest_eoi(0, i);
    PSET(72, PHYS.active, 0);                       /* the hardware-linked EOI */
    flush(0);                                       /* as a read does (vgic_hw.c) */
    assert_int_equal(pend40(), 0);
    assert_int_equal(rd32(0, 0x304) >> 8 & 1, 0);
}

static void test_passthrough_disable_withdraws(void **s)
{
    setup_passthrough();
    wr32(0, 0, 1);
    wr32(0, 0x104, 1u << 8);
    PSET(72, PHYS.line, 1);
    assert_true(phys_take());
    flush(0);
    assert_int_equal(lrs_in_state(0, LR_PENDING), 1);
    wr32(0, 0x184, 1u << 8);                        /* ICENABLER */
    assert_true(ENV.nhw > 0 && !ENV.hw[ENV.nhw - 1].enabled);
    assert_true(D.cpu[0]->queued);
    flush(0);
    assert_int_equal(lrs_in_state(0, LR_PENDING), 0);
    assert_int_equal(PBIT(72, PHYS.active), 0);     /* pending in the distributor again */
    assert_int_equal(pend40(), 1);
    wr32(0, 0x104, 1u << 8);
    assert_true(phys_take());
    flush(0);
    assert_int_equal(lrs_in_state(0, LR_PENDING), 1);
}

static void test_passthrough_set_and_clear_pending(void **s)
{
    setup_passthrough();
    wr32(0, 0, 1);
    wr32(0, 0x204, 1u << 8);                        /* ISPENDR, disabled: the latch */
    assert_int_equal(PBIT(72, PHYS.latch), 1);
    assert_int_equal(pend40(), 1);
    wr32(0, 0x284, 1u << 8);                        /* ICPENDR */
    assert_int_equal(pend40(), 0);
    wr32(0, 0x104, 1u << 8);
    assert_false(phys_take());
    wr32(0, 0x204, 1u << 8);                        /* enabled: taken, the line low */
    assert_true(phys_take());
    flush(0);
    assert_int_equal(pend40(), 1);                  /* until the guest takes it */
    flush(0);
    assert_int_equal(lrs_in_state(0, LR_PENDING), 1);
    wr32(0, 0x284, 1u << 8);                        /* cleared before it is taken */
    flush(0);
    assert_int_equal(lrs_in_state(0, LR_PENDING), 0);
    assert_int_equal(PBIT(72, PHYS.active), 0);
    assert_int_equal(pend40(), 0);
    /* hostile: every pending and active bit set and cleared at once */
    wr32(0, 0x204, ~0u);
    wr32(0, 0x304, ~0u);
    assert_int_equal(PBIT(72, PHYS.active), 1);
    wr32(0, 0x384, ~0u);
    wr32(0, 0x284, ~0u);
    assert_int_equal(PBIT(72, PHYS.active) | PBIT(72, PHYS.latch), 0);
}

static void test_freed_lrs_written_zero(void **s)
{
    setup();
    wr32(0, 0x000, 1);
    spi_setup(40, 0, 0x80);
    spi_setup(41, 0, 0x80);
    vgic_inject_edge(&D, 0, 40);
    vgic_inject_edge(&D, 0, 41);
    flush(0);
    assert_int_equal(CPU[0].lr_used, 0x3);
    guest_take(0);
    guest_take(0);
    flush(0);                           /* both freed, nothing waits */
    assert_int_equal(LRS[0].lr[0], 0);
    assert_int_equal(LRS[0].lr[1], 0);
    assert_int_equal(CPU[0].lr_used, 0);
    vgic_inject_edge(&D, 0, 40);
    vgic_inject_edge(&D, 0, 41);
    flush(0);
    guest_take(0);
    guest_take(0);
    wr32(1, 0xf00, (1u << 16) | 3);     /* one SGI in, two freed: one reused */
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(3, 0) | LR_CPUID(1));
    assert_int_equal(LRS[0].lr[1], 0);
    assert_int_equal(CPU[0].lr_used, 0x1);
    guest_take(0);
    wr32(1, 0xf00, (1u << 16) | 3);     /* two wait: sorted, none stale */
    wr32(1, 0xf00, (1u << 16) | 4);
    flush(0);
    assert_int_equal(LRS[0].lr[0], lr_expect(3, 0) | LR_CPUID(1));
    assert_int_equal(LRS[0].lr[1], lr_expect(4, 0) | LR_CPUID(1));
    assert_int_equal(LRS[0].lr[2], 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ctlr_enable_kicks_every_vcpu),
        cmocka_unit_test(test_typer_iidr),
        cmocka_unit_test(test_igroupr),
        cmocka_unit_test(test_enablers),
        cmocka_unit_test(test_pendr),
        cmocka_unit_test(test_activer),
        cmocka_unit_test(test_priority),
        cmocka_unit_test(test_targets),
        cmocka_unit_test(test_icfgr),
        cmocka_unit_test(test_sgir_filters),
        cmocka_unit_test(test_sgi_pend_registers),
        cmocka_unit_test(test_id_registers),
        cmocka_unit_test(test_width_rules),
        cmocka_unit_test(test_out_of_range_ids),
        cmocka_unit_test(test_flush_priority_order_and_fields),
        cmocka_unit_test(test_more_pending_than_lrs),
        cmocka_unit_test(test_higher_priority_evicts_pending_lr),
        cmocka_unit_test(test_level_repended_while_high),
        cmocka_unit_test(test_sgi_two_sources_delivered_twice),
        cmocka_unit_test(test_has_pending_honours_priority_mask),
        cmocka_unit_test(test_disabled_distributor_injects_nothing),
        cmocka_unit_test(test_vcpu_reset),
        cmocka_unit_test(test_hw_update_calls),
        cmocka_unit_test(test_hw_update_direct_ppi),
        cmocka_unit_test(test_kicks_go_to_spi_target),
        cmocka_unit_test(test_edge_again_while_active_not_lost),
        cmocka_unit_test(test_group_and_priority_reach_a_waiting_lr),
        cmocka_unit_test(test_hw_never_pending_and_active),
        cmocka_unit_test(test_enable_rewrite_changes_nothing),
        cmocka_unit_test(test_ppi_fired_pending_at_next_flush),
        cmocka_unit_test(test_freed_lrs_written_zero),
        cmocka_unit_test(test_uniprocessor_spis_target_its_cpu),
        cmocka_unit_test(test_passthrough_pending_is_the_line),
        cmocka_unit_test(test_passthrough_disable_withdraws),
        cmocka_unit_test(test_passthrough_set_and_clear_pending),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
