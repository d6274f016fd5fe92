/*
 * Images given at run time (docs/control-partition.md, "Loading an image"):
 * the control partition streams a header, a kernel and an initrd into a
 * stopped guest; they land in a pristine store at the top of the guest's
 * configured memory, which its Stage-2 and DT then leave out, so every start
 * and restart boots them from there.  Checked as a configured image is
 * (hyp/config: it fits, the format is right) before anything changes.
 */
#include <stdio.h>
#include <string.h>
#include <partita/manage_abi.h>
#include "hyp/guest/guest.h"
#include "hyp/guest/guest_parts.h"
#include "manage.h"
#include "hyp/lib/console.h"

static uint32_t crc_table[256];

/* CRC-32 (IEEE 802.3, reflected), table built on first use */
static uint32_t crc32(uint32_t crc, const uint8_t *p, uint32_t n)
{
    if (!crc_table[1]) {
        for (uint32_t i = 0u; i < 256u; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) {
                c = (c >> 1) ^ (c & 1u ? 0xedb88320u : 0u);
            }
            crc_table[i] = c;
        }
    }
    crc = ~crc;
    while (n-- != 0u) {
        crc = crc_table[(crc ^ *p++) & 0xffu] ^ (crc >> 8);
    }
    return ~crc;
}

uint32_t guest_image_crc(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    /* configured images: once, when first asked (not on the boot path) */
    if (g->image_crc_of != (uint32_t)(uintptr_t)c->kernel) {
        uint32_t crc = crc32(0, c->kernel, c->kernel_size);
        g->image_crc = c->initrd_size ? crc32(crc, c->initrd, c->initrd_size) : crc;
        g->image_crc_of = (uint32_t)(uintptr_t)c->kernel;
    }
    return g->image_crc;
}

void guest_image_verify(struct guest *g)
{
    if (!guest_image_loaded(g)) {
        return;
    }
    const struct guest_config *c = g->cfg;
    uint32_t was = g->image_crc;
    g->image_crc_of = 0u;
    uint32_t now = guest_image_crc(g);
    /* nothing may write the store between the load and here (every
     * device is detached first): a change is a hypervisor bug, said */
    if (now != was) {
        pr_err("guest '%s': its loaded image changed since the load: crc32 0x%08lx, now "
               "0x%08lx (%lu bytes)\n", c->name, (unsigned long)was, (unsigned long)now,
               (unsigned long)(c->kernel_size + c->initrd_size));
    }
}

static void report_refusal(void *ctx, bool is_error, const char *msg)
{
    if (is_error) {
        pr_info("load refused: %s\n", msg);
    }
}

/* a zImage says so: its magic at 0x24 (Documentation/arm/booting.rst) */
#define ZIMAGE_MAGIC_OFFSET 0x24u
#define ZIMAGE_MAGIC        0x016f2818u

/* The kernel's first bytes that image_load_piece copies once, checks, and
 * writes to the store from its copy: a zImage's head up to its magic */
#define IMAGE_HEAD (ZIMAGE_MAGIC_OFFSET + 4u)

/* The first piece's kernel bytes (n of them, k: the hypervisor's copy of
 * the first IMAGE_HEAD) are a zImage? */
static bool is_zimage(const struct guest_config *conf, const uint8_t *k, uint32_t n)
{
    uint32_t magic;
    if (n < IMAGE_HEAD) {
        pr_info("load refused: guest '%s': property 'kernel-format': a zImage's first "
                "piece holds at least its first %u bytes\n", conf->name,
                IMAGE_HEAD);
        return false;
    }
    (void)memcpy(&magic, k + ZIMAGE_MAGIC_OFFSET, 4);
    if (magic != ZIMAGE_MAGIC) {
        pr_info("load refused: guest '%s': property 'kernel-format': \"linux\" but no "
                "zImage (no magic 0x%08lx at 0x%x)\n", conf->name,
                (unsigned long)ZIMAGE_MAGIC, ZIMAGE_MAGIC_OFFSET);
    }
    return magic == ZIMAGE_MAGIC;
}

/*
 * The header of a new image (and the kernel bytes that came with it): its
 * configuration, checked; 0 or PARTITA_E_*
 */
