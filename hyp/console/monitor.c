/*
 * The monitor console: a line editor over the interrupt-fed input ring and
 * a table of commands.  The boot CPU sleeps in WFI between keystrokes.
 */
#include <string.h>
#include <arch/boot.h>
#include <arch/sysregs.h>
#include "monitor.h"
#include "monitor_cmds.h"
#include <partita/manage_abi.h>
#include "hyp/sched/sched_share.h"
#include "hyp/guest/channel.h"
#include "hyp/guest/network.h"
#include "hyp/guest/disk.h"
#include "hyp/lib/console.h"
#include "version.h"
#include "hyp/platform/hyp.h"
#include "hyp/platform/percpu.h"
#include "mm/hyp_mmu.h"
#include "timer/timer.h"
#include "vgic/gic.h"
#include "hyp/guest/guest.h"
#include "hyp/manage/manage.h"
#include "console_escape.h"
#include "hyp/gdb/gdb_stub.h"
#include "hyp/gdb/gdb_port.h"
#include "mm/page_alloc.h"
#include "mm/cache.h"
#include "mm/hyp_colour.h"
#include <stdio.h>

struct monitor_cmd {
    const char *name;
    const char *help;
    void (*fn)(int argc, char **argv);
};

static void cmd_help(int argc, char **argv);

static void cmd_version(int argc, char **argv)
{
    pr_info("Partita %s (built %s %s, gcc %s)\n", PARTITA_VERSION, __DATE__, __TIME__,
            __VERSION__);
}

static struct guest *arg_guest(int argc, char **argv)
{
    if (argc < 2) {
        pr_info("%s: which guest? (try 'list')\n", argv[0]);
        return NULL;
    }
    struct guest *g = guest_by_name(argv[1]);
    if (!g) {
        pr_info("%s: no guest '%s' (try 'list')\n", argv[0], argv[1]);
    }
    return g;
}

static void cmd_list(int argc, char **argv)
{
    pr_info("%-12s %-8s %-16s %-22s %8s %10s  %s\n", "NAME", "STATE", "VCPU->PCPU", "MEMORY",
            "UPTIME", "EXITS", "IMAGE");
    for (unsigned int i = 0u; i < nguests; i++) {
        struct guest *g = &guests[i];
        char map[32];
        char mem[32];
        map[0] = '\0';
        unsigned int n = 0u;
        uint64_t exits = 0u;
        for (unsigned int v = 0u; v < g->cfg->ncpus && n < sizeof(map) - 6u; v++) {
            n += (unsigned int)snprintf(map + n, sizeof(map) - n, "%s%u->%u", v ? "," : "", v,
                                        g->vcpu[v].pcpu);
            exits += vcpu_exits(&g->vcpu[v]);
        }
        (void)snprintf(mem, sizeof(mem), "%lluM@0x%08llx", g->cfg->mem_size >> 20,
                       g->cfg->mem_base);
        pr_info("%-12s %-8s %-16s %-22s %7llus %10llu  %lu bytes crc32 0x%08lx%s\n",
                g->cfg->name, guest_state_name(g->state), map, mem, guest_uptime_s(g), exits,
                (unsigned long)(g->cfg->kernel_size + g->cfg->initrd_size),
                (unsigned long)guest_image_crc(g), guest_image_loaded(g) ? " (loaded)" : "");
    }
    if (!nguests) {
        pr_info("(no guests configured)\n");
    }
}

/* A guest the operator may start or stop: not one gdb holds on the debug
 * UART (the console is free meanwhile; its gdb would lose the guest) */
static struct guest *arg_free_guest(int argc, char **argv)
{
    struct guest *g = arg_guest(argc, argv);
    if (g && gdb_active(g)) {
        pr_info("guest '%s' is held by gdb on %s: detach gdb first (or Ctrl-A three times "
                "on that line)\n", g->cfg->name, gdb_port_uart());
        return NULL;
    }
    return g;
}

static void cmd_start(int argc, char **argv)
{
    struct guest *g = arg_free_guest(argc, argv);
    if (g && guest_op_start(g) == PARTITA_E_STATE) {
        pr_info("start: guest '%s' is %s\n", g->cfg->name,
                guest_image_loading(g) ? "being loaded" : "already running");
    }
}

