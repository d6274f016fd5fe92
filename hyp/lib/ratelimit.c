#include "ratelimit.h"

void ratelimit_refill(struct ratelimit *r, uint64_t now, uint64_t period)
{
    if (!period) {
        return;
    }
    uint64_t add = (now - r->last) / period;
    r->used = add >= r->used ? 0u : r->used - (uint32_t)add;
    r->last = r->used ? r->last + add * period : now;
}
