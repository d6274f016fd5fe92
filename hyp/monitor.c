/*
 * The monitor console: a line editor over the interrupt-fed input ring and
 * a table of commands.  The boot CPU sleeps in WFI between keystrokes.
 */
#include <string.h>
#include <arch/boot.h>
#include <arch/sysregs.h>
#include "monitor.h"
#include "console.h"
#include "version.h"
#include "hyp.h"
#include "percpu.h"
#include "smp.h"
#include "mm/hyp_mmu.h"
#include "timer/timer.h"
#include "vgic/gic.h"

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

static void cmd_info(int argc, char **argv)
{
    hyp_print_info();
}

static const struct monitor_cmd commands[] = {
    { "help", "list the commands", cmd_help },
    { "info", "platform: CPUs, start modes, memory map, GIC, timer, footprint", cmd_info },
    { "version", "Partita's version", cmd_version },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void cmd_help(int argc, char **argv)
{
    for (unsigned int i = 0; i < NCOMMANDS; i++)
        pr_info("  %-10s %s\n", commands[i].name, commands[i].help);
}

void hyp_print_info(void)
{
    uint64_t fs, fe;
    hyp_footprint(&fs, &fe);
    pr_info("platform: %s\n", host.model[0] ? host.model : "(no model)");
    pr_info("cpus: %u in the device tree, %u online\n", host.ncpus, smp_online_count());
    for (unsigned int i = 0; i < MAX_CPUS; i++) {
        if (!pcpus[i].online && !pcpus[i].parked && i != 0 && !pcpus[i].mpidr)
            continue;
        pr_info("  cpu%u  MPIDR 0x%08lx  start mode %-14s %s\n", i,
                (unsigned long)pcpus[i].mpidr, start_mode_name(pcpus[i].start_mode),
                pcpus[i].online ? "online" : pcpus[i].parked ? "stopped (fatal)" : "offline");
    }
    pr_info("memory map:\n");
    for (unsigned int i = 0; i < host.nmem; i++)
        pr_info("  RAM        0x%08llx-0x%08llx  %llu MiB\n", host.mem[i].base,
                host.mem[i].base + host.mem[i].size, host.mem[i].size >> 20);
    for (unsigned int i = 0; i < host.nrsv; i++)
        pr_info("  reserved   0x%08llx-0x%08llx\n", host.rsv[i].base,
                host.rsv[i].base + host.rsv[i].size);
    pr_info("  partita    0x%08llx-0x%08llx  %llu KiB\n", fs, fe, (fe - fs) >> 10);
    pr_info("  GICD 0x%08llx  GICC 0x%08llx  GICH 0x%08llx  GICV 0x%08llx\n",
            host.gic.gicd.base, host.gic.gicc.base, host.gic.gich.base, host.gic.gicv.base);
    pr_info("  UART %s 0x%08llx IRQ %lu\n", host.uart.path, host.uart.reg.base,
            (unsigned long)host.uart.irq);
    pr_info("gic: %s, %u IRQs, %u CPU interfaces, maintenance IRQ %lu\n",
            host.gic.compatible, gic_get_info()->nr_irqs, gic_get_info()->nr_cpus_if,
            (unsigned long)host.gic.maint_irq);
    pr_info("timer: %lu Hz; IRQs: secure %lu, physical %lu, virtual %lu, hypervisor %lu\n",
            (unsigned long)timer_freq(), (unsigned long)host.timer.irq_sec_phys,
            (unsigned long)host.timer.irq_phys, (unsigned long)host.timer.irq_virt,
            (unsigned long)host.timer.irq_hyp);
    pr_info("footprint: text %lu KiB, data+bss %lu KiB, stacks %lu KiB, "
            "HYP page tables %u pages\n",
            (unsigned long)((__text_end - _start) >> 10),
            (unsigned long)((__stacks_start - __data_start) >> 10),
            (unsigned long)((__stacks_end - __stacks_start) >> 10), hyp_mmu_pages_used());
    pr_info("uptime: %llu s\n", timer_ticks_to_us(timer_now() - hyp_boot_ticks) / 1000000);
}

static int split_args(char *line, char **argv, int max)
{
    int argc = 0;
    char *save = NULL;
    for (char *t = strtok_r(line, " \t", &save); t && argc < max;
         t = strtok_r(NULL, " \t", &save))
        argv[argc++] = t;
    return argc;
}

void monitor_exec(char *line)
{
    char *argv[8];
    int argc = split_args(line, argv, 8);
    if (argc == 0)
        return;
    for (unsigned int i = 0; i < NCOMMANDS; i++) {
        if (strcmp(argv[0], commands[i].name) == 0) {
            commands[i].fn(argc, argv);
            return;
        }
    }
    pr_info("unknown command '%s' (try 'help')\n", argv[0]);
}

/* Feed one input character to the line editor; returns 1 at end of line. */
static int line_feed(char *buf, unsigned int *len, int c)
{
    if (c == '\r' || c == '\n') {
        console_write("\n", 1);
        buf[*len] = '\0';
        return 1;
    }
    if ((c == 0x7f || c == '\b') && *len > 0) {
        (*len)--;
        console_write("\b \b", 3);
    } else if (c >= 0x20 && c < 0x7f && *len < MONITOR_LINE_MAX - 1) {
        char ch = (char)c;
        buf[(*len)++] = ch;
        console_write(&ch, 1);
    }
    return 0;
}

static char mon_line[MONITOR_LINE_MAX];
static unsigned int mon_len;

void monitor_start(void)
{
    console_write(MONITOR_PROMPT, sizeof(MONITOR_PROMPT) - 1);
}

void monitor_poll(void)
{
    int c;
    while ((c = console_rx_pop()) >= 0) {
        if (line_feed(mon_line, &mon_len, c)) {
            monitor_exec(mon_line);
            mon_len = 0;
            console_write(MONITOR_PROMPT, sizeof(MONITOR_PROMPT) - 1);
        }
    }
}
