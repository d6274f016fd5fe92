#include "mmio.h"

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
