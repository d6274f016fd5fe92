#include "mmio.h"

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
    if (bus->n == MMIO_MAX_REGIONS || !size || base + size > (1ull << 32) ||
        base + size < base)
        return -1;
    bus->r[bus->n++] = (struct mmio_region){ (uint32_t)base, (uint32_t)size, h, dev };
    return 0;
}

bool mmio_owned(const struct mmio_bus *bus, uint64_t ipa)
{
    for (unsigned int i = 0; i < bus->n; i++)
        if (ipa >= bus->r[i].base && ipa < (uint64_t)bus->r[i].base + bus->r[i].size)
            return true;
    return false;
}
