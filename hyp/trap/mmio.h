/*
 * Data aborts on emulated devices: the syndrome decoded once into an access
 * record (ARM ARM B3.13.6, HSR ISS for a data abort), then routed by IPA to
 * the device model that owns the range (as Jailhouse's traps.c and Bao's
 * emul.h do).
 */
#ifndef HYP_MMIO_H
#define HYP_MMIO_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <arch/sysregs.h>

struct mmio_access {
    uint64_t ipa;
    /* the syndrome's fields in one word, which mmio_decode stores at once */
    union {
        struct {
            uint8_t size;       /* bytes: 1, 2 or 4 */
            bool write;
            uint8_t reg;        /* transfer register Rt */
            bool sign_extend;
        };
        uint32_t info;
    };
    uint32_t value;         /* written value / value to return */
};
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
               offsetof(struct mmio_access, write) == offsetof(struct mmio_access, size) + 1 &&
               offsetof(struct mmio_access, reg) == offsetof(struct mmio_access, size) + 2 &&
               offsetof(struct mmio_access, sign_extend) ==
                   offsetof(struct mmio_access, size) + 3 &&
               offsetof(struct mmio_access, info) == offsetof(struct mmio_access, size),
               "mmio_access.info: size, write, reg, sign_extend from its low byte up");

/* the ISS fields of a data abort: include/arch/sysregs.h (HSR_DABT_*) */

/*
 * Decode a data-abort syndrome.  Returns false when the syndrome carries no
 * instruction details (ISV = 0: LDM/STM, LDRD, writeback forms...) or the
 * fault is not one an emulated device can answer (cache maintenance, a
 * stage-1 walk); the guest then gets an abort.
 */
static inline bool mmio_decode(uint32_t hsr, uint32_t hdfar, uint32_t hpfar,
                               struct mmio_access *a)
{
    /* ISV set, CM and S1PTW clear, SAS not the reserved 0b11 (two tests:
     * the three bits' mask is no ARM immediate) */
    if (!(hsr & HSR_DABT_ISV) || (hsr & (HSR_DABT_CM | HSR_DABT_S1PTW)) ||
        HSR_DABT_SAS(hsr) == 3)
        return false;
    /* HPFAR holds IPA[39:12] in bits [31:4] (B4.1.68); the page offset
     * comes from the VA, which shares it (one BFI) */
    uint32_t lo = hpfar << 8;
    a->ipa = ((uint64_t)(hpfar >> 24) << 32) | (lo & ~0xfffu) | (hdfar & 0xfffu);
    a->info = (1u << HSR_DABT_SAS(hsr)) | ((uint32_t)((hsr & HSR_DABT_WNR) != 0) << 8) |
              (HSR_DABT_SRT(hsr) << 16) | ((uint32_t)((hsr & HSR_DABT_SSE) != 0) << 24);
    a->value = 0;
    return true;
}

/* Value loaded into Rt for a read of a->size bytes, extended as the access
 * says (inline: a word, the common case, is one compare) */
static inline uint32_t mmio_load_value(const struct mmio_access *a, uint32_t raw)
{
    if (a->size == 4)
        return raw;
    uint32_t bits = a->size * 8;
    uint32_t mask = (1u << bits) - 1;
    raw &= mask;
    if (a->sign_extend && (raw & (1u << (bits - 1))))
        raw |= ~mask;
    return raw;
}

typedef bool (*mmio_handler_t)(void *dev, struct mmio_access *a, uint32_t offset);

/* Emulated devices live below 4 GiB (the virtual board's map), so the bus
 * compares 32-bit addresses */
struct mmio_region {
    uint32_t base, size;
    mmio_handler_t handler;
    void *dev;
};

/* the distributor, the UART, 4 channel doorbell pages, 2 network devices,
 * the virtio console */
#define MMIO_MAX_REGIONS 9

struct mmio_bus {
    unsigned int n;
    struct mmio_region r[MMIO_MAX_REGIONS];
};

int mmio_register(struct mmio_bus *bus, uint64_t base, uint64_t size, mmio_handler_t h,
                  void *dev);
/* Does a device own this address? */
bool mmio_owned(const struct mmio_bus *bus, uint64_t ipa);

/* What the bus made of an access */
enum mmio_result {
    MMIO_REFUSED = 0,       /* a device owns the address but refused the access */
    MMIO_HANDLED = 1,       /* the device completed it */
    MMIO_UNCLAIMED = 2,     /* no device there */
};

/* Route to the owner; an access that runs past the end of its device's
 * region is refused */
static inline enum mmio_result mmio_dispatch(struct mmio_bus *bus, struct mmio_access *a)
{
    if (a->ipa >> 32)
        return MMIO_UNCLAIMED;
    uint32_t ipa = (uint32_t)a->ipa;
    for (struct mmio_region *r = bus->r, *end = r + bus->n; r < end; r++) {
        uint32_t off = ipa - r->base;       /* wraps when below: then huge */
        if (off < r->size)
            return off + a->size <= r->size && r->handler(r->dev, a, off) ? MMIO_HANDLED
                                                                          : MMIO_REFUSED;
    }
    return MMIO_UNCLAIMED;
}

#endif
