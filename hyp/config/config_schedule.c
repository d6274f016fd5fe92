/*
 * Cyclic schedules (docs/temporal-isolation.md): `partita,schedule` nodes
 * under /partita, each a major frame and one table of windows per
 * physical CPU, the guests named.  Parsed after every guest (their names),
 * checked after everything else (their CPUs, budgets, interrupts); every
 * error names the schedule and "NODE/PROPERTY", or the guest.
 *
 *   normal {
 *       compatible = "partita,schedule";
 *       major-frame-us = <1000>;
 *       boot;                              (in force at boot)
 *       cpu1 {
 *           cpu = <1>;
 *           windows = <0 200  400 200>;    (offset length, us; gaps idle)
 *           guests = "rt", "linux";
 *       };
 *   };
 */
#include <string.h>
#include <libfdt.h>
#include "config_internal.h"
#include "hyp/dt/dt_index.h"

#define sched_msg(c, s, prop, ...) cfg_report((c), true, "schedule", (s), (prop), __VA_ARGS__)
/* one window: <OFFSET-US LENGTH-US> */
#define WINDOW_BYTES 8u

bool config_is_schedule(const void *fdt, int node)
{
    return fdt_node_check_compatible(fdt, node, "partita,schedule") == 0;
}

/* the guest named s, which must have a vCPU on cpu: its index, or -1 */
static int window_guest(const struct system_config *sys, const char *s, unsigned int cpu,
                        unsigned int i, const char *sname, const char *prop, struct cfg_ctx *c)
{
    int gi = cfg_guest_index(sys, s);
    int found = -1;
    if (gi < 0) {
        sched_msg(c, sname, prop, "window %u: no guest '%s'", i, s);
    } else {
        const struct guest_config *g = &sys->guest_cfg[gi];
        for (unsigned int k = 0u; (k < g->ncpus) && (found < 0); k++) {
            if (g->cpus[k] == cpu) {
                found = gi;
            }
        }
        if (found < 0) {
            sched_msg(c, sname, prop, "window %u: guest '%s' has no vCPU on CPU %u", i, s, cpu);
        }
    }
    return found;
}

/* window i against the frame and the windows before it */
static void check_window(const struct sched_table *t, unsigned int i, uint32_t frame,
                         const char *sname, const char *prop, struct cfg_ctx *c)
{
    const struct sched_window *w = &t->w[i];
    if (w->length_us < SCHED_MIN_US) {
        sched_msg(c, sname, prop, "window %u: %lu us long: at least %u", i,
                  (unsigned long)w->length_us, SCHED_MIN_US);
    } else if (((uint64_t)w->offset_us + w->length_us) > frame) {
        sched_msg(c, sname, prop, "window %u (%lu us at %lu) ends past the frame (%lu us)", i,
                  (unsigned long)w->length_us, (unsigned long)w->offset_us,
                  (unsigned long)frame);
    } else {
        /* its length and its end are right */
    }
    for (unsigned int k = 0u; k < i; k++) {
        if (cfg_overlaps(w->offset_us, w->length_us, t->w[k].offset_us, t->w[k].length_us)) {
            sched_msg(c, sname, prop, "windows %u and %u overlap", k, i);
            break;
        }
    }
}

/* by offset: the scheduler walks a frame in order */
static void sort_windows(struct sched_table *t)
{
    for (unsigned int i = 1u; i < t->nwindows; i++) {
        for (unsigned int k = i; (k > 0u) && (t->w[k - 1u].offset_us > t->w[k].offset_us); k--) {
            struct sched_window x = t->w[k];
            t->w[k] = t->w[k - 1u];
            t->w[k - 1u] = x;
        }
    }
}

/* The windows and guests of table t (node tn, named tname, for cpu) of
 * schedule s.  The windows' cells are copied out of the blob (no cast of
 * its bytes to cells); the guests are read as a string list. */
