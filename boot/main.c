/*
 * The boot CPU's path from the first C instruction to the monitor, and
 * every secondary CPU's path to its idle loop.
 */
#include <string.h>
#include <libfdt.h>
#include <arch/boot.h>
#include <arch/sysregs.h>
#include "hyp/platform/hyp.h"
#include "hyp/lib/console.h"
#include "version.h"
#include "hyp/dt/hostdt.h"
#include "hyp/console/monitor.h"
#include "hyp/gdb/gdb_port.h"
#include "hyp/drivers/uart/host_uart.h"
#include "hyp/platform/percpu.h"
#include "smp.h"
#include "rooms.h"
#include "mm/hyp_mmu.h"
#include "timer/timer.h"
#include "timer/hyp_timer.h"
#include "hyp/sched/sched_share.h"
#include "vgic/gic.h"
#include "vgic/vgic_hw.h"
#include "hyp/guest/guest.h"
#include "hyp/gdb/gdb_guest.h"
#include "hyp/config/guest_config.h"
#include "hyp/sched/sched.h"
#include "hyp/sched/budget.h"
#include "hyp/sched/cyclic.h"
#include "hyp/trap/traps.h"
#include "hyp/arch/vfp.h"
#include "hyp/arch/pmu.h"
#include "hyp/arch/debug.h"
#include "hyp/arch/vcpu.h"
#include "hyp/config/colour.h"
#include "mm/cache.h"
#include "mm/page_alloc.h"
#include "mm/stage2.h"
#include "mm/hyp_colour.h"

static struct host_uart host_uart, debug_uart;
static struct console_ops uart_ops, debug_ops;

static void console_up(void)
{
    volatile void *base = ioremap(host.uart.reg.base, 0x1000);
    if (!base) {
        hyp_halt();
    }
    (void)host_uart_init(&host_uart, &host.uart, base);     /* hyp_main halted on UART_NONE */
    uart_ops = host_uart_console_ops(&host_uart);
    console_attach(&uart_ops);
}

static struct system_config sysconf;
extern const char config_blob[];

static void config_report(void *ctx, bool is_error, const char *msg)
{
    pr_info("config: %s: %s\n", is_error ? "error" : "warning", msg);
}

/* Per-CPU HYP state every CPU sets the same way before running guests. */
static void hyp_cpu_init(void)
{
    sysreg_write_vtcr(VTCR_VALUE);
    /* guests may read the physical counter but not program the physical
     * timer: CNTHCTL.PL1PCTEN = 1, PL1PCEN = 0 (B8.1.3); the hypervisor
     * keeps the physical timer for itself */
    sysreg_write_cnthctl(1);
    sysreg_write_cntvoff(0);
    sysreg_write_hcr(0);
    vcpu_cpu_init();
    isb();
    vfp_id_init();
    pmu_init();
    debug_cpu_init();
}

/* The colours of the last-level cache, which is physically indexed on
 * Cortex-A15/A7/A17 (their TRMs): one per page of a way; 0 when CLIDR
 * names no cache or the way is no power of two (the configuration's
 * llc-way-size overrides it) */
static unsigned int colours_of_cache(unsigned int *level, struct cache_geom *geom)
{
    unsigned int lv;
    struct cache_geom g;
    if (!cache_llc(&lv, &g)) {
        return 0;
    }
    if (level != NULL) {
        *level = lv;
    }
    if (geom != NULL) {
        *geom = g;
    }
    uint32_t way = g.line * g.sets;
    unsigned int n = colour_count(way);
    return (((way & (way - 1u)) != 0u) || (n > COLOUR_MAX)) ? 0u : n;
}

/* The colours guests may be given, as the boot log says */
static unsigned int colours_probe(void)
{
    unsigned int level;
    struct cache_geom g = { 0 };
    unsigned int n = colours_of_cache(&level, &g);
    if (!g.line) {
        pr_info("cache: no data cache named in CLIDR: no colours\n");
        return 0;
    }
    uint32_t way = g.line * g.sets;
    uint32_t way_kib = way / 1024u;
    uint32_t size_kib = way_kib * g.ways;
    pr_info("cache: L%u %lu KiB, %lu ways of %lu KiB", level + 1u,
            (unsigned long)size_kib, (unsigned long)g.ways, (unsigned long)way_kib);
    /* real caches have a power of two of sets; QEMU's CCSIDR does not
     * (2304 sets for its Cortex-A15 L2) */
    if (!n) {
        pr_info(": not %s, no colours (llc-way-size in the configuration gives them)\n",
                (colour_count(way) > COLOUR_MAX) ? "at most 128 of them" : "a power of two");
        return 0;
    }
    pr_info(": %u colours of 4 KiB\n", n);
    return n;
}

