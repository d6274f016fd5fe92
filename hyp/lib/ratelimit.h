/*
 * A token bucket for console output a guest can cause at will (an abort
 * report per access to an unmapped address, its own characters): a burst
 * passes at once, then one per period; what is dropped is counted and owned
 * up to with the next one that passes.  A pure function of the time given,
 * unit tested.
 */
#ifndef HYP_RATELIMIT_H
#define HYP_RATELIMIT_H

#include <stdint.h>
#include <stdbool.h>

struct ratelimit {          /* all zero: a full bucket */
    uint64_t last;          /* time the bucket was last refilled */
    uint32_t used;          /* tokens taken from the burst */
    uint32_t suppressed;    /* dropped since the last one passed */
};

/* The refill when a token is due (out of line: it divides, and is rare) */
void ratelimit_refill(struct ratelimit *r, uint64_t now, uint64_t period);

/* Tokens available at time `now` (refilled, not taken) */
static inline uint32_t ratelimit_tokens(struct ratelimit *r, uint64_t now, uint64_t period,
                                        uint32_t burst)
{
    if (!r->used) {
        r->last = now;          /* a full bucket does not save up more */
    } else if (now - r->last >= period && now > r->last) {
        ratelimit_refill(r, now, period);
    } else {
        /* otherwise nothing to do */
    }
    return r->used < burst ? burst - r->used : 0u;
}

/*
 * May a line pass at time `now` (any monotonic tick)?  burst: lines in a
 * row; period: ticks per further line.  When it passes, *dropped gets the
 * number suppressed before it (and the count starts again).
 */
static inline bool ratelimit_pass(struct ratelimit *r, uint64_t now, uint64_t period,
                                  uint32_t burst, uint32_t *dropped)
{
    if (!ratelimit_tokens(r, now, period, burst)) {
        r->suppressed++;
        return false;
    }
    r->used++;
    *dropped = r->suppressed;
    r->suppressed = 0u;
    return true;
}

#endif
