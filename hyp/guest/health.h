/*
 * The health monitor (docs/temporal-isolation.md, "Health monitor"): each
 * guest's events - a crash, a watchdog miss, an abort storm, budget
 * overruns, deadline misses it reports - met with the action its health
 * table names, and a log of what happened and when.  Everything it does
 * to a guest it does on the boot CPU, in its pass (guests_service); the
 * other CPUs only count and ask for that pass.
 */
#ifndef HYP_GUEST_HEALTH_H
#define HYP_GUEST_HEALTH_H

#include <stdint.h>
#include <stdbool.h>
#include <partita/manage_abi.h>

struct guest;

/* (what the lifecycle calls, at a start, a crash, a watchdog's expiry
 * and in the boot CPU's pass: guest_parts.h) */
/* any CPU, PARTITA_HC_DEADLINE_MISS: g reports a deadline it missed */
int health_deadline_miss(struct guest *g, uint32_t tag);
/* boot CPU: the earliest end of a period to look at counts, 0 if none;
 * health_due: it has come (the boot CPU's timer, interrupt context) */
uint64_t health_next_deadline(void);
bool health_due(uint64_t now);

/* ---- the log: a bounded ring, written and read on the boot CPU ---- */
#define HEALTH_LOG_SIZE 64u
/* records a guest may add: a burst, then one a second (dropped ones counted) */
#define HEALTH_LOG_BURST 8u
#define HEALTH_LOG_PERIOD_MS 1000u

/* the records of guest id (or of every guest: id < 0) from sequence number
 * seq on (an older one is gone: from the oldest kept), at most max of them
 * into out; *next: the number to read on from */
unsigned int health_log_read(int id, uint32_t seq, struct partita_health_record *out,
                             unsigned int max, uint32_t *next);
/* a record of guest id's event and the action taken; false: the rate
 * limit dropped it (counted in health_log_dropped) */
bool health_log_add(unsigned int id, unsigned int event, unsigned int action, uint32_t count,
                    uint32_t arg);
uint32_t health_log_dropped(unsigned int id);
/* the header of PARTITA_MG_HEALTH (nrecords 0) */
void health_log_header(unsigned int id, struct partita_health *h);
/* a stop-system action for guest id's event: the first is kept */
void health_log_system_stop(unsigned int id, unsigned int event);
/* the stop-system action: whose event and when; false if none happened */
bool health_system_stopped(unsigned int *guest, unsigned int *event, uint64_t *ticks);

#endif
