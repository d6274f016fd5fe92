/*
 * What the management calls read: a guest's description and its counters,
 * in the ABI's structures (include/partita/manage_abi.h).
 */
#include <string.h>
#include <partita/manage_abi.h>
#include "hyp/guest/guest.h"
#include "manage_ops.h"
#include "manage.h"
#include "hyp/guest/channel.h"
#include "hyp/guest/disk.h"
#include "hyp/guest/health.h"
#include "hyp/sched/sched_share.h"
#include "timer/timer.h"

_Static_assert((int)TRAP_NR == PARTITA_TRAPS, "the ABI's trap counters are the trap causes");
_Static_assert(GUEST_MAX_VCPUS <= (unsigned int)PARTITA_INFO_VCPUS, "every vCPU has a slot");
_Static_assert(GUEST_MAX_CHANNELS <= (unsigned int)PARTITA_STATS_CHANNELS,
               "every channel has a slot");
_Static_assert(DISK_COUNTS_MAX <= (unsigned int)PARTITA_STATS_DISKS, "every disk has a slot");
_Static_assert(GUEST_DISK_NAME_MAX <= PARTITA_DISK_NAME_MAX, "a disk's name fits");

static void fill_disk(const struct disk_counts *c, struct partita_disk_stats *o)
{
    (void)strncpy(o->name, c->name, sizeof(o->name) - 1u);
    if (c->driver) {
        o->role = PARTITA_DISK_DRIVER;
        o->requests = c->be.moved;
        o->answers = c->be.answers;
        o->bad_answers = c->be.bad_answers;
        o->requeued = c->be.requeued;
        o->waiting = c->waiting;
    } else {
        o->role = PARTITA_DISK_FRONTEND;
        o->requests = c->fe.requests;
        o->answers = c->fe.completed;
        o->ioerrors = c->fe.failed;
        o->bad_answers = c->fe.bad_completions;
        o->dropped = c->fe.dropped;
        o->errors = c->fe.errors;
        o->read_lo = (uint32_t)c->fe.read_bytes;
        o->read_hi = (uint32_t)(c->fe.read_bytes >> 32);
        o->written_lo = (uint32_t)c->fe.written_bytes;
        o->written_hi = (uint32_t)(c->fe.written_bytes >> 32);
    }
}

void manage_fill_info(struct guest *g, struct partita_guest_info *o)
{
    const struct guest_config *c = g->cfg;
    uint64_t exits = 0u;
    (void)memset(o, 0, sizeof(*o));
    (void)strncpy(o->name, c->name, sizeof(o->name) - 1u);
    o->id = g->id;
    o->state = (uint32_t)g->state;
    o->nvcpus = c->ncpus;
    for (unsigned int i = 0u; i < c->ncpus; i++) {
        o->pcpu[i] = g->vcpu[i].pcpu;
        exits += vcpu_exits(&g->vcpu[i]);
    }
    o->mem_base_lo = (uint32_t)c->mem_base;
    o->mem_base_hi = (uint32_t)(c->mem_base >> 32);
    o->mem_size_lo = (uint32_t)c->mem_size;
    o->mem_size_hi = (uint32_t)(c->mem_size >> 32);
    o->uptime_s = (uint32_t)guest_uptime_s(g);
    o->exits_lo = (uint32_t)exits;
    o->exits_hi = (uint32_t)(exits >> 32);
    o->starts = g->starts;
    o->image_size = c->kernel_size + c->initrd_size;
    o->image_crc32 = guest_image_crc(g);
    o->image_loaded = guest_image_loaded(g);
    o->rights = c->control;
}

void manage_fill_stats(struct guest *g, struct partita_guest_stats *o)
{
    (void)memset(o, 0, sizeof(*o));
    o->nvcpus = g->cfg->ncpus;
    o->aborts = g->aborts;
    o->denied = g->manage_denied;
    o->starts = g->starts;
    for (unsigned int i = 0u; i < g->cfg->ncpus; i++) {
        struct vcpu *v = &g->vcpu[i];
        struct partita_vcpu_stats *s = &o->vcpu[i];
        uint64_t exits = vcpu_exits(v);
        s->exits_lo = (uint32_t)exits;
        s->exits_hi = (uint32_t)(exits >> 32);
        (void)memcpy(s->traps, v->traps, sizeof(s->traps));
        s->injected = v->vgic.stats.injected;
        s->maintenance = v->vgic.stats.maintenance;
        s->sgis_sent = v->vgic.stats.sgis_sent;
        s->lr_overflows = v->vgic.stats.overflow;
        s->pcpu = v->pcpu;
        if (v->share != NULL) {
            s->slice_us = g->cfg->slice_us;
            s->run_ms = (uint32_t)(timer_ticks_to_us(v->share->run_ticks) / 1000u);
            s->turns = v->share->switches;
        }
    }
    o->nchannels = g->cfg->nchannels;
    for (unsigned int k = 0u; k < g->cfg->nchannels; k++) {
        o->channel[k].id = g->cfg->channels[k].id;
        channel_counts(g, k, &o->channel[k].rung, &o->channel[k].raised);
    }
    struct disk_counts d[DISK_COUNTS_MAX];
    o->ndisks = disk_guest_counts(g, d);
    for (unsigned int k = 0u; k < o->ndisks; k++) {
        fill_disk(&d[k], &o->disk[k]);
    }
}

/* The header, then as many of g's records as the buffer holds whole, one
 * at a time (the buffer is the caller's, of any alignment) */
int manage_health(struct guest *g, uint32_t seq, uint8_t *buf, uint32_t len)
{
    struct partita_health h;
    struct partita_health_record r;
    if (len < sizeof(h)) {
        return PARTITA_E_INVALID;
    }
    uint32_t room = (len - (uint32_t)sizeof(h)) / (uint32_t)sizeof(r);
    health_log_header(g->id, &h);
    h.next_seq = seq;
    while (h.nrecords < room && health_log_read((int)g->id, h.next_seq, &r, 1, &h.next_seq)) {
        (void)memcpy(buf + sizeof(h) + h.nrecords++ * sizeof(r), &r, sizeof(r));
    }
    (void)memcpy(buf, &h, sizeof(h));
    size_t bytes = sizeof(h) + (h.nrecords * sizeof(r));
    return (int)bytes;
}
