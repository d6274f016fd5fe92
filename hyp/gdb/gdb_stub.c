/*
 * The gdb remote stub (gdb_stub.h): one session at a time, on the boot CPU,
 * fed by the monitor's input loop from the console or the debug UART
 * (gdb_port.h).  rsp.c frames and decodes the packets; here each request is
 * checked against the guest (its vCPUs, its memory) and carried out.
 */
#include <stdio.h>
#include <string.h>
#include <arch/sysregs.h>
#include "gdb_stub.h"
#include "rsp.h"
#include "gdb_regs.h"
#include "gdb_break.h"
#include "gdb_step.h"
#include "gdb_vfp.h"
#include "gdb_port.h"
#include "hyp/lib/console.h"

static struct gdb_session {
    struct guest *g;
    bool active;
    bool running;           /* continued: the next stop is a Ctrl-C */
    bool ended;             /* gdb may still ack the last reply */
    unsigned int escapes;   /* Ctrl-As in a row between packets */
    unsigned int vcpu;      /* Hg: whose registers and memory view */
    unsigned int cont;      /* Hc: 1 + the vCPU that c and s resume alone, 0: all */
    struct rsp_rx rx;
    struct rsp_tx tx;       /* the last reply, sent again on a '-' */
    uint8_t mem[RSP_MEM_MAX];
} s;

bool gdb_active(const struct guest *g)
{
    return s.active && (!g || s.g == g);
}

static struct vcpu *cur_vcpu(void)
{
    return &s.g->vcpu[s.vcpu];
}

static void send_reply(void)
{
    rsp_tx_end(&s.tx);
    gdb_port_write(s.tx.buf, (unsigned int)s.tx.len);
}

static void reply(const char *text)
{
    rsp_tx_begin(&s.tx);
    rsp_tx_str(&s.tx, text);
    send_reply();
}

/* a stop reply: signal 5 (SIGTRAP) or 2 (SIGINT), naming the vCPU */
static void reply_stop(unsigned int sig)
{
    char buf[32];
    (void)snprintf(buf, sizeof(buf), "T%02xthread:%x;", sig, s.vcpu + 1u);
    reply(buf);
}

/* a thread id of the request: a vCPU index, or -1 for "any/all" */
static int thread_vcpu(int thread)
{
    if (thread == RSP_THREAD_ALL || thread == RSP_THREAD_ANY) {
        return -1;
    }
    if (thread < 1 || (unsigned int)thread > s.g->cfg->ncpus) {
        return -2;
    }
    return thread - 1;
}

/*
 * Are the guest's vCPUs all off their CPUs and kept there, so that their
 * saved registers and its memory are gdb's?  The halt that ended a continue
 * may have timed out (a vCPU kept in Hyp mode by long work), or its control
 * partition restarted it from under gdb: then the halt is tried again, and
 * if it fails the request is refused - nothing of a live vCPU is touched.
 * Never once the guest is not running (stopped, an image being loaded).
 */
static bool vcpus_held(void)
{
    if (s.g->state != GUEST_RUNNING) {
        return false;
    }
    return guest_debug_held(s.g) || guest_debug_halt(s.g);
}

static void do_read_regs(void)
{
    rsp_tx_begin(&s.tx);
    gdb_regs_read(cur_vcpu(), &s.tx);
    send_reply();
}

static void do_write_regs(const struct rsp_cmd *c)
{
    reply(gdb_regs_write(cur_vcpu(), c->data, c->data_len) ? "OK" : "E01");
}

static void do_read_reg(const struct rsp_cmd *c)
{
    uint32_t *r = gdb_reg_at(cur_vcpu(), c->reg);
    rsp_tx_begin(&s.tx);
    if (r != NULL) {
        rsp_tx_reg32(&s.tx, *r);
    } else if (!gdb_vfp_read(cur_vcpu(), c->reg, &s.tx)) {
        reply("E01");
        return;
    } else {
        /* otherwise nothing to do */
    }
    send_reply();
}

