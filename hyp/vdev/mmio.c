#include "mmio.h"

int mmio_register(struct mmio_bus *bus, uint64_t base, uint64_t size, mmio_handler_t h,
                  void *dev)
{
    if (bus->n == MMIO_MAX_REGIONS || !size || base + size > (1ULL << 32) ||
        base + size < base) {
        return -1;
    }
    bus->r[bus->n++] = (struct mmio_region){ (uint32_t)base, ~(uint32_t)(size - 1u), h, dev };
    bus->r[bus->n] = (struct mmio_region){ 0, 0, mmio_unclaimed, NULL };     /* the end */
    return 0;
}

bool mmio_unclaimed(void *dev, struct mmio_access *a, uint32_t off)
{
    return false;
}

void mmio_bus_init(struct mmio_bus *bus)
{
    bus->n = 0u;
    bus->r[0] = (struct mmio_region){ 0, 0, mmio_unclaimed, NULL };
}

bool mmio_owned(const struct mmio_bus *bus, uint64_t ipa)
{
    uint32_t off;
    return !(ipa >> 32) && mmio_find(bus, (uint32_t)ipa, &off)->handler != mmio_unclaimed;
}

uint32_t mmio_extend(uint32_t hsr, uint32_t raw)
{
    uint32_t bits = 8u << HSR_DABT_SAS(hsr);
    uint32_t mask = (1u << bits) - 1u;
    raw &= mask;
    if (((hsr & HSR_DABT_SSE) != 0u) && ((raw & ((unsigned int)1u << (bits - 1u))) != 0u)) {
        raw |= ~mask;
    }
    return raw;
}