/*
 * The page pool, right after the image: 8 MiB; with colours of its own
 * (/partita colors, mm/hyp_colour.h) as many times that as it takes for 8
 * MiB of them, up to 64 MiB, since only those pages will be handed out.
 */
static int pool_init(void)
{
    uint64_t fs, fe;
    unsigned int k, n;
    config_peek_hyp_colours(config_blob, colours_of_cache(NULL, NULL), &k, &n);
    uint32_t size = k ? HYP_POOL_SIZE / k * n : HYP_POOL_SIZE;
    if (size > HYP_POOL_MAX) {
        size = HYP_POOL_MAX;
    }
    hyp_set_pool_size(size);
    hyp_footprint(&fs, &fe);
    uint64_t pool = fe - size;
    for (unsigned int i = 0u; i < host.nmem; i++) {
        if (pool >= host.mem[i].base && fe <= host.mem[i].base + host.mem[i].size &&
            fe <= HYP_VA_RAM_END) {
            page_alloc_init(pool, fe - pool);
            return 0;
        }
    }
    return -1;
}

/*
 * The hypervisor into its own colours (mm/hyp_colour.h), before any guest
 * runs: the other CPUs, idle since they came online, are woken to wait
 * while the boot CPU copies the image; then its pages are read back through
 * the MMU.  -1 (and said why) if it cannot be done: then no guest starts,
 * as for any configuration error.
 */
static int hyp_colours_apply(const struct colour_list *l)
{
    char err[160], list[64];
    if (!l->n) {
        return 0;
    }
    colour_format(l, list, sizeof(list));
    if (hyp_colour_prepare(l, err, sizeof(err)) != 0) {
        pr_err("config: node '/partita': property 'colors': %s\n", err);
        return -1;
    }
    unsigned int others = 0u;
    for (unsigned int i = 1u; i < MAX_CPUS; i++) {
        others += pcpus[i].online;
    }
    uint32_t f = irq_save();
    hyp_colour_request();
    gic_send_sgi_others(SGI_KICK);
    while (hyp_colour_parked() < others) {
        wfe();      /* each parked CPU sends an event */
    }
    hyp_colour_move();
    irq_restore(f);
    unsigned int pages, tables, bad = hyp_colour_check(l, &pages, &tables);
    if (bad != 0u) {
        pr_err("hypervisor: %u of its %u pages and %u tables are not of colours %s\n", bad,
               pages, tables, list);
        return -1;
    }
    pr_info("hypervisor: its %u pages and %u page tables are in colours %s (read back by "
            "ATS1HR), its pool has %u KiB of them\n", pages, tables, list,
            page_free_count() * 4u);
    return 0;
}

/* guest i as the scheduler sees it (hyp/sched/budget.h) */
static struct vm *guest_vm_at(unsigned int i)
{
    return guest_vm(&guests[i]);
}

static void guests_boot(void)
{
    uint64_t fs, fe;
    hyp_footprint(&fs, &fe);
    uint32_t mode = this_cpu()->start_mode;
    /* direct interrupts need the GIC's Group 0 for the hypervisor: a secure
     * start (Partita is the firmware) on a GIC with the Security Extensions */
    struct config_host ch = { &host, fs, fe, host_fdt, colours_probe(),
                              (mode == START_MODE_SECURE) && gic_get_info()->security_extn,
                              start_mode_name(mode),
                              host.pmu_irq && pmu_present() ? pmu_hpmn : 0u };
    if ((uint32_t)__config_end == (uint32_t)__config_start || fdt_check_header(config_blob) != 0) {
        pr_info("config: no configuration linked in: no guests\n");
        return;
    }
    int errors = config_load(config_blob, &ch, &sysconf, config_report, NULL);
    if (!errors && hyp_colours_apply(&sysconf.hyp_colours) != 0) {
        errors = 1;
    }
    if (errors != 0) {
        pr_err("configuration has %d error%s: no guest started\n", errors,
               errors == 1 ? "" : "s");
        return;
    }
    /* before any CPU is shared: the CPUs under cyclic schedules run theirs */
    sched_cyclic_prepare(&sysconf);
    guests_init(&sysconf);
    if (!budget_init(&sysconf, guest_vm_at)) {
        pr_err("no guest started\n");
        return;
    }
    sched_cyclic_start(&sysconf, guest_vm_at);
    pr_info("config: %u guest%s\n", sysconf.nguest_cfg, (sysconf.nguest_cfg == 1u) ? "" : "s");
    for (unsigned int i = 0u; i < nguests; i++) {
        const struct guest_config *c = guests[i].cfg;
        pr_info("guest '%s': %u vCPU%s, %llu MiB at 0x%08llx, %s image %lu bytes%s\n", c->name,
                c->ncpus, (c->ncpus == 1u) ? "" : "s", c->mem_size >> 20, c->mem_base,
                (c->format == KERNEL_LINUX) ? "linux" : "raw", (unsigned long)c->kernel_size,
                c->autostart ? ", autostart" : "");
    }
    sched_share_print();
    for (unsigned int i = 0u; i < nguests; i++) {
        if (!guests[i].cfg->autostart) {
            continue;
        }
        pr_info("guest '%s': starting\n", guests[i].cfg->name);
        (void)guest_start(&guests[i]);     /* it reports what failed */
    }
}

