/*
 * The health monitor's log (health.h): the last HEALTH_LOG_SIZE records,
 * each with its sequence number, so a reader that was away knows what it
 * missed (a gap in the numbers).  Only the boot CPU writes and reads it (the health monitor's
 * pass, the monitor's command, the management calls, which all run
 * there), so it takes no lock.  A guest whose events come faster than its
 * rate limit lets records through loses its own records, counted, and
 * cannot push the other guests' out faster than that.
 */
#include <string.h>
#include "guest.h"
#include "health.h"
#include "hyp/lib/ratelimit.h"
#include "timer/timer.h"

static struct partita_health_record ring[HEALTH_LOG_SIZE];
static uint32_t next_seq;
static struct ratelimit rate[GUEST_MAX];
static uint32_t dropped[GUEST_MAX];
static struct health_system_stop {
    bool stopped;
    unsigned int guest, event;
    uint64_t ticks;
} system_stop;

void health_log_system_stop(unsigned int id, unsigned int event)
{
    if (system_stop.stopped) {
        return;         /* the first one says why */
    }
    system_stop.stopped = true;
    system_stop.guest = id;
    system_stop.event = event;
    system_stop.ticks = timer_now();
}

bool health_system_stopped(unsigned int *guest, unsigned int *event, uint64_t *ticks)
{
    *guest = system_stop.guest;
    *event = system_stop.event;
    *ticks = system_stop.ticks;
    return system_stop.stopped;
}

bool health_log_add(unsigned int id, unsigned int event, unsigned int action, uint32_t count,
                    uint32_t arg)
{
    uint64_t now = timer_now();
    uint32_t before;
    if (id >= GUEST_MAX) {
        return false;
    }
    if (!ratelimit_pass(&rate[id], now, timer_ms_to_ticks(HEALTH_LOG_PERIOD_MS),
                        HEALTH_LOG_BURST, &before)) {
        dropped[id]++;
        return false;
    }
    struct partita_health_record *r = &ring[next_seq % HEALTH_LOG_SIZE];
    *r = (struct partita_health_record){
        .seq = next_seq, .ticks_lo = (uint32_t)now, .ticks_hi = (uint32_t)(now >> 32),
        .guest = id, .event = event, .action = action, .count = count, .arg = arg,
    };
    next_seq++;
    return true;
}

uint32_t health_log_dropped(unsigned int id)
{
    return (id < GUEST_MAX) ? dropped[id] : 0u;
}

unsigned int health_log_read(int id, uint32_t seq, struct partita_health_record *out,
                             unsigned int max, uint32_t *next)
{
    uint32_t first = next_seq > HEALTH_LOG_SIZE ? next_seq - HEALTH_LOG_SIZE : 0u;
    unsigned int n = 0u;
    uint32_t s = seq > first ? seq : first;
    for (; s < next_seq && n < max; s++) {
        const struct partita_health_record *r = &ring[s % HEALTH_LOG_SIZE];
        if (id < 0 || r->guest == (uint32_t)id) {
            out[n++] = *r;
        }
    }
    *next = s;      /* where a reader goes on */
    return n;
}

void health_log_header(unsigned int id, struct partita_health *h)
{
    unsigned int guest, event;
    uint64_t ticks;
    (void)memset(h, 0, sizeof(*h));
    h->next_seq = next_seq;
    h->dropped = health_log_dropped(id);
    h->freq = timer_freq();
    if (health_system_stopped(&guest, &event, &ticks)) {
        h->system_stopped = 1u;
        h->stop_guest = guest;
        h->stop_event = event;
        h->stop_ticks_lo = (uint32_t)ticks;
        h->stop_ticks_hi = (uint32_t)(ticks >> 32);
    }
}
