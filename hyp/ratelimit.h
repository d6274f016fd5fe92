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

struct ratelimit {
    uint64_t last;          /* time the bucket was last refilled */
    uint32_t tokens;        /* lines that may pass now */
    uint32_t suppressed;    /* lines dropped since the last one passed */
    bool primed;
};

/* Tokens available at time `now` (refilled, not taken) */
uint32_t ratelimit_tokens(struct ratelimit *r, uint64_t now, uint64_t period, uint32_t burst);

/*
 * May a line pass at time `now` (any monotonic tick)?  burst: lines in a
 * row; period: ticks per further line.  When it passes, *dropped gets the
 * number suppressed before it (and the count starts again).
 */
bool ratelimit_pass(struct ratelimit *r, uint64_t now, uint64_t period, uint32_t burst,
                    uint32_t *dropped);

#endif