static void parse_windows(const void *fdt, int tn, const char *tname, unsigned int cpu,
                          struct system_config *sys, struct schedule_config *s,
                          struct cfg_ctx *c)
{
    struct sched_table *t = &s->cpu[cpu];
    char p[64];
    char q[64];
    fdt32_t cells[2u * SCHED_WINDOWS_MAX];
    int wlen;
    const void *w = dt_getprop(fdt, tn, "windows", &wlen);
    int ng = fdt_stringlist_count(fdt, tn, "guests");
    unsigned int n = (wlen > 0) ? ((unsigned int)wlen / WINDOW_BYTES) : 0u;
    (void)cfg_member_prop(p, sizeof(p), tname, "windows");
    (void)cfg_member_prop(q, sizeof(q), tname, "guests");
    if ((w == NULL) || (wlen <= 0) || (((unsigned int)wlen % WINDOW_BYTES) != 0u)) {
        sched_msg(c, s->name, p, "give <OFFSET-US LENGTH-US> for each window");
    } else if (n > SCHED_WINDOWS_MAX) {
        sched_msg(c, s->name, p, "%u windows: at most %u", n, SCHED_WINDOWS_MAX);
    } else if (ng <= 0) {
        sched_msg(c, s->name, q, "give the guest of each window");
    } else if ((unsigned int)ng != n) {
        sched_msg(c, s->name, q, "%u guests for %u windows", (unsigned int)ng, n);
    } else {
        bool bad = false;
        (void)memcpy(cells, w, (size_t)wlen);
        t->nwindows = n;
        for (unsigned int i = 0u; i < n; i++) {
            int gi = window_guest(sys, fdt_stringlist_get(fdt, tn, "guests", (int)i, NULL), cpu,
                                  i, s->name, q, c);
            bad = bad || (gi < 0);
            t->w[i].guest = (gi < 0) ? 0u : (uint32_t)gi;
            t->w[i].offset_us = fdt32_to_cpu(cells[2u * i]);
            t->w[i].length_us = fdt32_to_cpu(cells[(2u * i) + 1u]);
            if (s->frame_us != 0u) {
                check_window(t, i, s->frame_us, s->name, p, c);
            }
        }
        if (bad) {
            t->nwindows = 0u;
        }
        sort_windows(t);
    }
}

/* One CPU's table (node tn) of schedule s */
static void parse_table(const void *fdt, int tn, struct system_config *sys,
                        struct schedule_config *s, uint32_t *cpus, struct cfg_ctx *c)
{
    const char *tname = fdt_get_name(fdt, tn, NULL);
    char p[64];
    uint32_t cpu;
    int r = cfg_get_u32(fdt, tn, "cpu", &cpu);
    (void)cfg_member_prop(p, sizeof(p), tname, "cpu");
    if (r <= 0) {
        sched_msg(c, s->name, p, (r < 0) ? "must be one 32-bit cell" :
                  "missing: the physical CPU of the table");
    } else if ((cpu >= SCHED_CPUS) || ((*cpus & (1u << cpu)) != 0u)) {
        sched_msg(c, s->name, p, (cpu >= SCHED_CPUS) ? "CPU %lu: at most %u CPUs" :
                  "CPU %lu has two tables", (unsigned long)cpu, SCHED_CPUS);
    } else {
        *cpus |= 1u << cpu;
        parse_windows(fdt, tn, tname, cpu, sys, s, c);
    }
}

/* schedule node, named name, the next of sys's */
static void parse_schedule_node(const void *fdt, int node, const char *name,
                                struct system_config *sys, struct cfg_ctx *c)
{
    struct schedules_config *sc = &sys->sched;
    struct schedule_config *s = &sc->s[sc->n];
    (void)memset(s, 0, sizeof(*s));
    if (strlen(name) >= sizeof(s->name)) {
        sched_msg(c, name, NULL, "a name of at most %u characters",
                  (unsigned int)sizeof(s->name) - 1u);
    }
    (void)strncpy(s->name, name, sizeof(s->name) - 1u);
    int r = cfg_get_u32(fdt, node, "major-frame-us", &s->frame_us);
    if ((r <= 0) || (s->frame_us < SCHED_MIN_US) || (s->frame_us > SCHED_FRAME_MAX_US)) {
        if (r < 0) {
            sched_msg(c, s->name, "major-frame-us", "must be one 32-bit cell");
        } else {
            sched_msg(c, s->name, "major-frame-us", "%s: give %u to %u us",
                      (r == 0) ? "missing" : "out of range", SCHED_MIN_US, SCHED_FRAME_MAX_US);
        }
        s->frame_us = 0u;
    }
    if (dt_getprop(fdt, node, "boot", NULL) != NULL) {
        if (sc->nboot != 0u) {
            sched_msg(c, s->name, "boot", "'%s' is in force at boot already",
                      sc->s[sc->boot].name);
        } else {
            sc->boot = sc->n;
        }
        sc->nboot++;
    }
    uint32_t cpus = 0u;
    int tn;
    fdt_for_each_subnode(tn, fdt, node) {
        parse_table(fdt, tn, sys, s, &cpus, c);
    }
    if (cpus == 0u) {
        sched_msg(c, s->name, NULL, "no table of windows (a subnode with cpu, windows, guests)");
    }
    if ((sc->n != 0u) && (cpus != sc->cpus)) {
        sched_msg(c, s->name, NULL, "its tables are for other CPUs than schedule '%s''s "
                  "(every schedule has a table for the same CPUs)", sc->s[0].name);
    }
    sc->cpus |= cpus;
    sc->n++;
}