static void cmd_stop(int argc, char **argv)
{
    struct guest *g = arg_free_guest(argc, argv);
    if (g && guest_op_stop(g) == PARTITA_E_STATE) {
        pr_info("stop: guest '%s' is not running\n", g->cfg->name);
    }
}

static void cmd_restart(int argc, char **argv)
{
    struct guest *g = arg_free_guest(argc, argv);
    if (g && guest_op_restart(g) == PARTITA_E_STATE) {
        pr_info("restart: guest '%s' is being loaded\n", g->cfg->name);
    }
}

static void focus_announce(void)
{
    if (console_focus != NULL) {
        pr_info("[partita: input now goes to guest '%s'; Ctrl-A three times to switch]\n",
                console_focus->cfg->name);
    } else {
        pr_info("[partita: input now goes to the monitor]\n");
    }
}

static void cmd_console(int argc, char **argv)
{
    struct guest *g = arg_guest(argc, argv);
    if (!g) {
        return;
    }
    console_focus = g;
    focus_announce();
}

static void cmd_gdb(int argc, char **argv)
{
    struct guest *g = arg_guest(argc, argv);
    if (g && gdb_active(NULL)) {  /* on the debug UART: the console is free */
        pr_info("gdb: a session is on %s: one at a time\n", gdb_port_uart());
    } else if (g != NULL) {
        (void)gdb_attach(g);
    } else {
        /* otherwise nothing to do */
    }
}

static const char *const trap_names[TRAP_NR] = {
    "wfi", "cp15", "cp14", "hvc", "smc", "mmio", "abort", "pabt", "undef", "irq", "vfp",
};

static void stats_guest(struct guest *g)
{
    pr_info("guest '%s': %s, started %lu times, %lu aborts injected\n", g->cfg->name,
            guest_state_name(g->state), (unsigned long)g->starts, (unsigned long)g->aborts);
    if (g->manage_denied != 0u) {
        pr_info("  management calls refused: %lu\n", (unsigned long)g->manage_denied);
    }
    for (unsigned int v = 0u; v < g->cfg->ncpus; v++) {
        struct vcpu *c = &g->vcpu[v];
        char line[200];
        int n = snprintf(line, sizeof(line), "  vcpu%u exits %llu:", v,
                         (unsigned long long)vcpu_exits(c));
        for (unsigned int t = 0u; (t < (unsigned int)TRAP_NR) && (n < ((int)sizeof(line) - 20));
             t++) {
            n += snprintf(line + n, sizeof(line) - (size_t)n, " %s %lu", trap_names[t],
                          (unsigned long)c->traps[t]);
        }
        pr_info("%s\n", line);
        pr_info("  vcpu%u interrupts injected %lu, maintenance %lu, SGIs sent %lu, "
                "list register overflows %lu\n", v, (unsigned long)c->vgic.stats.injected,
                (unsigned long)c->vgic.stats.maintenance, (unsigned long)c->vgic.stats.sgis_sent,
                (unsigned long)c->vgic.stats.overflow);
        if (c->share != NULL) {
            pr_info("  vcpu%u on shared CPU %u: slice %lu us, ran %llu ms, %lu turns%s\n", v,
                    c->pcpu, (unsigned long)g->cfg->slice_us,
                    (unsigned long long)(timer_ticks_to_us(c->share->run_ticks) / 1000u),
                    (unsigned long)c->share->switches, c->share->blocked ? ", in WFI" : "");
        }
    }
    channel_print_stats(g);
    network_print_stats(g);
    disk_print_stats(g);
    guest_vcon_print_stats(g);
}

static void cmd_stats(int argc, char **argv)
{
    if (argc >= 2) {
        struct guest *g = arg_guest(argc, argv);
        if (g != NULL) {
            stats_guest(g);
        }
        return;
    }
    for (unsigned int i = 0u; i < nguests; i++) {
        stats_guest(&guests[i]);
    }
    if (!nguests) {
        pr_info("(no guests configured)\n");
    }
}

/* Recurse with 512-byte frames until the stack runs into its guard page */
static volatile unsigned int selftest_limit = 0xffffffffu;

static unsigned int __attribute__((noinline)) selftest_recurse(unsigned int depth)
{
    volatile uint8_t frame[512];
    frame[0] = (uint8_t)depth;
    if (depth < selftest_limit) {
        frame[511] = (uint8_t)(selftest_recurse(depth + 1u) + frame[0]);
    }
    return frame[511];
}

