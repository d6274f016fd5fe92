/*
 * libFuzzer target for the virtual distributor model (vgic/vgic_dist.c):
 * each input is a program of guest and hardware events on a guest of 1-4
 * vCPUs with 1-8 list registers (tests/unit/fake_lrs.h) - distributor
 * accesses of any width and value, SGIs, edge and level sources, list
 * register flushes and syncs, the guest acknowledging and ending
 * interrupts, vCPU resets.  Nothing may crash or overflow (ASan/UBSan),
 * and after every step the bookkeeping must match the list registers:
 * each one the model believes it uses holds an interrupt marked in a list
 * register, none outside the bank is ever touched, and none with HW set is
 * pending and active at once.  Passthrough SPI 48 has a physical side
 * (its line, latch and active bit) in half of the inputs.
 *
 * Built and run by tests/unit/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_ASSERT(c) do { if (!(c)) { fprintf(stderr, "fuzz_vgic: %s\n", #c); abort(); } } while (0)
#include "fake_lrs.h"
#include "vgic/vgic_lr.h"
#include "fuzz_input.h"

static struct vgic D;
static struct vgic_cpu CPU[VGIC_MAX_VCPUS];
static struct fake_lrs LRS[VGIC_MAX_VCPUS];
static struct vgic_lr_ops OPS[VGIC_MAX_VCPUS];

static void e_kick(void *ctx, unsigned int vcpu) { FAKE_ASSERT(vcpu < D.nr_vcpus); }
static void e_hw(void *ctx, unsigned int intid, const struct vgic_irq *irq, unsigned int t)
{
    FAKE_ASSERT(intid >= VGIC_NR_PRIVATE && intid < D.nr_irqs);
}

/* The physical distributor's side of passthrough SPI 48 (vgic/vgic_pt.c):
 * its line, pending latch and active bit; nothing else may be asked for */
static struct { bool line, latch, active; } PHYS;

static uint32_t e_hw_read(void *ctx, uint32_t off)
{
    FAKE_ASSERT(off == GICD_ISPENDR + 4);
    return (uint32_t)(PHYS.line || PHYS.latch) << 16;
}

static void e_hw_write(void *ctx, uint32_t off, uint32_t bits)
{
    FAKE_ASSERT(bits == 1u << 16 && (off & 0x7f) == 4 && off >= GICD_ISPENDR &&
                off <= GICD_ICACTIVER + 4);
    switch (off & ~0x7fu) {
    case GICD_ISPENDR: PHYS.latch = true; break;
    case GICD_ICPENDR: PHYS.latch = false; break;
    case GICD_ISACTIVER: PHYS.active = true; break;
    default: PHYS.active = false; break;
    }
}

