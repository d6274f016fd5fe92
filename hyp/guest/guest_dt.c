/*
 * A guest's device tree, written with libfdt's sequential-write API: the
 * virtual board mirrors QEMU virt, so software written for virt runs as is.
 */
#include <stdio.h>
#include <stdbool.h>
#include <string.h>
#include <libfdt.h>
#include "guest_dt.h"
#include "hyp/platform/platform.h"
#include "hyp/dt/dt_index.h"
#include <partita/blk_queue.h>


#define PH_GIC   1
#define PH_CLK   2
#define PH_CHAN  16u    /* + the guest's channel slot: its reserved-memory node */
#define PH_DISKQ 24u    /* + the index of a disk it drives: its queue's node */

_Static_assert(PH_DISKQ >= (PH_CHAN + GUEST_MAX_CHANNELS), "phandles apart");
_Static_assert((PARTITA_BLKQ_KEY_BASE >= (CHANNEL_DOORBELL_KEY + CHANNEL_MAX)) &&
               ((PARTITA_BLKQ_KEY_BASE + DISK_MAX) <= PARTITA_BLKQ_KEY_END),
               "key codes apart");

#define TRY(x) do { int rc_ = (x); if (rc_ < 0) { return rc_; } } while (0)

static int prop_cells(void *fdt, const char *name, const uint32_t *v, int n)
{
    fdt32_t c[16];
    for (int i = 0; i < n && i < 16; i++) {
        c[i] = cpu_to_fdt32(v[i]);
    }
    return fdt_property(fdt, name, c, n * 4);
}

static int prop_strings(void *fdt, const char *name, const char *a, const char *b)
{
    char buf[96];
    size_t la = strlen(a) + 1u, lb = b ? strlen(b) + 1u : 0u;
    if (la + lb > sizeof(buf)) {
        return -FDT_ERR_NOSPACE;
    }
    (void)memcpy(buf, a, la);
    if (b != NULL) {
        (void)memcpy(buf + la, b, lb);
    }
    size_t len = la + lb;
    return fdt_property(fdt, name, buf, (int)len);
}

/* libfdt's fdt_property_string, with the length's sum in one type */
static int prop_string(void *fdt, const char *name, const char *s)
{
    return fdt_property(fdt, name, s, (int)strlen(s) + 1);
}

static int write_cpus(void *fdt, const struct guest_config *cfg, const char *compat)
{
    TRY(fdt_begin_node(fdt, "cpus"));
    TRY(fdt_property_u32(fdt, "#address-cells", 1));
    TRY(fdt_property_u32(fdt, "#size-cells", 0));
    for (unsigned int i = 0u; i < cfg->ncpus; i++) {
        char name[16];
        (void)snprintf(name, sizeof(name), "cpu@%u", i);
        TRY(fdt_begin_node(fdt, name));
        TRY(fdt_property_string(fdt, "device_type", "cpu"));
        TRY(fdt_property_string(fdt, "compatible", compat));
        TRY(fdt_property_u32(fdt, "reg", i));
        TRY(fdt_property_string(fdt, "enable-method", "psci"));
        TRY(fdt_end_node(fdt));
    }
    return fdt_end_node(fdt);
}

/* The CPU's PMU, when the guest has it: "<cpu>-pmu" as Linux's
 * arm,cortex-a15-pmu binding names it, its PPI on every vCPU */
static int write_pmu(void *fdt, const struct guest_config *cfg,
                     const struct guest_dt_info *info)
{
    if (!info->pmu) {
        return 0;
    }
    char compat[40];
    (void)snprintf(compat, sizeof(compat), "%s-pmu", info->cpu_compatible);
    TRY(fdt_begin_node(fdt, "pmu"));
    TRY(fdt_property_string(fdt, "compatible", compat));
    if (info->pmu_irq) {
        uint32_t f = (((1u << cfg->ncpus) - 1u) << 8) | 4u;      /* CPU mask, level-high */
        const uint32_t irq[] = { 1, VBOARD_PMU_IRQ - 16u, f };
        TRY(prop_cells(fdt, "interrupts", irq, 3));
    }
    return fdt_end_node(fdt);
}