static bool uart_irq(unsigned int irq, void *arg)
{
    host_uart_irq(arg, console_rx_push);
    sched_console_input();
    return true;
}

/* the debugger's UART: its bytes are gdb's, for the boot CPU's housekeeping
 * (console_rx_pending asks gdb_port_pending: as console input) */
static bool debug_uart_irq(unsigned int irq, void *arg)
{
    host_uart_irq(arg, gdb_port_rx);
    sched_console_input();
    return true;
}

/*
 * A host UART's input on the boot CPU: by its interrupt, or, when the DT
 * gives it none, polled (the boot CPU then leaves its guests to look).
 * what: "console UART", "debug UART".
 */
static void uart_input_up(struct host_uart *u, uint32_t irq, irq_handler_t handler,
                          const char *what)
{
    if (irq != 0u) {
        gic_irq_register(irq, handler, u);
        gic_irq_enable(irq, gic_cpu_if_mask());
        host_uart_rx_irq_enable(u);
    } else {
        pr_warn("%s has no interrupt in the DT: input is polled\n", what);
        console_set_polled(true);
    }
}

/*
 * gdb's own UART, if the host DT names one (/chosen/partita,debug-uart):
 * mapped and driven like the console, its input by interrupt (or polled
 * with the console's when it has none).  After the console's interrupt,
 * so that a missing one is known.
 */
static void debug_uart_up(void)
{
    const struct plat_uart *u = &host.debug_uart;
    if (u->kind == UART_NONE) {
        return;
    }
    volatile void *base = ioremap(u->reg.base, 0x1000);
    if (!base || host_uart_init(&debug_uart, u, base) != 0) {
        pr_err("debug UART %s: cannot map it; gdb stays on the console\n", u->path);
        return;
    }
    debug_ops = host_uart_console_ops(&debug_uart);
    gdb_port_set(&debug_ops, u->path, !u->irq);
    console_rx_also(gdb_port_pending);
    pr_info("debug: gdb on %s (%s), IRQ %lu\n", u->path, u->compatible,
            (unsigned long)u->irq);
    uart_input_up(&debug_uart, u->irq, debug_uart_irq, "debug UART");
}