static void check_bookkeeping(void)
{
    for (unsigned int c = 0; c < D.nr_vcpus; c++) {
        uint32_t used = CPU[c].lr_used;
        FAKE_ASSERT(LRS[c].n >= 32 || !(used >> LRS[c].n));
        /* a hardware-linked list register is never pending and active */
        for (unsigned int i = 0; i < LRS[c].n; i++)
            FAKE_ASSERT(!(LRS[c].lr[i] & LR_HW) ||
                        (LRS[c].lr[i] & LR_STATE_MASK) != LR_STATE_MASK);
        for (; used; used &= used - 1) {
            unsigned int i = (unsigned int)__builtin_ctz(used);
            struct vgic_irq *irq = vgic_get_irq(&D, c, LR_VIRTID(LRS[c].lr[i]));
            FAKE_ASSERT(irq && irq->in_lr);
            FAKE_ASSERT(CPU[c].lr_intid[i] == LR_VIRTID(LRS[c].lr[i]));
        }
        /* the flush looks only at 'maybe' bits: every interrupt that wants
         * a list register of this vCPU must have its bit (and its word's) */
        for (unsigned int id = 0; (D.ctlr & 1) && id < D.nr_irqs; id++) {
            struct vgic_irq *irq = vgic_get_irq(&D, c, id);
            bool ours = id < VGIC_NR_PRIVATE || spi_target(&D, irq) == (int)c;
            if (ours && irq_wants_lr(irq, id)) {
                FAKE_ASSERT(CPU[c].maybe[id / 32] & (1u << (id % 32)));
                FAKE_ASSERT(CPU[c].maybe_words & (1u << (id / 32)));
            }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    unsigned int nvcpus = 1 + take(&in, 1) % 4, nlrs = 1 + take(&in, 1) % 8;
    unsigned int nirqs = 32 + 32 * (take(&in, 1) % 8);
    memset(&D, 0, sizeof(D));
    memset(LRS, 0, sizeof(LRS));
    struct vgic_cpu *cpus[VGIC_MAX_VCPUS];
    for (unsigned int i = 0; i < VGIC_MAX_VCPUS; i++) {
        cpus[i] = &CPU[i];
        LRS[i].n = nlrs;
        LRS[i].vmcr = 0x1fu << 27;
        OPS[i] = (struct vgic_lr_ops){ f_lr_mask, f_read_lr, f_write_lr, f_elrsr,
                                       f_set_underflow, f_vmcr, &LRS[i] };
    }
    struct vgic_env env = { .kick = e_kick, .hw_update = e_hw };
    memset(&PHYS, 0, sizeof(PHYS));
    if (take(&in, 1) & 1) {                     /* 48's state is the physical one's */
        env.hw_read = e_hw_read;
        env.hw_write = e_hw_write;
    }
    vgic_init(&D, nirqs, nvcpus, cpus, &env);
    vgic_set_hw(&D, 0, 27, 27);                 /* a hardware-linked timer */
    if (nirqs > 48)
        vgic_set_hw(&D, 0, 48, 48);             /* and a passthrough SPI */
    while (in.n) {
        unsigned int op = take(&in, 1), c = (op >> 4) % nvcpus;
        switch (op & 0xf) {
        case 0: case 1: case 2: case 3: case 4: {   /* a distributor access */
            static const unsigned int sizes[] = { 1, 2, 4, 4 };
            uint32_t off = take(&in, 2) & 0xfff;
            struct mmio_access a = { .size = sizes[op & 3],
                                     .write = (op & 4) != 0, .value = take(&in, 4) };
            uint32_t before = a.value;
            bool ok = vgic_dist_mmio(&D, &a, off, c);
            if (!ok)                            /* only unaligned accesses are refused */
                FAKE_ASSERT(off & (a.size - 1));
            if (a.write)
                FAKE_ASSERT(a.value == before);
            break;
        }
        case 5:
            vgic_send_sgi(&D, c, take(&in, 4));
            break;
        case 6:
            vgic_inject_edge(&D, c, take(&in, 2) % 1024);
            break;
        case 7:
            vgic_set_level(&D, c, take(&in, 2) % 1024, take(&in, 1) & 1);
            break;
        case 8: case 9:
            vgic_flush_with(&D, c, &OPS[c]);
            break;
        case 10:
            vgic_sync_with(&D, c, &OPS[c]);
            break;
        case 11: {                              /* the guest takes one and ends it */
            int i = fake_ack(&LRS[c]);
            if (i >= 0)
                fake_eoi(&LRS[c], i);
            break;
        }
        case 12: {                              /* acknowledge only */
            fake_ack(&LRS[c]);
            break;
        }
        case 13:                                /* the guest's priority mask */
            LRS[c].vmcr = (LRS[c].vmcr & ~(0x1fu << 27)) | ((take(&in, 1) & 0x1fu) << 27);
            break;
        case 14:
            switch (take(&in, 1) % 4) {
            case 0:                             /* the hardware timer, on its CPU */
                vgic_ppi_fired(&CPU[c], 27);
                break;
            case 1:
                (void)vgic_has_pending_with(&D, c, &OPS[c]);
                break;
            case 2:                             /* SPI 48's line moves */
                PHYS.line = !PHYS.line;
                break;
            default:                            /* and the hypervisor takes it */
                if (nirqs > 48 && !PHYS.active && (PHYS.line || PHYS.latch)) {
                    PHYS.latch = false;
                    PHYS.active = true;
                    vgic_hw_acked(&D, 48);
                    vgic_inject_edge(&D, 0, 48);
                }
                break;
            }
            break;
        default:                                /* CPU_OFF/ON: the vCPU and its LRs reset */
            vgic_vcpu_reset(&D, c);
            memset(LRS[c].lr, 0, sizeof(LRS[c].lr));
            break;
        }
        check_bookkeeping();
    }
    return 0;
}