static int image_begin(struct guest *g, const struct partita_load *h, const uint8_t *k,
                       uint32_t n)
{
    const struct guest_config *conf = g->configured;
    struct guest_image *im = &g->mg->image;
    /* the live configuration changes only once the candidate passes; one
     * scratch copy will do: management calls run on the boot CPU alone */
    static struct guest_config cand;
    struct guest_config *c = &cand;
    if (h->magic != PARTITA_LOAD_MAGIC || h->format > 1u || !h->kernel_size ||
        memchr(h->bootargs, 0, sizeof(h->bootargs)) == NULL) {
        return PARTITA_E_INVALID;
    }
    if (h->format && !is_zimage(conf, k, n < h->kernel_size ? n : h->kernel_size)) {
        return PARTITA_E_INVALID;
    }
    /* the store is the top of its RAM, physically after what it sees: a
     * coloured guest's RAM has no such place (hyp/config/colour.h) */
    if (conf->colours.n != 0u) {
        pr_info("load refused: guest '%s' is coloured: a run-time image needs contiguous "
                "memory\n", conf->name);
        return PARTITA_E_NOT_SUPPORTED;
    }
    uint64_t bytes = (uint64_t)h->kernel_size + h->initrd_size;
    uint64_t store = (bytes + 0xfffu) & ~0xfffull;
    if (store >= conf->mem_size || bytes > 0x7fffffffu) {
        pr_info("load refused: guest '%s': %llu bytes, memory is %llu KiB\n", conf->name,
                (unsigned long long)bytes, (unsigned long long)(conf->mem_size >> 10));
        return PARTITA_E_FIT;
    }
    *c = *conf;
    c->mem_size = conf->mem_size - store;    /* the store sits above what it sees */
    uint8_t *at = (uint8_t *)(uintptr_t)(conf->mem_base + c->mem_size);
    c->format = h->format ? KERNEL_LINUX : KERNEL_RAW;
    c->load_offset = h->format ? 0u : h->load_offset;
    c->entry_offset = h->format ? 0u : h->entry_offset;
    c->kernel = at;
    c->kernel_size = h->kernel_size;
    c->initrd = h->initrd_size ? at + h->kernel_size : NULL;
    c->initrd_size = h->initrd_size;
    (void)snprintf(c->bootargs, sizeof(c->bootargs), "%s", h->bootargs);
    if (config_check_guest_image(c, report_refusal, NULL) != 0) {
        return PARTITA_E_FIT;
    }
    /* from here its old image is gone: until the stream is complete it
     * boots the configured one */
    g->cfg = conf;
    im->cfg = cand;
    im->active = false;
    im->loading = true;
    im->store_off = (uint32_t)c->mem_size;
    im->store_size = (uint32_t)store;
    im->total = sizeof(*h) + (uint32_t)bytes;
    im->expect = 0u;
    g->image_crc_of = 0u;        /* the store's address stays: its CRC does not */
    return 0;
}

/*
 * The caller's buffer is its own RAM (or its management page's data page),
 * which another of its vCPUs may write while this runs: every byte is read
 * from it once - the header and the kernel's head into a copy here, checked
 * there and stored from there, the rest straight into the store.
 */
int image_load_piece(struct guest *g, const uint8_t *data, uint32_t len, uint32_t off)
{
    if (!g->mg) {
        return PARTITA_E_NOT_SUPPORTED;     /* no control partition's guest */
    }
    struct guest_image *im = &g->mg->image;
    if (g->state == GUEST_RUNNING || g->restart_pending || !guest_vcpus_idle(g)) {
        return PARTITA_E_STATE;     /* running, or its vCPUs still leaving */
    }
    /* a halted or crashed guest's devices may still be aimed at its RAM,
     * the store among it: none may write there from now until it starts */
    guest_detach_devices(g);
    struct image_first {
        struct partita_load h;
        uint8_t k[IMAGE_HEAD];
    } first;
    uint32_t head = 0u;      /* bytes of data taken from first */
    if (off == 0u) {
        if (len < sizeof(first.h)) {
            return PARTITA_E_INVALID;
        }
        head = len < sizeof(first) ? len : sizeof(first);
        (void)memcpy(&first, data, head);
        int rc = image_begin(g, &first.h, first.k, head - sizeof(first.h));
        if (rc != 0) {
            return rc;
        }
    } else if (!im->loading || off != im->expect) {
        return PARTITA_E_INVALID;
    } else {
        /* otherwise nothing to do */
    }
    if (len > im->total - off) {
        return PARTITA_E_INVALID;
    }
    /* offset off of the stream is store byte off - header; the header is
     * not stored */
    uint8_t *store = (uint8_t *)(uintptr_t)(g->configured->mem_base + im->store_off);
    if (head > sizeof(first.h)) {
        (void)memcpy(store, first.k, head - sizeof(first.h));
    }
    uint32_t skip = off < sizeof(struct partita_load) ? sizeof(struct partita_load) - off : 0u;
    if (skip < head) {
        skip = head;
    }
    if (len > skip) {
        (void)memcpy(store + off + skip - sizeof(struct partita_load), data + skip, len - skip);
    }
    im->expect = off + len;
    if (im->expect < im->total) {
        return (int)len;
    }
    im->loading = false;
    im->active = true;
    g->cfg = &im->cfg;
    (void)guest_image_crc(g);
    pr_info("guest '%s': new image loaded: %lu bytes, crc32 0x%08lx\n", g->cfg->name,
            (unsigned long)(g->cfg->kernel_size + g->cfg->initrd_size),
            (unsigned long)g->image_crc);
    uint32_t done = len | PARTITA_LOAD_DONE;
    return (int)done;
}
