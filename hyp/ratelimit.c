#include "ratelimit.h"

uint32_t ratelimit_tokens(struct ratelimit *r, uint64_t now, uint64_t period, uint32_t burst)
{
    if (!r->primed) {
        r->primed = true;
        r->tokens = burst;
        r->last = now;
    } else if (r->tokens == burst) {
        r->last = now;          /* a full bucket does not save up more */
    } else if (now > r->last && now - r->last >= period && period) {
        /* (divide only when a token is due: callers come far more often) */
        uint64_t add = (now - r->last) / period;
        r->tokens = add >= burst - r->tokens ? burst : r->tokens + (uint32_t)add;
        r->last = r->tokens == burst ? now : r->last + add * period;
    }
    return r->tokens;
}

bool ratelimit_pass(struct ratelimit *r, uint64_t now, uint64_t period, uint32_t burst,
                    uint32_t *dropped)
{
    if (!ratelimit_tokens(r, now, period, burst)) {
        r->suppressed++;
        return false;
    }
    r->tokens--;
    *dropped = r->suppressed;
    r->suppressed = 0;
    return true;
}
