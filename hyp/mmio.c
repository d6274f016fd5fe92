#include "mmio.h"

bool mmio_decode(uint32_t hsr, uint32_t hdfar, uint32_t hpfar, struct mmio_access *a)
{
    if (!(hsr & HSR_DABT_ISV) || (hsr & (HSR_DABT_CM | HSR_DABT_S1PTW)))
        return false;
    /* HPFAR holds IPA[39:12] in bits [31:4] (B4.1.68); the page offset
     * comes from the VA, which shares it */
    a->ipa = ((uint64_t)(hpfar & 0xfffffff0u) << 8) | (hdfar & 0xfff);
    a->va = hdfar;
    a->size = 1u << HSR_DABT_SAS(hsr);
    if (a->size > 4)
        return false;   /* SAS 0b11 is reserved in ARMv7 */
    a->write = (hsr & HSR_DABT_WNR) != 0;
    a->reg = HSR_DABT_SRT(hsr);
    a->sign_extend = (hsr & HSR_DABT_SSE) != 0;
    a->value = 0;
    return true;
}

uint32_t mmio_load_value(const struct mmio_access *a, uint32_t raw)
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

int mmio_register(struct mmio_bus *bus, uint64_t base, uint64_t size, mmio_handler_t h,
                  void *dev)
{
    if (bus->n == MMIO_MAX_REGIONS)
        return -1;
    bus->r[bus->n++] = (struct mmio_region){ base, size, h, dev };
    return 0;
}

bool mmio_owned(const struct mmio_bus *bus, uint64_t ipa)
{
    for (unsigned int i = 0; i < bus->n; i++)
        if (ipa >= bus->r[i].base && ipa < bus->r[i].base + bus->r[i].size)
            return true;
    return false;
}

bool mmio_dispatch(struct mmio_bus *bus, struct mmio_access *a)
{
    for (unsigned int i = 0; i < bus->n; i++) {
        struct mmio_region *r = &bus->r[i];
        if (a->ipa >= r->base && a->ipa + a->size <= r->base + r->size)
            return r->handler(r->dev, a, (uint32_t)(a->ipa - r->base));
    }
    return false;
}