static int write_gic_timer(void *fdt, const struct guest_config *cfg)
{
    char name[32];
    (void)snprintf(name, sizeof(name), "intc@%x", VBOARD_GICD_IPA);
    TRY(fdt_begin_node(fdt, name));
    TRY(fdt_property_string(fdt, "compatible", "arm,cortex-a15-gic"));
    TRY(fdt_property_u32(fdt, "#interrupt-cells", 3));
    TRY(fdt_property(fdt, "interrupt-controller", NULL, 0));
    const uint32_t reg[] = { VBOARD_GICD_IPA, 0x1000, VBOARD_GICC_IPA, VBOARD_GICC_SIZE };
    TRY(prop_cells(fdt, "reg", reg, 4));
    TRY(fdt_property_u32(fdt, "phandle", PH_GIC));
    TRY(fdt_end_node(fdt));

    /* PPI flags: the CPU mask of the vCPUs and level-high (GIC binding) */
    uint32_t f = (((1u << cfg->ncpus) - 1u) << 8) | 4u;
    const uint32_t irqs[] = { 1, 13, f, 1, 14, f, 1, 11, f, 1, 10, f };
    TRY(fdt_begin_node(fdt, "timer"));
    TRY(prop_strings(fdt, "compatible", "arm,armv7-timer", NULL));
    TRY(prop_cells(fdt, "interrupts", irqs, 12));
    TRY(fdt_property(fdt, "always-on", NULL, 0));
    return fdt_end_node(fdt);
}

static int write_uart(void *fdt, const struct guest_config *cfg)
{
    TRY(fdt_begin_node(fdt, "apb-pclk"));
    TRY(fdt_property_string(fdt, "compatible", "fixed-clock"));
    TRY(fdt_property_u32(fdt, "#clock-cells", 0));
    TRY(fdt_property_u32(fdt, "clock-frequency", 24000000));
    TRY(fdt_property_string(fdt, "clock-output-names", "clk24mhz"));
    TRY(fdt_property_u32(fdt, "phandle", PH_CLK));
    TRY(fdt_end_node(fdt));

    char name[32];
    (void)snprintf(name, sizeof(name), "pl011@%x", VBOARD_UART_IPA);
    TRY(fdt_begin_node(fdt, name));
    TRY(prop_strings(fdt, "compatible", "arm,pl011", "arm,primecell"));
    const uint32_t reg[] = { VBOARD_UART_IPA, 0x1000 };
    TRY(prop_cells(fdt, "reg", reg, 2));
    /* a direct guest gets no virtual interrupts (docs/direct-interrupts.md):
     * its UART is polled, and its tree does not promise an interrupt */
    const uint32_t irq[] = { 0, VBOARD_UART_IRQ - 32u, 4 };
    if (cfg->irq_mode != IRQ_DIRECT) {
        TRY(prop_cells(fdt, "interrupts", irq, 3));
    }
    const uint32_t clk[] = { PH_CLK, PH_CLK };
    TRY(prop_cells(fdt, "clocks", clk, 2));
    TRY(prop_strings(fdt, "clock-names", "uartclk", "apb_pclk"));
    return fdt_end_node(fdt);
}

static bool irq_given(const struct guest_config *cfg, int irq)
{
    for (unsigned int i = 0u; i < cfg->npt_irqs; i++) {
        if ((int)cfg->pt_irqs[i] == irq) {
            return true;
        }
    }
    return false;
}

/* A host device inside the range whose interrupts are all the guest's */
static bool node_belongs(const void *hdt, int node, const struct plat_range *r,
                         const struct guest_config *cfg)
{
    struct plat_range hr;
    if (dt_node_reg(hdt, node, 0, &hr) != 0 || hr.size == 0u ||
        hr.base < r->base || hr.base + hr.size > r->base + r->size) {
        return false;
    }
    const char *dt = fdt_getprop(hdt, node, "device_type", NULL);
    if (dt && strcmp(dt, "memory") == 0) {
        return false;
    }
    int irq;
    for (int i = 0; (irq = dt_node_irq(hdt, node, i)) >= 0; i++) {
        if (!irq_given(cfg, irq)) {
            return false;
        }
    }
    return true;
}

