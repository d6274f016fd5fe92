/*
 * libFuzzer target for the configuration parser (hyp/config/config.c), the host
 * platform probe (hyp/platform/platform.c) and the guest DT writer (hyp/guest/guest_dt.c).
 *
 * Each input is tried twice:
 *   1. as the configuration blob, validated against QEMU virt (the host
 *      fixture), and every guest of an accepted configuration gets its DT;
 *   2. as the host's device tree: platform_probe, then the known-good
 *      configuration validated against that host (its passthrough ranges
 *      are looked up in the fuzzed tree) and the guests' DTs written with
 *      the fuzzed tree as the source of passthrough nodes.
 * Nothing may crash, and what config_load promises must hold: its result
 * is the number of error lines, and an accepted configuration is sane.
 *
 * Built and run by tests/unit/fuzz.sh; FUZZ_FIXTURES names the folder of
 * compiled fixtures (qemu-virt.dtb, config-good.dtb).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libfdt.h>
#include "hyp/config/guest_config.h"
#include "hyp/guest/guest_dt.h"
#include "hyp/platform/platform.h"

#define HYP_START 0x40000000u
#define HYP_END   0x40800000u

static void *virt_dtb, *good_cfg;
static struct platform virt;
static struct system_config sys;
static uint8_t dt_buf[0x10000];

#define CHECK(cond) do { \
        if (!(cond)) { \
            fprintf(stderr, "fuzz_config: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            abort(); \
        } \
    } while (0)

static void *read_file(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "fuzz_config: cannot open %s (set FUZZ_FIXTURES)\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    void *buf = malloc((size_t)n);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
        exit(1);
    fclose(f);
    return buf;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("FUZZ_FIXTURES");
    char err[160];
    if (!dir)
        dir = "build/unit/fixtures";
    virt_dtb = read_file(dir, "qemu-virt.dtb");
    good_cfg = read_file(dir, "config-good.dtb");
    if (platform_probe(virt_dtb, &virt, err, sizeof(err)) != 0) {
        fprintf(stderr, "fuzz_config: qemu-virt.dtb: %s\n", err);
        exit(1);
    }
    return 0;
}

struct tally {
    int errors;
};

static void report(void *ctx, bool is_error, const char *msg)
{
    struct tally *t = ctx;
    size_t n = strlen(msg);
    CHECK(n > 0 && n < 256);
    /* one line naming what is at fault: a guest, a channel, a network, a
     * disk or the /partita node itself */
    CHECK(strncmp(msg, "guest '", 7) == 0 || strncmp(msg, "channel '", 9) == 0 ||
          strncmp(msg, "network '", 9) == 0 || strncmp(msg, "disk '", 6) == 0 ||
          strncmp(msg, "node '/partita'", 15) == 0);
    CHECK(!strchr(msg, '\n'));
    t->errors += is_error;
}

/* what an accepted configuration promises the disks: a driver with a
 * queue of whole pages inside its RAM, frontends that are not it, each
 * device an aligned window raising an SPI, a capacity whose bytes fit
 * 64 bits and a backing name that is a printable word */