void config_parse_schedule(const void *fdt, int node, struct system_config *sys,
                           struct cfg_ctx *c)
{
    const char *name = fdt_get_name(fdt, node, NULL);
    if (sys->sched.n == SCHED_MAX) {
        sched_msg(c, name, NULL, "more than %u schedules", SCHED_MAX);
    } else {
        parse_schedule_node(fdt, node, name, sys, c);
    }
}

/* What a guest on the CPUs under the schedules may not have */
static void check_guest(const struct system_config *sys, const struct guest_config *g,
                        struct cfg_ctx *c)
{
    unsigned int in = 0u;
    for (unsigned int k = 0u; k < g->ncpus; k++) {
        if ((g->cpus[k] < SCHED_CPUS) && ((sys->sched.cpus & (1u << g->cpus[k])) != 0u)) {
            in++;
        }
    }
    if ((in != 0u) && (in != g->ncpus)) {
        cfg_msg(c, true, g->name, "cpus", "some of its CPUs are under the cyclic schedules, "
                "not all (its vCPUs run together)");
    }
    if ((in != 0u) && (g->slice_us != 0u)) {
        cfg_msg(c, true, g->name, "time-slice-us", "not on CPUs under the cyclic schedules");
    }
    if ((in != 0u) && (g->budget_events != 0u)) {
        cfg_msg(c, true, g->name, "memory-budget", "not on CPUs under the cyclic schedules");
    }
    if ((in != 0u) && (g->irq_mode == IRQ_DIRECT)) {
        cfg_msg(c, true, g->name, "interrupts", "\"direct\" not on CPUs under the cyclic "
                "schedules");
    }
}

/* do the windows of guest gi on tables a and b coincide? */
static bool same_windows(const struct sched_table *a, const struct sched_table *b, uint32_t gi)
{
    unsigned int i = 0u;
    unsigned int k = 0u;
    bool same = true;
    bool more = true;
    while (same && more) {
        while ((i < a->nwindows) && (a->w[i].guest != gi)) {
            i++;
        }
        while ((k < b->nwindows) && (b->w[k].guest != gi)) {
            k++;
        }
        if ((i == a->nwindows) || (k == b->nwindows)) {
            same = (i == a->nwindows) && (k == b->nwindows);
            more = false;
        } else {
            same = (a->w[i].offset_us == b->w[k].offset_us) &&
                   (a->w[i].length_us == b->w[k].length_us);
            i++;
            k++;
        }
    }
    return same;
}

/* gang: a guest's windows are the same on each of its CPUs */
static void check_gang(const struct system_config *sys, const struct schedule_config *s,
                       struct cfg_ctx *c)
{
    for (unsigned int gi = 0u; gi < sys->nguest_cfg; gi++) {
        const struct guest_config *g = &sys->guest_cfg[gi];
        for (unsigned int k = 1u; k < g->ncpus; k++) {
            unsigned int a = g->cpus[0];
            unsigned int b = g->cpus[k];
            if ((a >= SCHED_CPUS) || (b >= SCHED_CPUS) || ((sys->sched.cpus & (1u << b)) == 0u)) {
                continue;
            }
            if (!same_windows(&s->cpu[a], &s->cpu[b], gi)) {
                sched_msg(c, s->name, NULL, "guest '%s': its windows on CPU %u are not those "
                          "on CPU %u (a guest's vCPUs run in the same windows)", g->name, b, a);
                break;
            }
        }
    }
}

/* config_check_schedules of a system with schedules */
static void check_schedules(const struct config_host *h, struct system_config *sys,
                            struct cfg_ctx *c)
{
    struct schedules_config *sc = &sys->sched;
    if ((sc->nboot == 0u) && (sc->n > 1u)) {
        sched_msg(c, sc->s[0].name, "boot", "%lu schedules and none in force at boot: mark "
                  "one boot", (unsigned long)sc->n);
    }
    for (unsigned int cpu = 0u; cpu < SCHED_CPUS; cpu++) {
        if (((sc->cpus & (1u << cpu)) != 0u) && (h != NULL) && (h->plat != NULL) &&
            (cpu >= h->plat->ncpus)) {
            sched_msg(c, sc->s[0].name, NULL, "CPU %u does not exist (the host has %u)", cpu,
                      h->plat->ncpus);
        }
    }
    for (unsigned int i = 0u; i < sys->nguest_cfg; i++) {
        check_guest(sys, &sys->guest_cfg[i], c);
    }
    for (unsigned int i = 0u; i < sc->n; i++) {
        check_gang(sys, &sc->s[i], c);
    }
}

void config_check_schedules(const struct config_host *h, struct system_config *sys,
                            struct cfg_ctx *c)
{
    if (sys->sched.n != 0u) {
        check_schedules(h, sys, c);
    }
}

bool config_cpu_scheduled(const struct system_config *sys, unsigned int cpu)
{
    return (cpu < SCHED_CPUS) && ((sys->sched.cpus & (1u << cpu)) != 0u);
}