/* One guest node for a device: the host's description, addresses unchanged */
static int write_device(void *fdt, const void *hdt, int node, uint32_t base, uint32_t size)
{
    char name[48];
    (void)snprintf(name, sizeof(name), "passthrough@%lx", (unsigned long)base);
    TRY(fdt_begin_node(fdt, name));
    int len;
    const void *p = node >= 0 ? fdt_getprop(hdt, node, "compatible", &len) : NULL;
    if (p != NULL) {
        TRY(fdt_property(fdt, "compatible", p, len));
    }
    const uint32_t reg[] = { base, size };
    TRY(prop_cells(fdt, "reg", reg, 2));
    p = node >= 0 ? fdt_getprop(hdt, node, "interrupts", &len) : NULL;
    if (p != NULL) {
        TRY(fdt_property(fdt, "interrupts", p, len));
    }
    if (node >= 0 && fdt_getprop(hdt, node, "dma-coherent", NULL)) {
        TRY(fdt_property(fdt, "dma-coherent", NULL, 0));
    }
    /* an AMBA PrimeCell (PL031, PL061...): Linux's AMBA bus enables the
     * device's "apb_pclk" before it reads the peripheral ID, and registers
     * no device without it.  The host's clock phandles mean nothing here:
     * the guest's own fixed clock stands in (the bus clock only needs to
     * exist; the device's registers do not depend on its rate). */
    if (node >= 0 && dt_is_compatible(hdt, node, "arm,primecell")) {
        TRY(fdt_property_u32(fdt, "clocks", PH_CLK));
        TRY(fdt_property_string(fdt, "clock-names", "apb_pclk"));
    }
    return fdt_end_node(fdt);
}

/*
 * Passthrough ranges: every host device inside a range whose interrupts
 * were all given to the guest (a page of QEMU's virtio-mmio transports
 * holds eight, only the one with the guest's interrupt is its device);
 * failing that the device at the range's base, or the bare range.
 */
static int write_passthrough(void *fdt, const struct guest_config *cfg, const void *hdt)
{
    for (unsigned int i = 0u; i < cfg->npt_regs; i++) {
        const struct plat_range *r = &cfg->pt_regs[i];
        int found = 0, at_base = -1, node;
        for (node = hdt ? fdt_next_node(hdt, -1, NULL) : -1; node >= 0;
             node = fdt_next_node(hdt, node, NULL)) {
            struct plat_range hr;
            if (dt_node_reg(hdt, node, 0, &hr) != 0 || hr.size == 0u) {
                continue;
            }
            if (hr.base == r->base && at_base < 0) {
                at_base = node;
            }
            if (cfg->npt_irqs && node_belongs(hdt, node, r, cfg)) {
                TRY(write_device(fdt, hdt, node, (uint32_t)hr.base, (uint32_t)hr.size));
                found++;
            }
        }
        if (!found) {
            TRY(write_device(fdt, hdt, at_base, (uint32_t)r->base, (uint32_t)r->size));
        }
    }
    return 0;
}

/* One no-map reserved-memory node */
static int write_reserved(void *fdt, const char *what, uint32_t ipa, uint32_t size,
                          uint32_t phandle)
{
    char name[48];
    const uint32_t reg[] = { ipa, size };
    (void)snprintf(name, sizeof(name), "%s@%lx", what, (unsigned long)ipa);
    /* each step only after the one before succeeded: the first error */
    int rc = fdt_begin_node(fdt, name);
    rc = (rc < 0) ? rc : prop_cells(fdt, "reg", reg, 2);
    rc = (rc < 0) ? rc : fdt_property(fdt, "no-map", NULL, 0);
    rc = (rc < 0) ? rc : fdt_property_u32(fdt, "phandle", phandle);
    return (rc < 0) ? rc : fdt_end_node(fdt);
}

/* One interrupt-only gpio-keys button */
static int write_key(void *fdt, const char *node, const char *label, uint32_t code,
                     uint32_t intid)
{
    const uint32_t irq[] = { 0, intid - 32u, 1 };       /* SPI, rising edge */
    int rc = fdt_begin_node(fdt, node);
    rc = (rc < 0) ? rc : prop_string(fdt, "label", label);
    rc = (rc < 0) ? rc : fdt_property_u32(fdt, "linux,code", code);
    rc = (rc < 0) ? rc : prop_cells(fdt, "interrupts", irq, 3);
    /* 0: a press and a release per interrupt, no release timer that
     * would swallow interrupts arriving within it */
    rc = (rc < 0) ? rc : fdt_property_u32(fdt, "debounce-interval", 0);
    return (rc < 0) ? rc : fdt_end_node(fdt);
}

