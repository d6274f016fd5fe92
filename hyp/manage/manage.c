/*
 * The management calls of a control partition (docs/control-partition.md):
 * the caller's rights checked against its configuration, then the call
 * carried out on the boot CPU, which owns every guest's lifecycle (the
 * monitor's commands run there too, so the two never race).  A call from
 * another CPU is posted in a one-slot mailbox and the calling vCPU waits in
 * Hyp for the answer.
 */
#include <string.h>
#include <partita/manage_abi.h>
#include "hyp/guest/guest.h"
#include "manage.h"
#include "manage_ops.h"
#include "hyp/platform/percpu.h"
#include "hyp/sched/sched.h"
#include "hyp/sched/budget.h"
#include "hyp/sched/cyclic.h"
#include "timer/timer.h"
#include "mm/cache.h"
#include "mm/page_alloc.h"
#include "hyp/lib/console.h"

/* how long a caller waits for the boot CPU (a restart scrubs memory) */
#define MANAGE_WAIT_US 10000000u

enum mailbox_state { MB_FREE, MB_CLAIMED, MB_POSTED, MB_RUNNING, MB_DONE, MB_ABANDONED };

static struct manage_mailbox {
    int state;                      /* enum mailbox_state, changed atomically */
    struct guest *caller;
    uint32_t r[5];
    uint8_t *buf;
    uint32_t len;
} mailbox;

/*
 * The boot CPU's time for management calls.  A call runs on the boot CPU,
 * which may also run guests' vCPUs (cpus = <0>): a control partition that
 * calls back to back would otherwise take that CPU from them, their time
 * decided by a neighbour rather than by the configuration.  There, calls
 * take at most MANAGE_SHARE_US of each MANAGE_WINDOW_US; a longer one (a
 * start scrubs the guest's memory) is paid from the windows after it.  A
 * call beyond the share stays posted, and its caller, waiting on its own
 * CPU, asks the boot CPU again every MANAGE_RETRY_US.  With no guest on
 * the boot CPU, calls may take all of it.
 */
#define MANAGE_WINDOW_US 10000u
#define MANAGE_SHARE_US  2500u
#define MANAGE_RETRY_US  1000u

static struct manage_share {
    bool limited;           /* a guest has a vCPU on the boot CPU */
    uint64_t window_end;    /* counter ticks: the current window's end */
    uint64_t used;          /* ticks of calls not yet paid for by a window */
} share;

/* May the boot CPU take a call now?  Each window that ended pays for
 * MANAGE_SHARE_US of what the calls used. */
static bool boot_cpu_has_time(uint64_t now)
{
    if (share.limited && (now >= share.window_end)) {
        uint64_t window = timer_us_to_ticks(MANAGE_WINDOW_US);
        uint64_t ended = ((now - share.window_end) / window) + 1u;
        uint64_t paid = ended * timer_us_to_ticks(MANAGE_SHARE_US);
        share.used = (share.used > paid) ? (share.used - paid) : 0u;
        share.window_end += ended * window;
    }
    return !share.limited || (share.used < timer_us_to_ticks(MANAGE_SHARE_US));
}

/* which calls take a buffer (r2, r3) */
static bool call_has_buffer(uint32_t fn)
{
    return (fn == PARTITA_MG_INFO) || (fn == PARTITA_MG_STATS) || (fn == PARTITA_MG_LOAD) ||
           (fn == PARTITA_MG_CONSOLE_READ) || (fn == PARTITA_MG_CONSOLE_WRITE) ||
           (fn == PARTITA_MG_BUDGET) || (fn == PARTITA_MG_HEALTH) || (fn == PARTITA_MG_SCHEDULE);
}

/* May caller make call fn on guest id?  0 or PARTITA_E_* */
static int manage_allowed(struct guest *caller, uint32_t fn, uint32_t id)
{
    return control_check(caller->cfg, caller->id, nguests, fn, id);
}

static int copy_out(uint8_t *buf, uint32_t len, const void *what, uint32_t size)
{
    uint32_t n = len < size ? len : size;
    (void)memcpy(buf, what, n);
    return (int)n;
}

