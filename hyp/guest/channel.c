/*
 * Channels at run time: Stage-2 maps the shared memory at each member's
 * IPA (read-write or read-only, never executable, and normal non-cacheable
 * so that members with different stage-1 attributes still agree on its
 * contents); the page after it is the doorbell page (hyp/vdev/doorbell.c),
 * whose ring raises the doorbell SPI in every other running member.
 */
#include <stdio.h>
#include <string.h>
#include <arch/sysregs.h>
#include "channel.h"
#include "hyp/lib/console.h"
#include "guest.h"
#include "hyp/trap/psci.h"
#include "mm/cache.h"
#include "mm/stage2.h"
#include "hyp/vdev/doorbell.h"
#include "vgic/vgic.h"

static const struct system_config *chan_sys;
/* per channel and member: its doorbell page, with the doorbells raised in
 * it and rung by it */
static struct doorbell bells[CHANNEL_MAX][CHANNEL_MAX_MEMBERS];

/* One boot line per channel: where it is and how each member sees it */
static void channel_describe(const struct system_config *sys, unsigned int i)
{
    const struct channel_config *ch = &sys->channels[i];
    char line[200];
    int n = snprintf(line, sizeof(line), "channel '%s': %llu KiB at 0x%08llx:", ch->name,
                     (unsigned long long)(ch->size >> 10), (unsigned long long)ch->base);
    for (unsigned int m = 0u; m < ch->nmembers && n > 0 && n < (int)sizeof(line); m++) {
        const struct guest_config *g = &sys->guest_cfg[ch->members[m].guest];
        const struct guest_channel *gc = &g->channels[ch->members[m].slot];
        n += snprintf(line + n, sizeof(line) - (size_t)n, "%s %s at 0x%08lx (SPI %lu%s)",
                      m ? "," : "", g->name, (unsigned long)gc->ipa, (unsigned long)gc->doorbell,
                      gc->read_only ? ", read-only" : "");
    }
    pr_info("%s\n", line);
}

void channels_init(const struct system_config *sys)
{
    chan_sys = sys;
    for (unsigned int i = 0u; i < sys->nchannels; i++) {
        void *va = (void *)(uintptr_t)sys->channels[i].base;    /* identity mapped */
        (void)memset(va, 0, (size_t)sys->channels[i].size);
        /* guests see it uncached: no line of ours may be written back over
         * their data later, nor hide the zeroes from them (B2.2.6) */
        dcache_clean_inval_range(va, (uint32_t)sys->channels[i].size);
        channel_describe(sys, i);
    }
}

void channel_print_map(void)
{
    for (unsigned int i = 0u; chan_sys && i < chan_sys->nchannels; i++) {
        const struct channel_config *ch = &chan_sys->channels[i];
        pr_info("  channel    0x%08llx-0x%08llx  %llu KiB  '%s'\n",
                (unsigned long long)ch->base, (unsigned long long)(ch->base + ch->size),
                (unsigned long long)(ch->size >> 10), ch->name);
    }
}

void channel_print_stats(const struct guest *g)
{
    for (unsigned int k = 0u; k < g->cfg->nchannels; k++) {
        const struct guest_channel *gc = &g->cfg->channels[k];
        pr_info("  channel '%s': member %u at 0x%08lx%s, doorbells rung %lu, raised here %lu "
                "(SPI %lu)\n", gc->name, gc->member, (unsigned long)gc->ipa,
                gc->read_only ? " (read-only)" : "",
                (unsigned long)__atomic_load_n(&bells[gc->id][gc->member].sent,
                                               __ATOMIC_RELAXED),
                (unsigned long)__atomic_load_n(&bells[gc->id][gc->member].received,
                                               __ATOMIC_RELAXED),
                (unsigned long)gc->doorbell);
    }
}

void channel_counts(const struct guest *g, unsigned int k, uint32_t *rung, uint32_t *raised)
{
    const struct guest_channel *gc = &g->cfg->channels[k];
    *rung = __atomic_load_n(&bells[gc->id][gc->member].sent, __ATOMIC_RELAXED);
    *raised = __atomic_load_n(&bells[gc->id][gc->member].received, __ATOMIC_RELAXED);
}

int channel_map(const struct guest_config *c, struct stage2 *s2)
{
    for (unsigned int k = 0u; k < c->nchannels; k++) {
        const struct guest_channel *gc = &c->channels[k];
        unsigned int attrs = (gc->read_only ? S2_READ : S2_RW) | S2_NOCACHE;
        if (s2_map(s2, gc->ipa, gc->base, gc->size, attrs) != 0) {
            return -1;
        }
    }
    return 0;
}

/* g's slot for channel id, or NULL */
static const struct guest_channel *membership(const struct guest *g, uint32_t id)
{
    for (unsigned int k = 0u; k < g->cfg->nchannels; k++) {
        if (g->cfg->channels[k].id == id) {
            return &g->cfg->channels[k];
        }
    }
    return NULL;
}

int channel_ring(struct guest *g, uint32_t id)
{
    const struct guest_channel *self = membership(g, id);
    if (!self) {
        return PSCI_INVALID_PARAMETERS;
    }
    const struct channel_config *ch = &chan_sys->channels[id];
    /*
     * The ringer's stores (its ring entries and index) must be visible to
     * the peer before the peer can take the interrupt: complete them here,
     * on the ringer's own CPU, before the SPI is raised (A3.8.3: DSB).
     */
    dsb_ish();
    for (unsigned int m = 0u; m < ch->nmembers; m++) {
        if (m == self->member) {
            continue;
        }
        struct guest *peer = &guests[ch->members[m].guest];
        /* a stopped guest has no interrupt state to raise.  A peer that
         * restarts right after this check may find the doorbell pending
         * in its fresh vGIC: a spurious doorbell, which the protocol
         * tolerates (the consumer finds the ring empty) */
        if (peer->state != GUEST_RUNNING) {
            continue;
        }
        const struct guest_channel *pc = &peer->cfg->channels[ch->members[m].slot];
        (void)__atomic_add_fetch(&bells[id][m].received, 1, __ATOMIC_RELAXED);
        vgic_inject_edge(&peer->vgic, 0, pc->doorbell);
    }
    (void)__atomic_add_fetch(&bells[id][self->member].sent, 1, __ATOMIC_RELAXED);
    return 0;
}

/* The doorbell page's sink: the ring of the member the page is */
static void ring_from(struct doorbell *d)
{
    (void)channel_ring(&guests[chan_sys->channels[d->channel].members[d->member].guest],
                       d->channel);
}

int channel_guest_start(struct guest *g)
{
    for (unsigned int k = 0u; k < g->cfg->nchannels; k++) {
        const struct guest_channel *gc = &g->cfg->channels[k];
        struct doorbell *d = &bells[gc->id][gc->member];
        *d = (struct doorbell){ gc->id, gc->member, chan_sys->channels[gc->id].nmembers,
                                gc->read_only, 0u, 0u, ring_from };
        if (guest_mmio_add(g, "channels", (uint64_t)gc->ipa + gc->size, CHANNEL_DOORBELL_SIZE,
                           doorbell_mmio, d) != 0) {
            return -1;
        }
    }
    return 0;
}