/* A disk the guest drives, k-th in configuration order: its queue, done
 * page (none: the call only), request SPI and index */
static int write_disk_driver(void *fdt, const struct guest_driven *v, uint32_t k)
{
    char name[48];
    const bool done = v->done_ipa != 0u;
    const uint32_t reg[] = { v->queue_ipa, v->queue_size, v->done_ipa, DISK_DONE_SIZE };
    const uint32_t irq[] = { 0, v->irq - 32u, 1 };
    (void)snprintf(name, sizeof(name), "disk-driver@%lx", (unsigned long)v->queue_ipa);
    int rc = fdt_begin_node(fdt, name);
    rc = (rc < 0) ? rc : prop_string(fdt, "compatible", "partita,disk-driver");
    rc = (rc < 0) ? rc : prop_cells(fdt, "reg", reg, done ? 4 : 2);
    rc = (rc < 0) ? rc : prop_strings(fdt, "reg-names", "queue", done ? "done" : NULL);
    rc = (rc < 0) ? rc : prop_cells(fdt, "interrupts", irq, 3);
    rc = (rc < 0) ? rc : fdt_property_u32(fdt, "memory-region", PH_DISKQ + k);
    rc = (rc < 0) ? rc : prop_string(fdt, "label", v->name);
    rc = (rc < 0) ? rc : fdt_property_u32(fdt, "partita,disk", k);
    return (rc < 0) ? rc : fdt_end_node(fdt);
}

/*
 * Channels (docs/channels.md) and the queues of the disks the guest
 * drives (docs/disks.md): the memory as a no-map reserved-memory node, so
 * Linux never uses it and /dev/mem may map it (it is no System RAM: a
 * channel lies outside the guest's RAM, and a queue is left out of its
 * /memory); the channel or disk itself for software to find; and their
 * interrupts as interrupt-only gpio-keys buttons: Debian's kernel builds
 * gpio-keys in and has no UIO driver for a DT node, so an interrupt
 * reaches user space as a key event on /dev/input/eventN.
 */
static int write_channels(void *fdt, const struct guest_config *cfg)
{
    char name[48];
    if (!cfg->nchannels && !cfg->ndriven) {
        return 0;
    }
    TRY(fdt_begin_node(fdt, "reserved-memory"));
    TRY(fdt_property_u32(fdt, "#address-cells", 1));
    TRY(fdt_property_u32(fdt, "#size-cells", 1));
    TRY(fdt_property(fdt, "ranges", NULL, 0));
    for (unsigned int k = 0u; k < cfg->nchannels; k++) {
        TRY(write_reserved(fdt, "channel", cfg->channels[k].ipa, cfg->channels[k].size,
                           PH_CHAN + k));
    }
    for (unsigned int k = 0u; k < cfg->ndriven; k++) {
        TRY(write_reserved(fdt, "disk-queue", cfg->driven[k].queue_ipa,
                           cfg->driven[k].queue_size, PH_DISKQ + k));
    }
    TRY(fdt_end_node(fdt));

    for (unsigned int k = 0u; k < cfg->nchannels; k++) {
        const struct guest_channel *gc = &cfg->channels[k];
        (void)snprintf(name, sizeof(name), "channel@%lx", (unsigned long)gc->ipa);
        TRY(fdt_begin_node(fdt, name));
        TRY(fdt_property_string(fdt, "compatible", "partita,channel"));
        const uint32_t reg[] = { gc->ipa, gc->size, gc->ipa + gc->size, CHANNEL_DOORBELL_SIZE };
        TRY(prop_cells(fdt, "reg", reg, 4));
        TRY(prop_strings(fdt, "reg-names", "memory", "doorbell"));
        const uint32_t irq[] = { 0, gc->doorbell - 32u, 1 };     /* SPI, rising edge */
        TRY(prop_cells(fdt, "interrupts", irq, 3));
        TRY(fdt_property_u32(fdt, "memory-region", PH_CHAN + k));
        TRY(fdt_property_string(fdt, "label", gc->name));
        TRY(fdt_property_u32(fdt, "partita,channel-id", gc->id));
        TRY(fdt_property_u32(fdt, "partita,member", gc->member));
        if (gc->read_only) {
            TRY(fdt_property(fdt, "partita,read-only", NULL, 0));
        }
        TRY(fdt_end_node(fdt));
    }
    for (unsigned int k = 0u; k < cfg->ndriven; k++) {
        TRY(write_disk_driver(fdt, &cfg->driven[k], k));
    }

    TRY(fdt_begin_node(fdt, "partita-doorbells"));
    TRY(fdt_property_string(fdt, "compatible", "gpio-keys"));
    TRY(fdt_property_string(fdt, "label", "partita-doorbells"));
    for (unsigned int k = 0u; k < cfg->nchannels; k++) {
        const struct guest_channel *gc = &cfg->channels[k];
        (void)snprintf(name, sizeof(name), "channel-%u", gc->id);
        TRY(write_key(fdt, name, gc->name, CHANNEL_DOORBELL_KEY + gc->id, gc->doorbell));
    }
    for (unsigned int k = 0u; k < cfg->ndriven; k++) {
        (void)snprintf(name, sizeof(name), "disk-%u", k);
        TRY(write_key(fdt, name, cfg->driven[k].name, PARTITA_BLKQ_KEY_BASE + k,
                      cfg->driven[k].irq));
    }
    return fdt_end_node(fdt);
}