static void do_write_reg(const struct rsp_cmd *c)
{
    int vfp = gdb_vfp_write(cur_vcpu(), c);
    bool ok = vfp > 0 || (vfp < 0 && !c->wide && gdb_reg_write(cur_vcpu(), c->reg, c->value));
    reply(ok ? "OK" : "E01");
}

static void do_read_mem(const struct rsp_cmd *c)
{
    uint32_t done = guest_debug_access(cur_vcpu(), c->addr, s.mem, c->len, false);
    if (done == 0u && c->len) {
        reply("E01");       /* the first byte faults: nothing there */
        return;
    }
    rsp_tx_begin(&s.tx);
    rsp_tx_hex(&s.tx, s.mem, done);
    send_reply();
}

static void do_write_mem(const struct rsp_cmd *c)
{
    if (rsp_hex_decode(c->data, c->data_len, s.mem, sizeof(s.mem)) != (int)c->len) {
        reply("E01");
        return;
    }
    uint32_t done = guest_debug_access(cur_vcpu(), c->addr, s.mem, c->len, true);
    reply(done == c->len ? "OK" : "E01");
}

/* qXfer:features:read:target.xml:offset,length */
static void do_features(const struct rsp_cmd *c)
{
    rsp_tx_begin(&s.tx);
    if (gdb_features_read(c, &s.tx)) {
        send_reply();
    } else {
        reply("E00");
    }
}

static void do_threads(void)
{
    rsp_tx_begin(&s.tx);
    rsp_tx_str(&s.tx, "m");
    for (unsigned int i = 0u; i < s.g->cfg->ncpus; i++) {
        if (i != 0u) {
            rsp_tx_str(&s.tx, ",");
        }
        rsp_tx_num(&s.tx, i + 1u);
    }
    send_reply();
}

static void do_thread_extra(const struct rsp_cmd *c)
{
    int v = thread_vcpu(c->thread);
    char text[48];
    if (v < 0) {
        reply("E01");
        return;
    }
    (void)snprintf(text, sizeof(text), "vcpu%d on cpu%u", v, s.g->vcpu[v].pcpu);
    rsp_tx_begin(&s.tx);
    rsp_tx_hex(&s.tx, (const uint8_t *)text, strlen(text));
    send_reply();
}

static void do_set_thread(const struct rsp_cmd *c)
{
    int v = thread_vcpu(c->thread);
    if (v == -2) {
        reply("E01");
        return;
    }
    char op = c->op;
    if ((v >= 0) && (op == 'g')) {
        s.vcpu = (unsigned int)v;
    }
    if (op == 'c') {   /* one thread (gdb stepping it over a breakpoint), or all */
        s.cont = v >= 0 ? (unsigned int)v + 1u : 0u;
    }
    reply("OK");
}

static void do_current_thread(void)
{
    char buf[16];
    (void)snprintf(buf, sizeof(buf), "QC%x", s.vcpu + 1u);
    reply(buf);
}

/* HDCR.TDE for the guest's vCPUs while gdb is attached (from their next
 * entry: they are halted now), and its breakpoints out when it goes */
static void debug_traps(bool on)
{
    if (!on && vcpus_held()) {
        gdb_bp_step_remove();
        gdb_bp_remove_all(cur_vcpu());
    } else if (!on) {
        gdb_bp_forget_all();    /* not gdb's memory any more: nothing written */
    } else {
        /* otherwise nothing to do */
    }
    gdb_hw_release(s.g);
    for (unsigned int i = 0u; i < s.g->cfg->ncpus; i++) {
        gdb_vfp_hold(&s.g->vcpu[i], on);
    }
    s.g->dbg_stopped = 0u;
}

static void session_end(const char *how)
{
    debug_traps(false);
    s.active = false;
    s.ended = true;
    if (!gdb_port_uart()) {
        console_hold(false);
    }
    pr_info("\n[partita: gdb %s guest '%s']\n", how, s.g->cfg->name);
}

/* every vCPU off its CPU again (a stop, Ctrl-C, a packet while it ran);
 * a single step's BKPT out */
