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
#include "hyp/config/guest_config.h"

/* What a device is asked: the access itself, at the offset into its region
 * the bus passes (mmio_dispatch).  Only what a device needs of the
 * syndrome; the transfer register and the sign extension stay in the HSR
 * for the trap (mmio_load_value). */
struct mmio_access {
    /* write and size in one halfword, which mmio_decode stores at once */
    union {
        struct {
            bool write;
            uint8_t size;       /* bytes: 1, 2 or 4 */
        };
        uint16_t info;
    };
    /* the vCPU making it, its number in its guest (set once, hyp/guest):
     * whose banked registers it reaches (the distributor's, for SGIs and
     * PPIs, GICv2 4.3) */
    uint8_t vcpu;
    uint32_t value;         /* written value / value to return */
};
_Static_assert((__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) &&
               ((size_t)offsetof(struct mmio_access, size) ==
                ((size_t)offsetof(struct mmio_access, write) + 1u)) &&
               ((size_t)offsetof(struct mmio_access, info) ==
                (size_t)offsetof(struct mmio_access, write)),
               "mmio_access.info: write, then size");
/* a's info for an access of size bytes: one halfword compare tells a word
 * read (the constant registers' test) */
#define MMIO_INFO(size, write) ((uint16_t)((unsigned int)(write) | ((unsigned int)(size) << 8)))

/* the ISS fields of a data abort: include/arch/sysregs.h (HSR_DABT_*) */

/*
 * Decode a data-abort syndrome.  Returns false when the syndrome carries no
 * instruction details (ISV = 0: LDM/STM, LDRD, writeback forms...) or the
 * fault is not one an emulated device can answer (cache maintenance, a
 * stage-1 walk); the guest then gets an abort.  a->value is left alone:
 * the caller fills it for a write, the device for a read.
 */
static inline bool mmio_decode(uint32_t hsr, struct mmio_access *a)
{
    /* ISV set with SAS 0b00-0b10 (0b11 reserved), as one range test of the
     * three bits; CM and S1PTW clear */
    uint32_t sas = HSR_DABT_ISV_SAS(hsr) - HSR_DABT_ISV_SAS_BYTE;
    if ((hsr & (HSR_DABT_CM | HSR_DABT_S1PTW)) || sas > 2u) {
        return false;
    }
    a->info = (uint16_t)(((hsr & HSR_DABT_WNR) != 0u) | (0x100u << sas));
    return true;
}

/* A byte or halfword load's value, zero- or sign-extended as SSE says: out
 * of line (mmio.c), so that the word load's path keeps nothing of it */
uint32_t mmio_extend(uint32_t hsr, uint32_t raw);

/* Value loaded into Rt for a read the syndrome hsr describes (SAS, SSE;
 * inline: a word, the common case, is one test) */
static inline uint32_t mmio_load_value(uint32_t hsr, uint32_t raw)
{
    /* SAS 0b10 is a word: SAS[1] alone tells it, 0b11 being refused */
    return (hsr & HSR_DABT_SAS_WORD_BIT) ? raw : mmio_extend(hsr, raw);
}

typedef bool (*mmio_handler_t)(void *dev, struct mmio_access *a, uint32_t offset);

/* Emulated devices live below 4 GiB (the virtual board's map), so the bus
 * compares 32-bit addresses.  A region keeps the complement of its last
 * offset: "off <= last" is then "off + inv_last does not carry", one ADDS.
 * The bus ends with a region that owns every address (inv_last 0) and
 * whose handler refuses everything (mmio_unclaimed): the walk needs no
 * count, and the device's answer no test of its own */
struct mmio_region {
    uint32_t base, inv_last;    /* ~(size - 1) */
    mmio_handler_t handler;
    void *dev;
};

/* Every emulated device a guest can be given (the configuration's limits,
 * hyp/config/guest_config.h): the distributor, the UART, a doorbell page
 * per channel, the management page, the network devices, the virtio
 * console, the disks' devices and done pages.  mmio_register refuses one
 * more. */
#define MMIO_MAX_REGIONS GUEST_MAX_MMIO_REGIONS

/* Set up by mmio_bus_init, then mmio_register adds to it.  The regions
 * first: the bus's address is its first region's */
struct mmio_bus {
    struct mmio_region r[MMIO_MAX_REGIONS + 1u];     /* r[n]: the end */
    unsigned int n;
};

/* The end region's handler: no device there */
bool mmio_unclaimed(void *dev, struct mmio_access *a, uint32_t off);
void mmio_bus_init(struct mmio_bus *bus);
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

/* The region owning a 32-bit IPA, at offset *off: the end region when no
 * device does.  Registered first, the guest's distributor and UART are
 * found at the first and second compare */
static inline const struct mmio_region *mmio_find(const struct mmio_bus *bus, uint32_t ipa,
                                                  uint32_t *off)
{
    const struct mmio_region *r = bus->r;
    uint32_t past;
    while (__builtin_add_overflow(ipa - r->base, r->inv_last, &past)) {
        r++;
    }
    *off = ipa - r->base;
    return r;
}

/* Route to the owner; an access that runs past the end of its device's
 * region is refused */
static inline enum mmio_result mmio_dispatch(const struct mmio_bus *bus, uint64_t ipa,
                                             struct mmio_access *a)
{
    if ((ipa >> 32) != 0u) {
        return MMIO_UNCLAIMED;
    }
    uint32_t off, past;
    const struct mmio_region *r = mmio_find(bus, (uint32_t)ipa, &off);
    /* off + inv_last did not carry: adding size - 1 carries when the access
     * runs past the last byte (the end region's, inv_last 0: never below
     * 4 GiB - 3) */
    if (!__builtin_add_overflow(off + r->inv_last, a->size - 1u, &past) &&
        r->handler(r->dev, a, off)) {
        return MMIO_HANDLED;
    }
    /* the slow path: whose was it? */
    return r->handler == mmio_unclaimed ? MMIO_UNCLAIMED : MMIO_REFUSED;
}

#endif