/* a control partition's management page (docs/control-partition.md) */
static int write_manage(void *fdt, const struct guest_config *cfg)
{
    char name[48];
    if (!cfg->control) {
        return 0;
    }
    (void)snprintf(name, sizeof(name), "partita-manage@%x", VBOARD_MANAGE_IPA);
    TRY(fdt_begin_node(fdt, name));
    TRY(fdt_property_string(fdt, "compatible", "partita,manage"));
    const uint32_t reg[] = { VBOARD_MANAGE_IPA, VBOARD_MANAGE_SIZE };
    TRY(prop_cells(fdt, "reg", reg, 2));
    TRY(fdt_property_u32(fdt, "partita,rights", cfg->control));
    return fdt_end_node(fdt);
}

/*
 * Networks (docs/networks.md): each device as QEMU's virt board
 * describes its virtio-mmio transports, which Linux's virtio_mmio driver
 * binds to; the hypervisor reads guest memory through its caches, so the
 * device is DMA coherent.
 */
static int write_virtio(void *fdt, uint32_t ipa, uint32_t intid, const char *label)
{
    char name[48];
    (void)snprintf(name, sizeof(name), "virtio_mmio@%lx", (unsigned long)ipa);
    TRY(fdt_begin_node(fdt, name));
    TRY(fdt_property_string(fdt, "compatible", "virtio,mmio"));
    const uint32_t reg[] = { ipa, VIRTIO_MMIO_SIZE };
    TRY(prop_cells(fdt, "reg", reg, 2));
    const uint32_t irq[] = { 0, intid - 32u, 1 };           /* SPI, rising edge */
    TRY(prop_cells(fdt, "interrupts", irq, 3));
    TRY(fdt_property(fdt, "dma-coherent", NULL, 0));
    TRY(fdt_property_string(fdt, "label", label));
    return fdt_end_node(fdt);
}

/* the network devices, the virtio console and the disks' devices */
static int write_nets(void *fdt, const struct guest_config *cfg)
{
    for (unsigned int k = 0u; k < cfg->nnets; k++) {
        TRY(write_virtio(fdt, cfg->nets[k].ipa, cfg->nets[k].irq, cfg->nets[k].name));
    }
    if (cfg->vcon) {
        TRY(write_virtio(fdt, cfg->vcon_ipa, cfg->vcon_irq, "console"));
    }
    for (unsigned int k = 0u; k < cfg->ndisks; k++) {
        TRY(write_virtio(fdt, cfg->disks[k].ipa, cfg->disks[k].irq, cfg->disks[k].name));
    }
    return 0;
}