/*
 * Check on a live system that a fault in the hypervisor is reported and
 * contained: the boot CPU takes a data abort (fault) or overflows its stack
 * into the guard page below it (stack), reports, and stops; the other CPUs
 * and their guests go on.  The monitor goes with the boot CPU.
 */
static void cmd_selftest(int argc, char **argv)
{
    const char *what = argc < 2 ? "" : argv[1];
    if (strcmp(what, "fault") == 0) {
        pr_info("selftest: cpu%u will read its stack's guard page\n", this_cpu()->index);
        (void)*(volatile const char *)&__stacks_start[this_cpu()->index * STACK_REGION];
    } else if (strcmp(what, "stack") == 0) {
        pr_info("selftest: cpu%u will overflow its stack\n", this_cpu()->index);
        (void)selftest_recurse(0u);
    } else if (strcmp(what, "text") == 0) {
        /* text is mapped read-only (and data never executable, WXN) */
        pr_info("selftest: cpu%u will write to the hypervisor's text\n", this_cpu()->index);
        *(volatile uint32_t *)(void *)__text_start = 0u;
    } else if (strcmp(what, "irq") == 0) {
        /* an SGI to itself, then IRQs unmasked in HYP: the vector's HYP
         * half is the fatal report (hyp/arch/vectors.S) */
        pr_info("selftest: cpu%u will take an IRQ in HYP\n", this_cpu()->index);
        gic_kick_cpu(this_cpu()->index);
        dsb();
        irq_enable();
        for (;;) {
            wfi();
        }
    } else {
        pr_info("selftest fault|stack|text|irq: make this CPU fault in HYP (it stops)\n");
    }
}

static const struct monitor_cmd commands[] = {
    { "help", "list the commands", cmd_help },
    { "list", "guests: state, vCPU->pCPU, memory, uptime, exits", cmd_list },
    { "start", "start NAME: start a stopped, halted or crashed guest", cmd_start },
    { "stop", "stop NAME: take a guest off its CPUs at once", cmd_stop },
    { "restart", "restart NAME: stop, then start from the pristine image", cmd_restart },
    { "console", "console NAME: send input to a guest (Ctrl-A x3 comes back)", cmd_console },
    { "gdb", "gdb NAME: halt a guest and speak gdb's remote protocol here (or on the "
      "debug UART) until it detaches", cmd_gdb },
    { "stats", "stats [NAME]: traps by cause, interrupts injected, aborts", cmd_stats },
    { "budget", "budget [NAME [EVENTS PERIOD-US]]: memory budgets", cmd_budget },
    { "schedule", "schedule [NAME]: the cyclic schedule in force, its windows; switch at "
      "the next major frame but one", cmd_schedule },
    { "health", "health [NAME]: the health monitor's log", cmd_health },
    { "info", "platform: CPUs, start modes, memory map, GIC, timer, footprint", cmd_info },
    { "version", "Partita's version", cmd_version },
    { "selftest", "selftest fault|stack|text|irq: check a HYP fault is reported and contained",
      cmd_selftest },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void cmd_help(int argc, char **argv)
{
    for (unsigned int i = 0u; i < NCOMMANDS; i++) {
        pr_info("  %-10s %s\n", commands[i].name, commands[i].help);
    }
}

static int split_args(char *line, char **argv, int max)
{
    int argc = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t", &save); t && argc < max;
         t = strtok_r(NULL, " \t", &save)) {
        argv[argc++] = t;
    }
    return argc;
}

void monitor_exec(char *line)
{
    char *argv[8];
    int argc = split_args(line, argv, 8);
    if (argc == 0) {
        return;
    }
    for (unsigned int i = 0u; i < NCOMMANDS; i++) {
        if (strcmp(argv[0], commands[i].name) == 0) {
            commands[i].fn(argc, argv);
            return;
        }
    }
    pr_info("unknown command '%s' (try 'help')\n", argv[0]);
}

static bool last_was_cr;
/* where the line editor is in a terminal's escape sequence */
enum esc_phase {
    ESC_NONE,       /* outside one */
    ESC_SEEN,       /* after ESC */
    ESC_CSI,        /* inside ESC [ ... (CSI) */
};
static enum esc_phase esc_state;