static void print_banner(void)
{
    uint64_t fs, fe;
    hyp_footprint(&fs, &fe);
    pr_info("\nPartita %s - ARMv7-A micro-hypervisor\n", PARTITA_VERSION);
    pr_info("boot: start mode %s, model \"%s\", %u CPUs in the device tree\n",
            start_mode_name(this_cpu()->start_mode), host.model, host.ncpus);
    for (unsigned int i = 0u; i < host.nmem; i++) {
        pr_info("memory: 0x%08llx-0x%08llx (%llu MiB)\n", host.mem[i].base,
                host.mem[i].base + host.mem[i].size, host.mem[i].size >> 20);
    }
    pr_info("hypervisor: 0x%08llx-0x%08llx (%llu KiB)\n", fs, fe, (fe - fs) >> 10);
    pr_info("gic: GICD 0x%08llx GICC 0x%08llx GICH 0x%08llx GICV 0x%08llx, "
            "maintenance IRQ %lu, %u IRQs%s%s\n", host.gic.gicd.base, host.gic.gicc.base,
            host.gic.gich.base, host.gic.gicv.base, (unsigned long)host.gic.maint_irq,
            gic_get_info()->nr_irqs, host.gic.quirk ? "; GICH/GICV from the " : "",
            host.gic.quirk ? host.gic.quirk : "");
    pr_info("timer: %lu Hz, virtual IRQ %lu, hypervisor IRQ %lu\n",
            (unsigned long)timer_freq(), (unsigned long)host.timer.irq_virt,
            (unsigned long)host.timer.irq_hyp);
    /* how it was found, when not by /chosen/stdout-path (platform.c) */
    bool fallback = strcmp(host.uart.found_by, "stdout-path") != 0;
    pr_info("console: %s (%s), IRQ %lu%s%s\n", host.uart.path, host.uart.compatible,
            (unsigned long)host.uart.irq, fallback ? ", no stdout-path: " : "",
            fallback ? host.uart.found_by : "");
    pr_info("psci: %s\n", host.psci.conduit == PSCI_CONDUIT_NONE
                              ? "none"
                              : platform_psci_conduit_name(host.psci.conduit));
}

/* the boot CPU's work between guest entries (hyp/sched/sched.c) */
static void boot_cpu_housekeeping(void)
{
    monitor_poll();
    guests_service();
}

/*
 * Connect the layers that call upward through a pointer: the trap layer's
 * WFI, crash and debug hooks, the scheduler's housekeeping, the rooms of
 * what a guest may have.  Before any CPU can enter a guest.
 */
static void layers_connect(void)
{
    static const struct trap_hooks hooks = { .wait = vcpu_wait, .crash = guest_crash,
                                             .debug_hit = gdb_debug_hit };
    trap_set_hooks(&hooks);
    sched_set_housekeeping(boot_cpu_housekeeping);
    rooms_connect();
}

/* the C entries of the boot assembly (entry.S): no C code calls them */
void hyp_main(uint32_t dtb_pa, uint32_t image_pa, uint32_t start_mode);
void secondary_main(unsigned int index, uint32_t start_mode);

void hyp_main(uint32_t dtb_pa, uint32_t image_pa, uint32_t start_mode)
{
    char err[160];
    pcpu_init_self(0, start_mode);
    hyp_boot_ticks = sysreg_read_cntpct();

    host_fdt = hostdt_copy(dtb_pa, err, sizeof(err));
    if (!host_fdt) {
        hyp_halt();     /* no device tree, so no console to say it on */
    }
    int rc = platform_probe(host_fdt, &host, err, sizeof(err));
    if (host.uart.kind == UART_NONE) {
        hyp_halt();     /* no console Partita can drive: nothing to print with */
    }
    hyp_mmu_init(&host, image_pa);
    console_up();
    if (rc != 0) {
        pr_err("%s\n", err);
        pr_err("Partita cannot run on this platform; stopping.\n");
        hyp_halt();
    }
    timer_init(&host);
    if (gic_init(&host) != 0) {
        pr_err("cannot map the GIC\n");
        hyp_halt();
    }
    if (pool_init() != 0) {
        pr_err("no RAM for the hypervisor's page pool after the image\n");
        hyp_halt();
    }
    layers_connect();
    hyp_cpu_init();
    vgic_hw_cpu_init();
    hyp_timer_cpu_init();
    pcpus[0].online = true;
    pcpu_count = host.ncpus;
    print_banner();
    pr_info("cpu0: MPIDR 0x%08lx online (start mode %s)\n",
            (unsigned long)this_cpu()->mpidr, start_mode_name(start_mode));

    unsigned int n = smp_boot_secondaries(&host);
    pr_info("smp: %u of %u CPUs online\n", n, host.ncpus);

    uart_input_up(&host_uart, host.uart.irq, uart_irq, "console UART");
    debug_uart_up();
    guests_boot();
    monitor_start();
    pcpu_loop();
}

void secondary_main(unsigned int index, uint32_t start_mode)
{
    pcpu_init_self(index, start_mode);
    hyp_mmu_harden();
    gic_cpu_init();
    hyp_cpu_init();
    vgic_hw_cpu_init();
    hyp_timer_cpu_init();
    pr_info("cpu%u: MPIDR 0x%08lx online (start mode %s)\n", index,
            (unsigned long)this_cpu()->mpidr, start_mode_name(start_mode));
    this_cpu()->online = true;
    dsb_ish();
    sev();
    pcpu_loop();
}
