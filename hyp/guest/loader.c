/*
 * Loading a guest at its start: the pristine images from the configuration
 * blob into its scrubbed RAM, its device tree, its Stage-2 tables.
 */
#include <string.h>
#include <libfdt.h>
#include <arch/sysregs.h>
#include "guest.h"
#include "guest_parts.h"
#include "guest_dt.h"
#include "guest_ram.h"
#include "channel.h"
#include "hyp/lib/console.h"
#include "hyp/platform/hyp.h"
#include "mm/cache.h"
#include "mm/page_alloc.h"
#include "mm/hyp_mmu.h"

#define GUEST_DTB_MAX 0x10000u
/* fdt_create() initializes what it uses: not zeroed at boot */
static uint8_t dt_scratch[GUEST_DTB_MAX] __attribute__((aligned(8), section(".noinit.dt_scratch")));

/* Stage-2 tables come from the hypervisor page pool (identity mapped) */
static void *s2_alloc(void *ctx, uint64_t *pa)
{
    void *p = page_alloc(1, 1);
    if (p != NULL) {
        *pa = (uint32_t)p;
    }
    return p;
}
static void s2_free(void *ctx, void *va) { page_free(va, 1); }
static void *s2_va(void *ctx, uint64_t pa) { return (void *)(uint32_t)pa; }
static const struct s2_mm_ops s2_ops = { s2_alloc, s2_free, s2_va, NULL };

static const char *cpu_compatible(void)
{
    uint32_t part = (sysreg_read_midr() >> 4) & 0xfffu;
    return part == 0xc07u ? "arm,cortex-a7" : part == 0xc0eu ? "arm,cortex-a17"
                                                          : "arm,cortex-a15";
}

/* Its RAM through the identity map, one physically contiguous run at a
 * time: all of it at once, or (coloured) the pages of adjacent colours */
static void *ram_at(const struct guest_config *c, uint32_t off)
{
    return (void *)(uint32_t)guest_ram_pa(c, off);
}

static uint32_t run_at(const struct guest_config *c, uint32_t off, uint32_t len)
{
    uint64_t run = guest_ram_run(c, off);
    return run < len ? (uint32_t)run : len;
}

/* copy len bytes to RAM offset off and clean them to the point of
 * coherency: the guest starts with its MMU and caches off */
static void ram_copy(const struct guest_config *c, uint32_t off, const void *src, uint32_t len)
{
    for (uint32_t done = 0u, n; done < len; done += n) {
        n = run_at(c, off + done, len - done);
        (void)memcpy(ram_at(c, off + done), (const uint8_t *)src + done, n);
        dcache_clean_range(ram_at(c, off + done), n);
    }
}

/* Load the images and the DT; returns the IPA of vCPU 0's entry. */
int guest_load(struct guest *g, uint32_t *entry, uint32_t *dtb_ipa)
{
    const struct guest_config *c = g->cfg;
    uint32_t ipa = (uint32_t)guest_ram_ipa(c);
    uint32_t window = c->mem_size > 0x10000000u ? 0x10000000u : (uint32_t)c->mem_size;
    struct guest_dt_info info = { ipa, 0, 0, cpu_compatible(), host_fdt,
                                  g->vcpu[0].pmu, host.pmu_irq != 0u };

    /* scrub: nothing of a previous life or another guest survives; the
     * guest starts with its MMU and caches off and reads memory directly,
     * so every line goes to the point of coherency (QEMU has no caches to
     * show a mistake here).  A coloured guest's pages only: the others in
     * its span are other guests'. */
    for (uint32_t off = 0u, n; off < c->mem_size; off += n) {
        n = run_at(c, off, (uint32_t)c->mem_size - off);
        dcache_zero_clean(ram_at(c, off), n);
    }
    uint32_t dtb_off = (window - GUEST_DTB_MAX) & ~7u;
    if (c->format == KERNEL_LINUX) {
        ram_copy(c, LINUX_ZIMAGE_OFFSET, c->kernel, c->kernel_size);
        *entry = ipa + LINUX_ZIMAGE_OFFSET;
    } else {
        ram_copy(c, c->load_offset, c->kernel, c->kernel_size);
        *entry = ipa + c->entry_offset;
    }
    /* the initrd, of any image: page aligned below the DT, announced in
     * /chosen as Linux's linux,initrd-start/end (config.c checked it fits) */
    if (c->initrd_size != 0u) {
        uint32_t off = (dtb_off - c->initrd_size) & ~0xfffu;
        ram_copy(c, off, c->initrd, c->initrd_size);
        info.initrd_ipa = ipa + off;
        info.initrd_size = c->initrd_size;
    }
    int size = guest_dt_build(dt_scratch, GUEST_DTB_MAX, c, &info);
    if (size < 0) {
        pr_err("guest '%s': cannot write its device tree: %s\n", c->name, fdt_strerror(size));
        return -1;
    }
    ram_copy(c, dtb_off, dt_scratch, (uint32_t)size);
    *dtb_ipa = ipa + dtb_off;
    icache_invalidate_all();    /* no stale instructions */
    return 0;
}

int guest_build_s2(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    s2_destroy(&g->s2);
    if (s2_init(&g->s2, &s2_ops) != 0) {
        return -1;
    }
    if (guest_ram_map(&g->s2, c) != 0) {
        return -1;
    }
    /* the guest's GIC CPU interface is the hardware GICV
     * (docs/virtual-board.md);
     * a direct guest's is the physical GICC, whose non-secure view shows it
     * none of the hypervisor's Group 0 (docs/direct-interrupts.md) */
    uint64_t gicc = c->irq_mode == IRQ_DIRECT ? host.gic.gicc.base : host.gic.gicv.base;
    if (s2_map(&g->s2, VBOARD_GICC_IPA, gicc, VBOARD_GICC_SIZE,
               S2_RW | S2_DEVICE) != 0) {
        return -1;
    }
    for (unsigned int i = 0u; i < c->npt_regs; i++) {
        if (s2_map(&g->s2, c->pt_regs[i].base, c->pt_regs[i].base, c->pt_regs[i].size,
                   S2_RW | S2_DEVICE) != 0) {
            return -1;
        }
    }
    if (channel_map(c, &g->s2) != 0) {
        return -1;
    }
    /*
     * The walker reads the new tables through the cache (VTCR: WB, inner
     * shareable): a DSB makes them visible.  The VMID served the earlier
     * lives of this guest: drop its stage-1/2 entries on all CPUs, and only
     * its own - TLBIALLIS executed in Hyp mode acts on the VMID in VTTBR
     * (B4.2.2, as KVM's __kvm_tlb_flush_vmid does), so a guest restarting in
     * a loop does not cost the others their TLBs.  This CPU runs no guest
     * now (HCR.VM is clear in HYP); its VTTBR is put back all the same.
     * QEMU flushes every entry whatever the VMID: a mistake here would only
     * show on hardware.
     */
    dsb_ish();
    uint64_t vttbr = sysreg_read_vttbr();
    sysreg_write_vttbr(s2_vttbr(&g->s2, g->vmid));
    isb();
    sysreg_op_tlbiallis(0);
    dsb_ish();
    sysreg_write_vttbr(vttbr);
    isb();
    return 0;
}
