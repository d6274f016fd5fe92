/*
 * The monitor's `info`: the platform the hypervisor found (CPUs and their
 * start modes, the memory map, the GIC, the timer, its own footprint), the
 * cache colours and what each guest boots.  Also printed at boot.
 */
#include <stddef.h>
#include <arch/boot.h>
#include "monitor.h"
#include "monitor_cmds.h"
#include "hyp/guest/channel.h"
#include "hyp/lib/console.h"
#include "hyp/platform/hyp.h"
#include "hyp/platform/percpu.h"
#include "mm/hyp_mmu.h"
#include "timer/timer.h"
#include "vgic/gic.h"
#include "hyp/guest/guest.h"
#include "hyp/manage/manage.h"
#include "hyp/gdb/gdb_port.h"
#include "mm/page_alloc.h"
#include "mm/cache.h"
#include "mm/hyp_colour.h"

/* each coloured guest's colours and its share of the last-level cache */
static void print_colours(void)
{
    unsigned int level;
    struct cache_geom geom;
    if (!cache_llc(&level, &geom)) {
        return;
    }
    unsigned long llc_kib = (unsigned long)(geom.line * geom.sets / 1024u * geom.ways);
    const struct colour_list *h = hyp_colour_list();
    if (h != NULL) {
        char list[64];
        colour_format(h, list, sizeof(list));
        pr_info("colors: hypervisor: %s, %u of %u: %lu KiB of the %lu KiB L%u\n", list, h->k,
                h->n, llc_kib * h->k / h->n, llc_kib, level + 1u);
    }
    for (unsigned int i = 0u; i < nguests; i++) {
        const struct colour_list *l = &guests[i].cfg->colours;
        char list[64];
        if (!l->n) {
            continue;
        }
        colour_format(l, list, sizeof(list));
        pr_info("colors: guest '%s': %s, %u of %u: %lu KiB of the %lu KiB L%u\n",
                guests[i].cfg->name, list, l->k, l->n, llc_kib * l->k / l->n, llc_kib,
                level + 1u);
    }
}

void cmd_info(int argc, char **argv)
{
    hyp_print_info();
    print_colours();
    /* what each guest boots: the configured image or one given at run time */
    for (unsigned int i = 0u; i < nguests; i++) {
        struct guest *g = &guests[i];
        pr_info("image: guest '%s': %s, %lu bytes, crc32 0x%08lx\n", g->cfg->name,
                guest_image_loaded(g) ? "loaded" : guest_image_loading(g) ? "configured (loading)"
                                                               : "configured",
                (unsigned long)(g->cfg->kernel_size + g->cfg->initrd_size),
                (unsigned long)guest_image_crc(g));
    }
}

/* The KiB from start to end, two of the linker's symbols (linker.ld) in
 * the one image, end at or after start */
static unsigned long span_kib(const char *start, const char *end)
{
    ptrdiff_t n = end - start;
    return (unsigned long)n >> 10;
}

void hyp_print_info(void)
{
    uint64_t fs, fe;
    hyp_footprint(&fs, &fe);
    pr_info("platform: %s\n", host.model[0] ? host.model : "(no model)");
    pr_info("cpus: %u in the device tree, %u online\n", host.ncpus, pcpu_online_count());
    for (unsigned int i = 0u; i < MAX_CPUS; i++) {
        if (!pcpus[i].online && !pcpus[i].parked && i != 0u && !pcpus[i].mpidr) {
            continue;
        }
        pr_info("  cpu%u  MPIDR 0x%08lx  start mode %-14s %s\n", i,
                (unsigned long)pcpus[i].mpidr, start_mode_name(pcpus[i].start_mode),
                pcpus[i].online ? "online" : pcpus[i].parked ? "stopped (fatal)" : "offline");
    }
    pr_info("memory map:\n");
    for (unsigned int i = 0u; i < host.nmem; i++) {
        pr_info("  RAM        0x%08llx-0x%08llx  %llu MiB\n", host.mem[i].base,
                host.mem[i].base + host.mem[i].size, host.mem[i].size >> 20);
    }
    for (unsigned int i = 0u; i < host.nrsv; i++) {
        pr_info("  reserved   0x%08llx-0x%08llx\n", host.rsv[i].base,
                host.rsv[i].base + host.rsv[i].size);
    }
    pr_info("  partita    0x%08llx-0x%08llx  %llu KiB\n", fs, fe, (fe - fs) >> 10);
    channel_print_map();
    pr_info("  GICD 0x%08llx  GICC 0x%08llx  GICH 0x%08llx  GICV 0x%08llx\n",
            host.gic.gicd.base, host.gic.gicc.base, host.gic.gich.base, host.gic.gicv.base);
    pr_info("  UART %s 0x%08llx IRQ %lu\n", host.uart.path, host.uart.reg.base,
            (unsigned long)host.uart.irq);
    if (gdb_port_uart() != NULL) {
        pr_info("  debug UART %s 0x%08llx IRQ %lu\n", host.debug_uart.path,
                host.debug_uart.reg.base, (unsigned long)host.debug_uart.irq);
    }
    pr_info("gic: %s, %u IRQs, %u CPU interfaces, maintenance IRQ %lu\n",
            host.gic.compatible, gic_get_info()->nr_irqs, gic_get_info()->nr_cpus_if,
            (unsigned long)host.gic.maint_irq);
    pr_info("timer: %lu Hz; IRQs: secure %lu, physical %lu, virtual %lu, hypervisor %lu\n",
            (unsigned long)timer_freq(), (unsigned long)host.timer.irq_sec_phys,
            (unsigned long)host.timer.irq_phys, (unsigned long)host.timer.irq_virt,
            (unsigned long)host.timer.irq_hyp);
    pr_info("footprint: text %lu KiB, data+bss %lu KiB, stacks %lu KiB, "
            "HYP page tables %u pages\n",
            span_kib(__text_start, __text_end), span_kib(__data_start, __stacks_start),
            span_kib(__stacks_start, __stacks_end), hyp_mmu_pages_used());
    pr_info("hypervisor memory: %u KiB free of %u KiB\n", page_free_count() * 4u,
            page_total_count() * 4u);
    pr_info("uptime: %llu s\n", timer_ticks_to_us(timer_now() - hyp_boot_ticks) / 1000000u);
}