/* The call itself, on the boot CPU; r[0] gets the result */
static void manage_execute(struct guest *caller, uint32_t *r, uint8_t *buf, uint32_t len)
{
    uint32_t fn = r[0];
    int rc = manage_allowed(caller, fn, r[1]);
    if (rc != 0) {
        if (rc == PARTITA_E_DENIED) {
            caller->manage_denied++;
        }
        r[0] = (uint32_t)rc;
        return;
    }
    bool system = (fn == PARTITA_MG_VERSION) || (fn == PARTITA_MG_SCHEDULE) ||
                  (fn == PARTITA_MG_SCHEDULE_SET);
    struct guest *g = system ? NULL : &guests[r[1]];
    /* static: too big for a Hyp stack, and the calls run one at a time on
     * the boot CPU; not zeroed at boot (.noinit), as each fill clears
     * what it gives */
    static union {
        struct partita_guest_info info;
        struct partita_guest_stats stats;
        struct partita_budget budget;
        struct partita_schedule schedule;
    } u __attribute__((section(".noinit.manage")));
    switch (fn) {
    case PARTITA_MG_VERSION: {
        const uint32_t version = MANAGE_ABI_VERSION;
        r[1] = caller->cfg->control;
        r[2] = nguests;
        r[3] = caller->cfg->control_guests;
        rc = (int)version;
        break;
    }
    case PARTITA_MG_INFO:
        manage_fill_info(g, &u.info);
        rc = copy_out(buf, len, &u.info, sizeof(u.info));
        break;
    case PARTITA_MG_STATS:
        manage_fill_stats(g, &u.stats);
        rc = copy_out(buf, len, &u.stats, sizeof(u.stats));
        break;
    case PARTITA_MG_START: rc = guest_op_start(g); break;
    case PARTITA_MG_STOP: rc = guest_op_stop(g); break;
    case PARTITA_MG_RESTART: rc = guest_op_restart(g); break;
    case PARTITA_MG_CONSOLE_READ: {
        uint32_t pos = r[4], lost = 0u;
        rc = (int)guest_console_recent(g, buf, len, &pos, &lost);
        if (rc >= 0) {
            r[1] = pos;
            r[2] = lost;
        }
        break;
    }
    case PARTITA_MG_CONSOLE_WRITE:
        rc = g->state == GUEST_RUNNING ? (int)guest_console_inject(g, buf, len)
                                       : PARTITA_E_STATE;
        break;
    case PARTITA_MG_LOAD: rc = image_load_piece(g, buf, len, r[4]); break;
    case PARTITA_MG_BUDGET:
        rc = budget_fill(g->id, &u.budget) ? copy_out(buf, len, &u.budget, sizeof(u.budget))
                                           : PARTITA_E_INVALID;
        break;
    case PARTITA_MG_BUDGET_SET:
        rc = budget_set(g->id, r[2], r[3]) ? 0 : PARTITA_E_INVALID;
        break;
    case PARTITA_MG_SCHEDULE:
        rc = schedule_fill(&u.schedule) ? copy_out(buf, len, &u.schedule, sizeof(u.schedule))
                                        : PARTITA_E_INVALID;
        break;
    case PARTITA_MG_SCHEDULE_SET:
        rc = schedule_request_switch(r[1]);
        if (rc == 0) {
            r[1] = schedule_switch_frame();
        }
        break;
    case PARTITA_MG_HEALTH: rc = manage_health(g, r[4], buf, len); break;
    default: rc = PARTITA_E_NOT_SUPPORTED; break;
    }
    r[0] = (uint32_t)rc;
}

static bool mailbox_move(int from, int to)
{
    return __atomic_compare_exchange_n(&mailbox.state, &from, to, false, __ATOMIC_SEQ_CST,
                                       __ATOMIC_SEQ_CST);
}

void manage_service(void)
{
    uint64_t t0 = timer_now();
    if (!boot_cpu_has_time(t0) || !mailbox_move(MB_POSTED, MB_RUNNING)) {
        return;
    }
    manage_execute(mailbox.caller, mailbox.r, mailbox.buf, mailbox.len);
    share.used += timer_now() - t0;
    if (!mailbox_move(MB_RUNNING, MB_DONE)) {
        __atomic_store_n(&mailbox.state, MB_FREE, __ATOMIC_SEQ_CST);    /* abandoned */
    }
}

/* the caller gives up: it is being stopped, or the boot CPU is stuck */
static bool caller_gives_up(struct vcpu *v, uint64_t t0)
{
    uint32_t req = 0u;
    if (v != NULL) {
        req = __atomic_load_n(&v->requests, __ATOMIC_SEQ_CST);
    }
    return ((req & VCPU_REQ_STOP) != 0u) ||
           (timer_ticks_to_us(timer_now() - t0) > MANAGE_WAIT_US);
}

/*
 * The caller is asked to halt (gdb, hyp/gdb/gdb_guest.c): gdb's server
 * (hyp/gdb/gdb_stub.c) waits on the boot CPU for it to leave, so the boot
 * CPU cannot take its call - it withdraws a call the boot CPU has not
 * begun (nothing of it has run) and answers busy, so that it can halt.  A
 * call already running is waited for: gdb's server runs on the boot CPU
 * only once it has ended.
 */