static void stop_all(void)
{
    s.running = false;
    if (vcpus_held()) {
        gdb_bp_step_remove();
    }
}

/* the vCPU c and s resume: Hc's, or (all) the current one */
static struct vcpu *cont_vcpu(void)
{
    return s.cont ? &s.g->vcpu[s.cont - 1u] : cur_vcpu();
}

static void do_continue(const struct rsp_cmd *c)
{
    if (c->has_addr) {
        cont_vcpu()->regs.pc = c->addr;
    }
    s.running = true;
    s.g->dbg_stopped = 0u;
    if (s.cont != 0u) {
        guest_debug_resume_vcpu(cont_vcpu());
    } else {
        guest_debug_resume(s.g);
    }
}

/* s [addr]: only the current vCPU runs, to its next instruction */
static void do_step(const struct rsp_cmd *c)
{
    struct vcpu *v = cont_vcpu();
    if (c->has_addr) {
        v->regs.pc = c->addr;
    }
    if (!gdb_step_begin(v)) {
        reply("E01");
        return;
    }
    s.running = true;
    s.g->dbg_stopped = 0u;
    guest_debug_resume_vcpu(v);
}

static void do_detach(void)
{
    reply("OK");
    session_end("detached from");
    guest_debug_resume(s.g);
}

/*
 * kill: what the guest's on-crash policy says, restart or stop, by the
 * operator's own calls (lifecycle.c: the monitor's stop and start, the
 * control partition's), so with their checks: refused (E01, the session
 * goes on) while an image is being loaded into the guest - its control
 * partition stopped it from under gdb and loads it - as a start is.
 */
static void do_kill(void)
{
    struct guest *g = s.g;
    if (guest_image_loading(g)) {
        reply("E01");
        return;
    }
    session_end("killed");
    (void)guest_op_stop(g);     /* already stopped (its control partition): no matter */
    guest_debug_resume(g);      /* no longer held: a start runs it */
    if (g->cfg->on_crash == ON_CRASH_RESTART && guest_op_start(g) != 0) {
        pr_info("gdb: guest '%s' could not be started again\n", g->cfg->name);
    }
}

/* requests that are answered from the session alone */
static bool dispatch_query(const struct rsp_cmd *c)
{
    switch (c->kind) {
    case RSP_CMD_SUPPORTED:
        reply("PacketSize=400;qXfer:features:read+");
        return true;
    case RSP_CMD_XFER_FEATURES:
        do_features(c);
        return true;
    case RSP_CMD_THREAD_FIRST:
        do_threads();
        return true;
    case RSP_CMD_THREAD_NEXT:
        reply("l");
        return true;
    case RSP_CMD_CURRENT_THREAD:
        do_current_thread();
        return true;
    case RSP_CMD_ATTACHED:
        reply("1");
        return true;
    case RSP_CMD_THREAD_EXTRA:
        do_thread_extra(c);
        return true;
    case RSP_CMD_SET_THREAD:
        do_set_thread(c);
        return true;
    case RSP_CMD_THREAD_ALIVE:
        reply(thread_vcpu(c->thread) >= 0 ? "OK" : "E01");
        return true;
    default:
        return false;
    }
}

/* requests that read or write a vCPU's registers or the guest's memory */
static bool touches_guest(const struct rsp_cmd *c)
{
    switch (c->kind) {
    case RSP_CMD_READ_REGS: case RSP_CMD_WRITE_REGS: case RSP_CMD_READ_REG:
    case RSP_CMD_WRITE_REG: case RSP_CMD_READ_MEM: case RSP_CMD_WRITE_MEM:
    case RSP_CMD_INSERT_BP: case RSP_CMD_REMOVE_BP: case RSP_CMD_STEP:
        return true;
    case RSP_CMD_CONTINUE:
        return c->has_addr;
    default:
        return false;
    }
}