static void check_disks(void)
{
    CHECK(sys.ndisks <= DISK_MAX);
    for (unsigned int i = 0; i < sys.ndisks; i++) {
        const struct disk_config *d = &sys.disks[i];
        CHECK(!d->parse_error && d->driver >= 0 && (unsigned int)d->driver < sys.nguest_cfg);
        const struct guest_config *dg = &sys.guest_cfg[d->driver];
        CHECK(!(d->queue_ipa % DISK_QUEUE_ALIGN) && d->queue_size >= DISK_QUEUE_MIN &&
              d->queue_size <= DISK_QUEUE_MAX && !(d->queue_size % DISK_QUEUE_ALIGN));
        CHECK(d->queue_ipa >= guest_ram_ipa(dg) &&
              (uint64_t)d->queue_ipa + d->queue_size <= guest_ram_ipa(dg) + dg->mem_size);
        CHECK(d->irq >= 32 && d->irq <= CHANNEL_SPI_MAX);
        CHECK(d->nfrontends >= 1 && d->nfrontends <= DISK_MAX_FRONTENDS);
        for (unsigned int m = 0; m < d->nfrontends; m++) {
            CHECK(d->frontends[m].guest != (unsigned int)d->driver);
            const struct guest_config *g = &sys.guest_cfg[d->frontends[m].guest];
            CHECK(d->frontends[m].slot < g->ndisks);
            CHECK(g->disks[d->frontends[m].slot].id == i);
        }
    }
    for (unsigned int i = 0; i < sys.nguest_cfg; i++) {
        const struct guest_config *g = &sys.guest_cfg[i];
        CHECK(g->ndisks <= GUEST_MAX_DISKS);
        for (unsigned int k = 0; k < g->ndisks; k++) {
            const struct guest_disk *gd = &g->disks[k];
            CHECK(!gd->parse_error && !(gd->ipa % VIRTIO_MMIO_SIZE));
            CHECK(gd->irq >= 32 && gd->irq <= CHANNEL_SPI_MAX);
            CHECK(gd->capacity >= 1 && gd->capacity <= UINT64_MAX / DISK_SECTOR_SIZE);
            size_t n = strnlen(gd->backing, DISK_BACKING_MAX);
            CHECK(n >= 1 && n < DISK_BACKING_MAX);
            for (size_t j = 0; j < n; j++)
                CHECK(gd->backing[j] > ' ' && gd->backing[j] < 0x7f);
            CHECK(!guest_config_ipa_is_ram(g, gd->ipa));
        }
    }
}

/* what an accepted configuration promises the loader */
static void check_accepted(const struct config_host *h, const uint8_t *blob, size_t size)
{
    CHECK(sys.nguest_cfg <= GUEST_MAX);
    for (unsigned int i = 0; i < sys.nguest_cfg; i++) {
        const struct guest_config *g = &sys.guest_cfg[i];
        CHECK(g->ncpus >= 1 && g->ncpus <= GUEST_MAX_VCPUS);
        for (unsigned int k = 0; k < g->ncpus; k++)
            CHECK(!h->plat || g->cpus[k] < h->plat->ncpus);
        CHECK(!g->slice_us || (g->slice_us >= GUEST_SLICE_MIN_US &&
                               g->slice_us <= GUEST_SLICE_MAX_US));
        /* a CPU with two vCPUs: every guest on it takes turns (time-slice-us) */
        for (unsigned int j = 0; j <= i; j++)
            for (unsigned int k = 0; k < g->ncpus; k++)
                for (unsigned int l = 0; l < sys.guest_cfg[j].ncpus; l++)
                    if ((j != i || l != k) && sys.guest_cfg[j].cpus[l] == g->cpus[k])
                        CHECK(g->slice_us && sys.guest_cfg[j].slice_us);
        CHECK(g->mem_size >= 0x10000 && !(g->mem_base & 0xfff) && !(g->mem_size & 0xfff));
        CHECK(g->mem_base + g->mem_size > g->mem_base);
        CHECK(g->mem_base >= h->hyp_end || g->mem_base + g->mem_size <= h->hyp_start);
        CHECK(g->kernel_size > 0);
        CHECK(g->kernel >= blob && g->kernel + g->kernel_size <= blob + size);
        CHECK(!g->initrd_size || (g->initrd >= blob && g->initrd + g->initrd_size <= blob + size));
        CHECK(strlen(g->name) < GUEST_NAME_MAX && strlen(g->bootargs) < GUEST_BOOTARGS_MAX);
        CHECK(g->npt_regs <= GUEST_MAX_PT_REGS && g->npt_irqs <= GUEST_MAX_PT_IRQS);
        for (unsigned int k = 0; k < g->npt_irqs; k++)
            CHECK(g->pt_irqs[k] >= 32 && g->pt_irqs[k] < 1020);
        if (g->format == KERNEL_RAW)
            CHECK((uint64_t)g->load_offset + g->kernel_size <= g->mem_size &&
                  g->entry_offset < g->mem_size);
        /* channels: Stage-2 maps them and the doorbell page without failing */
        CHECK(g->nchannels <= GUEST_MAX_CHANNELS);
        for (unsigned int k = 0; k < g->nchannels; k++) {
            const struct guest_channel *c = &g->channels[k];
            CHECK(!c->parse_error && c->size && !(c->ipa & 0xfff) && !(c->size & 0xfff));
            CHECK((uint64_t)c->ipa + c->size + CHANNEL_DOORBELL_SIZE <= (1ull << 32));
            CHECK(c->ipa >= guest_ram_ipa(g) + g->mem_size ||
                  c->ipa + c->size + CHANNEL_DOORBELL_SIZE <= guest_ram_ipa(g));
            CHECK(c->doorbell >= 32 && c->doorbell <= CHANNEL_SPI_MAX);
            CHECK(c->id < sys.nchannels && c->member < sys.channels[c->id].nmembers);
            CHECK(c->base >= h->hyp_end || c->base + c->size <= h->hyp_start);
        }
    }
    CHECK(sys.nchannels <= CHANNEL_MAX);
    for (unsigned int i = 0; i < sys.nchannels; i++)
        CHECK(sys.channels[i].nmembers >= 2 && sys.channels[i].nmembers <= CHANNEL_MAX_MEMBERS);
    check_disks();
}