/* the keys without a printable form that the line editor reads, by their
 * codes */
#define KEY_ESC 0x1b    /* begins a terminal's escape sequence */
#define KEY_DEL 0x7f    /* what the Backspace key sends on most terminals */

/* Feed one input character to the line editor; returns 1 at end of line. */
static int line_feed(char *buf, unsigned int *len, char c)
{
    /* terminal escape sequences (arrow keys...) are not commands: drop */
    if (esc_state == ESC_SEEN) {
        esc_state = (c == '[') ? ESC_CSI : ESC_NONE;
        return 0;
    }
    if (esc_state == ESC_CSI) {
        if ((c >= '@') && (c <= '~')) {         /* a CSI's final byte, 0x40-0x7e */
            esc_state = ESC_NONE;
        }
        return 0;
    }
    if ((int)c == KEY_ESC) {
        esc_state = ESC_SEEN;
        return 0;
    }
    bool cr_lf = (c == '\n') && last_was_cr;
    last_was_cr = c == '\r';
    if (cr_lf) {
        return 0;   /* CR LF from a terminal: one line end, not two */
    }
    if ((c == '\r') || (c == '\n')) {
        console_write("\n", 1);
        buf[*len] = '\0';
        return 1;
    }
    if ((((int)c == KEY_DEL) || (c == '\b')) && (*len > 0u)) {
        (*len)--;
        console_write("\b \b", 3);
    } else if ((c >= ' ') && (c <= '~') && (*len < (MONITOR_LINE_MAX - 1u))) {
        buf[(*len)++] = c;
        console_write(&c, 1);
    } else {
        /* otherwise nothing to do */
    }
    return 0;
}

static char mon_line[MONITOR_LINE_MAX];
static unsigned int mon_len;

void monitor_start(void)
{
    console_write(MONITOR_PROMPT, sizeof(MONITOR_PROMPT) - 1u);
}

static struct console_escape escape;

/* monitor -> guest 0 -> guest 1 -> ... -> monitor */
static void focus_next(void)
{
    unsigned int next = 0u;
    if (console_focus != NULL) {
        next = console_focus->id + 1;
    }
    console_focus = next < nguests ? &guests[next] : NULL;
    console_write("\n", 1);
    focus_announce();
    if (!console_focus) {
        console_write(MONITOR_PROMPT, sizeof(MONITOR_PROMPT) - 1u);
    }
}

/* a session on the console, not on the debug UART: every input byte is gdb's */
static bool gdb_has_console(void)
{
    return gdb_active(NULL) && !gdb_port_uart();
}

static void monitor_char(char c)
{
    if (line_feed(mon_line, &mon_len, c) != 0) {
        monitor_exec(mon_line);
        mon_len = 0u;
        if (!console_focus && !gdb_has_console()) {
            console_write(MONITOR_PROMPT, sizeof(MONITOR_PROMPT) - 1u);
        }
    }
}

/* what the debug UART received: a session's packets, or (before one, and
 * gdb's '+' for the reply that ended one) nobody's */
static void debug_uart_poll(void)
{
    int c;
    while ((c = gdb_port_pop()) >= 0) {
        if (!gdb_active(NULL)) {
            (void)gdb_trailing_ack((char)c);
        } else if (gdb_input((char)c) && !console_focus) {
            console_write(MONITOR_PROMPT, sizeof(MONITOR_PROMPT) - 1u);
        } else {
            /* otherwise nothing to do */
        }
    }
}

void monitor_poll(void)
{
    int c;
    gdb_poll();
    debug_uart_poll();
    while ((c = console_rx_pop()) >= 0) {
        char out[ESC_COUNT];
        if (gdb_has_console()) {
            /* gdb's packets, no escape: they may hold any byte */
            if (gdb_input((char)c)) {
                console_write(MONITOR_PROMPT, sizeof(MONITOR_PROMPT) - 1u);
            }
            continue;
        }
        if (!gdb_port_uart() && gdb_trailing_ack((char)c)) {
            continue;
        }
        int n = console_escape_feed(&escape, (char)c, out);
        if (n < 0) {
            focus_next();
            continue;
        }
        for (int i = 0; i < n; i++) {
            struct guest *g = console_focus;
            if (g != NULL) {
                guest_console_input(g, out[i]);
            } else {
                monitor_char(out[i]);
            }
        }
    }
}