static void dispatch(const struct rsp_cmd *c)
{
    if (dispatch_query(c)) {
        return;
    }
    if (touches_guest(c) && !vcpus_held()) {
        reply("E01");
        return;
    }
    switch (c->kind) {
    case RSP_CMD_STATUS:     reply_stop(5); break;
    case RSP_CMD_READ_REGS:  do_read_regs(); break;
    case RSP_CMD_WRITE_REGS: do_write_regs(c); break;
    case RSP_CMD_READ_REG:   do_read_reg(c); break;
    case RSP_CMD_WRITE_REG:  do_write_reg(c); break;
    case RSP_CMD_READ_MEM:   do_read_mem(c); break;
    case RSP_CMD_WRITE_MEM:  do_write_mem(c); break;
    case RSP_CMD_CONTINUE:   do_continue(c); break;
    case RSP_CMD_STEP:       do_step(c); break;
    case RSP_CMD_DETACH:     do_detach(); break;
    case RSP_CMD_KILL:       do_kill(); break;
    case RSP_CMD_INSERT_BP:
    case RSP_CMD_REMOVE_BP:  reply(gdb_bp_request(cur_vcpu(), c)); break;
    case RSP_CMD_MALFORMED:  reply("E01"); break;
    default:                 reply(""); break;     /* not offered */
    }
}

static void on_packet(void)
{
    struct rsp_cmd c;
    gdb_port_write("+", 1);
    rsp_decode(s.rx.buf, s.rx.len, &c);
    if (s.running) {
        stop_all();     /* only a stop (Ctrl-C) is expected while it runs */
    }
    dispatch(&c);
}

/* Ctrl-A three times between packets (gdb never sends it there): the
 * way out when gdb went away without detaching - detach for it */
static bool escape(char c)
{
    if (((int)c != ESC_CHAR) || !rsp_rx_idle(&s.rx)) {
        s.escapes = 0u;
        return false;
    }
    if (++s.escapes < ESC_COUNT) {
        return true;
    }
    session_end("detached (Ctrl-A x3) from");
    s.ended = false;
    guest_debug_resume(s.g);
    return true;
}

bool gdb_input(char c)
{
    if (escape(c)) {
        return !s.active;
    }
    switch (rsp_rx_feed(&s.rx, c)) {
    case RSP_EV_PACKET:
        on_packet();
        break;
    case RSP_EV_BAD:
        gdb_port_write("-", 1);
        break;
    case RSP_EV_NAK:
        gdb_port_write(s.tx.buf, (unsigned int)s.tx.len);
        break;
    case RSP_EV_INTERRUPT:
        if (s.running) {
            stop_all();
            reply_stop(2);
        }
        break;
    default:
        break;
    }
    return !s.active;
}

void gdb_poll(void)
{
    uint32_t who = s.active && s.running ? s.g->dbg_stopped : 0u;
    if (!who) {
        return;
    }
    stop_all();
    s.vcpu = who - 1u;
    char buf[48];
    if (gdb_watch_stop(cur_vcpu(), buf, sizeof(buf))) {
        reply(buf);
    } else {
        reply_stop(5);
    }
}

bool gdb_trailing_ack(char c)
{
    bool ack = s.ended && c == '+';
    s.ended = false;
    return ack;
}

bool gdb_attach(struct guest *g)
{
    if (g->state != GUEST_RUNNING) {
        pr_info("gdb: guest '%s' is not running\n", g->cfg->name);
        return false;
    }
    (void)memset(&s, 0, sizeof(s));
    s.g = g;
    rsp_rx_init(&s.rx);
    debug_traps(true);      /* first: its vCPUs save their VFP as they leave */
    if (!guest_debug_halt(g) || !gdb_vfp_catch(g)) {
        debug_traps(false);
        guest_debug_resume(g);
        pr_info("gdb: a vCPU of '%s' did not stop in time\n", g->cfg->name);
        return false;
    }
    const char *uart = gdb_port_uart();
    pr_info("[partita: guest '%s' halted for gdb: %s%s speaks gdb's remote protocol until it "
            "detaches]\n", g->cfg->name, uart ? "the debug UART " : "the console",
            uart ? uart : "");
    if (!uart) {
        console_hold(true);
    }
    s.active = true;
    return true;
}