/*
 * /memory: the guest's RAM but the queues of the disks it drives, which
 * Linux must leave alone and which /dev/mem maps only outside System RAM
 * (CONFIG_STRICT_DEVMEM); a range per piece, in address order.
 */
static int write_memory(void *fdt, const struct guest_config *cfg, uint32_t ram)
{
    char name[32];
    uint32_t cells[2u * (DISK_MAX + 1u)];
    uint32_t at = ram;
    const uint32_t end = ram + (uint32_t)cfg->mem_size;
    int n = 0;
    bool more = true;
    while (more) {
        uint32_t next = end;                /* the lowest queue at or above at */
        uint32_t skip = 0u;
        for (unsigned int k = 0u; k < cfg->ndriven; k++) {
            const struct guest_driven *v = &cfg->driven[k];
            if ((v->queue_ipa >= at) && (v->queue_ipa < next)) {
                next = v->queue_ipa;
                skip = v->queue_size;
            }
        }
        if (next > at) {
            cells[n] = at;
            cells[n + 1] = next - at;
            n += 2;
        }
        at = next + skip;
        more = (skip != 0u) && (at < end);
    }
    (void)snprintf(name, sizeof(name), "memory@%lx", (unsigned long)ram);
    int rc = fdt_begin_node(fdt, name);
    rc = (rc < 0) ? rc : prop_string(fdt, "device_type", "memory");
    rc = (rc < 0) ? rc : prop_cells(fdt, "reg", cells, n);
    return (rc < 0) ? rc : fdt_end_node(fdt);
}

int guest_dt_build(void *buf, int bufsize, const struct guest_config *cfg,
                   const struct guest_dt_info *info)
{
    void *fdt = buf;
    char name[48];
    /* no name de-duplication: each property's name is appended instead of
     * searched for among those before it (a few hundred bytes more, not a
     * scan per property) */
    TRY(fdt_create_with_flags(fdt, bufsize, FDT_CREATE_FLAG_NO_NAME_DEDUP));
    TRY(fdt_finish_reservemap(fdt));
    TRY(fdt_begin_node(fdt, ""));
    TRY(fdt_property_u32(fdt, "#address-cells", 1));
    TRY(fdt_property_u32(fdt, "#size-cells", 1));
    TRY(prop_strings(fdt, "compatible", "partita,virt", "linux,dummy-virt"));
    (void)snprintf(name, sizeof(name), "Partita guest %s", cfg->name);
    TRY(fdt_property_string(fdt, "model", name));
    TRY(fdt_property_u32(fdt, "interrupt-parent", PH_GIC));

    TRY(fdt_begin_node(fdt, "chosen"));
    if (cfg->bootargs[0] != 0) {
        TRY(fdt_property_string(fdt, "bootargs", cfg->bootargs));
    }
    (void)snprintf(name, sizeof(name), "/pl011@%x", VBOARD_UART_IPA);
    TRY(fdt_property_string(fdt, "stdout-path", name));
    if (info->initrd_ipa != 0u) {
        TRY(fdt_property_u32(fdt, "linux,initrd-start", info->initrd_ipa));
        TRY(fdt_property_u32(fdt, "linux,initrd-end", info->initrd_ipa + info->initrd_size));
    }
    TRY(fdt_end_node(fdt));

    TRY(write_memory(fdt, cfg, info->ram_ipa));

    TRY(write_cpus(fdt, cfg, info->cpu_compatible));
    TRY(fdt_begin_node(fdt, "psci"));
    TRY(prop_strings(fdt, "compatible", "arm,psci-1.0", "arm,psci-0.2"));
    TRY(fdt_property_string(fdt, "method", "hvc"));
    TRY(fdt_end_node(fdt));
    TRY(write_gic_timer(fdt, cfg));
    TRY(write_pmu(fdt, cfg, info));
    TRY(write_uart(fdt, cfg));
    TRY(write_passthrough(fdt, cfg, info->host_dt));
    TRY(write_channels(fdt, cfg));
    TRY(write_manage(fdt, cfg));
    TRY(write_nets(fdt, cfg));
    TRY(fdt_end_node(fdt));
    TRY(fdt_finish(fdt));
    return (int)fdt_totalsize(fdt);
}
