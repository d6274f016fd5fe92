#include "ratelimit.h"

bool ratelimit_pass(struct ratelimit *r, uint64_t now, uint64_t period, uint32_t burst,
                    uint32_t *dropped)
{
    if (!r->primed) {
        r->primed = true;
        r->tokens = burst;
        r->last = now;
    } else if (now > r->last && period) {
        uint64_t add = (now - r->last) / period;
        if (add) {
            r->tokens = add >= burst - r->tokens ? burst : r->tokens + (uint32_t)add;
            r->last += add * period;
        }
        if (r->tokens == burst)
            r->last = now;      /* a full bucket does not save up more */
    }
    if (!r->tokens) {
        r->suppressed++;
        return false;
    }
    r->tokens--;
    *dropped = r->suppressed;
    r->suppressed = 0;
    return true;
}