static bool caller_halts(struct vcpu *v)
{
    uint32_t req = 0u;
    if (v != NULL) {
        req = __atomic_load_n(&v->requests, __ATOMIC_SEQ_CST);
    }
    return (req & VCPU_REQ_HALT) != 0u;
}

/* From a CPU other than the boot CPU: post, wait, take the answer */
static void manage_post(struct vcpu *v, uint32_t *r, uint8_t *buf, uint32_t len)
{
    uint64_t t0 = timer_now();
    while (!mailbox_move(MB_FREE, MB_CLAIMED)) {
        if (caller_gives_up(v, t0) || caller_halts(v)) {
            r[0] = (uint32_t)PARTITA_E_BUSY;
            return;
        }
    }
    mailbox.caller = guest_of(v);
    (void)memcpy(mailbox.r, r, sizeof(mailbox.r));
    mailbox.buf = buf;
    mailbox.len = len;
    __atomic_store_n(&mailbox.state, MB_POSTED, __ATOMIC_SEQ_CST);
    sched_cpu0_work();
    uint64_t asked = timer_now();
    while (__atomic_load_n(&mailbox.state, __ATOMIC_SEQ_CST) != (int)MB_DONE) {
        bool halts = caller_halts(v);
        if (!halts && !caller_gives_up(v, t0)) {
            /* left posted while the boot CPU's share was spent: ask again */
            uint64_t now = timer_now();
            if (((now - asked) > timer_us_to_ticks(MANAGE_RETRY_US)) &&
                (__atomic_load_n(&mailbox.state, __ATOMIC_SEQ_CST) == (int)MB_POSTED)) {
                asked = now;
                sched_cpu0_work();
            }
            continue;
        }
        /* halting: withdrawn only if not begun; giving up: abandoned too */
        if (mailbox_move(MB_POSTED, MB_FREE) ||
            (!halts && mailbox_move(MB_RUNNING, MB_ABANDONED))) {
            r[0] = (uint32_t)PARTITA_E_BUSY;
            return;
        }
    }
    (void)memcpy(r, mailbox.r, 4u * sizeof(uint32_t));
    __atomic_store_n(&mailbox.state, MB_FREE, __ATOMIC_SEQ_CST);
}

void manage_call(struct vcpu *v, uint32_t *r, uint8_t *buf, uint32_t len)
{
    if (!v->vm->cfg->control) {
        /* counted (its vCPUs may call at once), nothing else looked at */
        (void)__atomic_add_fetch(&guest_of(v)->manage_denied, 1, __ATOMIC_RELAXED);
        r[0] = (uint32_t)PARTITA_E_DENIED;
        return;
    }
    if (this_cpu()->index == 0u) {
        manage_execute(guest_of(v), r, buf, len);
    } else {
        manage_post(v, r, buf, len);
    }
}

void manage_init(const struct system_config *sys)
{
    uint32_t managed = 0u;
    for (unsigned int i = 0u; i < nguests; i++) {
        for (unsigned int k = 0u; k < sys->guest_cfg[i].ncpus; k++) {
            share.limited = share.limited || (sys->guest_cfg[i].cpus[k] == 0u);
        }
        managed |= sys->guest_cfg[i].control_guests;
        if (sys->guest_cfg[i].control && manage_page_init(&guests[i]) != 0) {
            pr_err("guest '%s': no memory for its management page\n", sys->guest_cfg[i].name);
        }
    }
    for (unsigned int i = 0u; i < nguests; i++) {
        if (!(managed & (1u << i))) {
            continue;
        }
        guests[i].mg = page_alloc((sizeof(struct guest_managed) + 0xfffu) / 0x1000u, 1);
        if (guests[i].mg != NULL) {
            (void)memset(guests[i].mg, 0, sizeof(struct guest_managed));
        } else {
            pr_err("guest '%s': no memory for its console ring and images\n",
                   sys->guest_cfg[i].name);
        }
    }
}

void manage_hypercall(struct vcpu *v, uint32_t *r)
{
    uint64_t pa = 0u;
    uint8_t *buf = NULL;
    if (v->vm->cfg->control && call_has_buffer(r[0])) {
        if (!guest_config_buffer(v->vm->cfg, r[2], r[3], &pa)) {
            r[0] = (uint32_t)PARTITA_E_ADDRESS;
            return;
        }
        buf = (uint8_t *)(uintptr_t)pa;     /* guest RAM is identity mapped */
        /* the guest may have written it with its caches off: read it from
         * memory, and leave what is written there (B2.2.6) */
        dcache_clean_inval_range(buf, r[3]);
    }
    manage_call(v, r, buf, buf != NULL ? r[3] : 0u);
    if (buf != NULL) {
        dcache_clean_inval_range(buf, r[3]);
    }
}