static void write_guest_dts(const void *host_fdt)
{
    for (unsigned int i = 0; i < sys.nguest_cfg; i++) {
        const struct guest_config *g = &sys.guest_cfg[i];
        struct guest_dt_info info = { (uint32_t)guest_ram_ipa(g), 0, 0, "arm,cortex-a15",
                                      host_fdt, g->pmu, g->pmu };
        if (g->initrd_size) {
            info.initrd_ipa = info.ram_ipa + 0x100000;
            info.initrd_size = g->initrd_size;
        }
        int size = guest_dt_build(dt_buf, sizeof(dt_buf), g, &info);
        CHECK(size > 0 && size <= (int)sizeof(dt_buf));
        CHECK(fdt_check_full(dt_buf, (size_t)size) == 0);
    }
}

static int load(const void *blob, const struct config_host *h)
{
    struct tally t = { 0 };
    int rc = config_load(blob, h, &sys, report, &t);
    CHECK(rc == t.errors);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /*
     * The hypervisor knows how large the linked configuration (and the
     * copied host DT) is; libfdt trusts the header's totalsize.  So the
     * blob is a copy that holds a whole header and claims no more bytes
     * than it has: past that, ASan sees any read beyond the input.
     */
    size_t n = size < 64 ? 64 : size;
    uint8_t *blob = calloc(1, n);
    if (!blob)
        return 0;
    memcpy(blob, data, size);
    if (fdt32_ld((const fdt32_t *)(blob + 4)) > n)
        fdt32_st(blob + 4, (uint32_t)n);

    /* 1. the input as the configuration */
    struct config_host h = { &virt, HYP_START, HYP_END, virt_dtb, 32, true, "secure", 0 };
    if (load(blob, &h) == 0) {
        check_accepted(&h, blob, n);
        write_guest_dts(virt_dtb);
    }

    /*
     * 2. the input as the host's device tree.  Skipped for blobs of format
     * version < 16: libfdt 1.6.1's fdt_check_full, which platform_probe
     * calls, dereferences NULL on them (fdt_get_name gives NULL for the
     * root of an old-format tree).  FUZZ_OLD_VERSIONS=1 tries them anyway.
     */
    struct platform plat;
    char err[160];
    static int old_versions = -1;
    if (old_versions < 0)
        old_versions = getenv("FUZZ_OLD_VERSIONS") != NULL;
    if (!old_versions && fdt_magic(blob) == FDT_MAGIC && fdt_version(blob) < 16) {
        free(blob);
        return 0;
    }
    if (platform_probe(blob, &plat, err, sizeof(err)) == 0) {
        CHECK(plat.ncpus <= PLAT_MAX_CPUS && plat.nmem <= PLAT_MAX_MEM);
        struct config_host fh = { &plat, HYP_START, HYP_END, blob, 32, true, "secure", 0 };
        if (load(good_cfg, &fh) == 0) {
            check_accepted(&fh, good_cfg, fdt_totalsize(good_cfg));
            write_guest_dts(blob);
        }
    } else {
        CHECK(memchr(err, '\0', sizeof(err)) != NULL);
    }
    free(blob);
    return 0;
}
