/*
 * Guest lifecycle: start (scrub memory, load the pristine images, write the
 * DT, build Stage-2, power on vCPU 0), stop, halt, crash and restart.
 * Starting and restarting happen on the boot CPU; any CPU may ask for them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include <arch/sysregs.h>
#include "guest.h"
#include "guest_dt.h"
#include "channel.h"
#include "guest_vgic.h"
#include "hyp/lib/console.h"
#include "hyp/platform/hyp.h"
#include "hyp/platform/percpu.h"
#include "hyp/sched/sched.h"
#include "hyp/trap/traps.h"
#include "mm/cache.h"
#include "mm/page_alloc.h"
#include "mm/hyp_mmu.h"
#include "timer/timer.h"
#include "timer/hyp_timer.h"
#include "hyp/sched/sched_share.h"
#include "vgic/gic.h"
#include "vgic/vgic_hw.h"

/* zeroed by guests_init, the configured ones only: not with .bss */
struct guest guests[GUEST_MAX] __attribute__((section(".noinit.guests")));
unsigned int nguests;

#define GUEST_DTB_MAX 0x10000
/* fdt_create() initializes what it uses: not zeroed at boot */
static uint8_t dt_scratch[GUEST_DTB_MAX] __attribute__((aligned(8), section(".noinit.dt_scratch")));

/* Stage-2 tables come from the hypervisor page pool (identity mapped) */
static void *s2_alloc(void *ctx, uint64_t *pa)
{
    void *p = page_alloc(1, 1);
    if (p)
        *pa = (uint32_t)p;
    return p;
}
static void s2_free(void *ctx, void *va) { page_free(va, 1); }
static void *s2_va(void *ctx, uint64_t pa) { return (void *)(uint32_t)pa; }
static const struct s2_mm_ops s2_ops = { s2_alloc, s2_free, s2_va, NULL };

const char *guest_state_name(enum guest_state s)
{
    switch (s) {
    case GUEST_STOPPED: return "stopped";
    case GUEST_RUNNING: return "running";
    case GUEST_HALTED: return "halted";
    case GUEST_CRASHED: return "crashed";
    }
    return "?";
}

/* ---- the guest's console: output line by line behind its name ---- */

struct guest *volatile console_focus;

/* Take one character from g's console budget (uart_lock held) */
static bool guest_tx_budget(struct guest *g)
{
    uint32_t dropped, unused;
    uint64_t now = timer_now();
    bool pass = ratelimit_pass(&g->tx_budget, now, timer_freq() / g->cfg->console_rate,
                               g->cfg->console_burst, &dropped);
    vuart_set_tx_full(&g->uart, !pass || g->tx_budget.used >= g->cfg->console_burst);
    if (pass && dropped) {
        g->tx_dropped += dropped;
        if (ratelimit_pass(&g->tx_notice, now, timer_freq(), 1, &unused)) {
            pr_info("guest '%s': %lu console characters dropped (rate limit)\n",
                    g->cfg->name, (unsigned long)g->tx_dropped);
            g->tx_dropped = 0;
        }
    }
    return pass;
}

static void guest_uart_tx(void *ctx, char c)
{
    struct guest *g = ctx;
    if (!guest_tx_budget(g))
        return;
    if (console_focus == g) {
        /* the focused guest owns the terminal: pass its output through */
        if (g->line_len) {
            console_write(g->line, g->line_len);
            g->line_len = 0;
        }
        console_write_raw(&c, 1);
        return;
    }
    if (c == '\r')
        return;
    if (c != '\n')
        g->line[g->line_len++] = c;
    if (c == '\n' || g->line_len == sizeof(g->line) - 1) {
        g->line[g->line_len] = '\0';
        console_printf("[%s] %s\n", g->cfg->name, g->line);
        g->line_len = 0;
    }
}

/* Move typed input into the receive FIFO while it has room (uart_lock held) */
static void guest_uart_refill(struct guest *g)
{
    while (g->in_count && vuart_rx_push(&g->uart, g->input[g->in_head])) {
        g->in_head = (g->in_head + 1) % sizeof(g->input);
        g->in_count--;
    }
}

void guest_console_input(struct guest *g, char c)
{
    uint32_t f = spin_lock_irqsave(&g->uart_lock);
    if (g->in_count < sizeof(g->input)) {
        g->input[(g->in_head + g->in_count) % sizeof(g->input)] = (uint8_t)c;
        g->in_count++;
    }
    if (g->state == GUEST_RUNNING)
        guest_uart_refill(g);
    spin_unlock_irqrestore(&g->uart_lock, f);
}

/* The guest's accesses to its PL011: one at a time with the console's */
static bool guest_uart_mmio(void *dev, struct mmio_access *a, uint32_t offset)
{
    struct guest *g = dev;
    uint32_t f = spin_lock_irqsave(&g->uart_lock);
    if (g->uart.tx_full && !a->write)      /* spent: has the budget come back? */
        vuart_set_tx_full(&g->uart, !ratelimit_tokens(&g->tx_budget, timer_now(),
                                                      timer_freq() / g->cfg->console_rate,
                                                      g->cfg->console_burst));
    bool ok = vuart_mmio(&g->uart, a, offset);
    if (!a->write && offset == 0)
        guest_uart_refill(g);       /* a byte left the FIFO: room for one */
    spin_unlock_irqrestore(&g->uart_lock, f);
    return ok;
}

void guest_log(struct guest *g, const char *fmt, ...)
{
    uint32_t dropped;
    uint32_t f = spin_lock_irqsave(&g->life_lock);
    bool pass = ratelimit_pass(&g->life_log, timer_now(), timer_freq() / GUEST_LOG_RATE,
                               GUEST_LOG_BURST, &dropped);
    spin_unlock_irqrestore(&g->life_lock, f);
    if (!pass)
        return;
    if (dropped)
        pr_info("guest '%s': %lu lifecycle messages suppressed\n", g->cfg->name,
                (unsigned long)dropped);
    va_list ap;
    va_start(ap, fmt);
    console_vprintf(fmt, ap);
    va_end(ap);
}

/* ---- the watchdog: checked on the boot CPU's hypervisor timer ---- */

static uint64_t ms_to_ticks(uint32_t ms)
{
    return (uint64_t)ms * timer_freq() / 1000;
}

/* Boot CPU: the earliest armed deadline on the hypervisor timer */
static void watchdog_check(void);
static void watchdog_arm(void)
{
    uint64_t next = 0;
    for (unsigned int i = 0; i < nguests; i++) {
        uint64_t d = guests[i].wd_deadline;
        if (d && (!next || d < next))
            next = d;
    }
    if (next)
        hyp_timer_set(HYP_TIMER_WATCHDOG, next, watchdog_check);
    else
        hyp_timer_cancel(HYP_TIMER_WATCHDOG);
}

/* Interrupt context on the boot CPU: flag what expired, act outside it */
static void watchdog_check(void)
{
    uint64_t now = timer_now();
    bool any = false;
    for (unsigned int i = 0; i < nguests; i++) {
        struct guest *g = &guests[i];
        if (g->wd_deadline && now >= g->wd_deadline && g->state == GUEST_RUNNING) {
            g->wd_deadline = 0;
            g->wd_expired = true;
            any = true;
        }
    }
    if (any)
        sched_cpu0_work();
    watchdog_arm();
}

int guest_watchdog_feed(struct guest *g)
{
    if (!g->cfg->watchdog_ms || g->state != GUEST_RUNNING)
        return -1;
    /* the boot CPU's timer fires at the old deadline and finds this one */
    g->wd_deadline = timer_now() + ms_to_ticks(g->cfg->watchdog_ms);
    return 0;
}

uint64_t guest_uptime_s(const struct guest *g)
{
    if (g->state != GUEST_RUNNING)
        return 0;
    return timer_ticks_to_us(timer_now() - g->start_ticks) / 1000000;
}

static void guest_uart_irq(void *ctx, bool level)
{
    struct guest *g = ctx;
    vgic_set_level(&g->vgic, 0, VBOARD_UART_IRQ, level);
}

void guests_init(const struct system_config *sys)
{
    nguests = sys->nguests;
    for (unsigned int i = 0; i < nguests; i++) {
        struct guest *g = &guests[i];
        memset(g, 0, sizeof(*g));
        g->cfg = &sys->guests[i];
        g->id = i;
        g->vmid = (uint8_t)(i + 1);     /* VMID 0 is never used by a guest */
        g->state = GUEST_STOPPED;
        for (unsigned int v = 0; v < g->cfg->ncpus; v++) {
            g->vcpu[v].guest = g;
            g->vcpu[v].id = v;
            g->vcpu[v].pcpu = g->cfg->cpus[v];
            g->vcpu[v].vmpidr = 0x80000000u | v;    /* MP format, Aff0 = vCPU */
            vcpu_psci_init(&g->vcpu[v]);
            sched_assign(&g->vcpu[v]);
        }
    }
    channels_init(sys);
}

struct guest *guest_by_name(const char *name)
{
    for (unsigned int i = 0; i < nguests; i++)
        if (strcmp(guests[i].cfg->name, name) == 0)
            return &guests[i];
    return NULL;
}

struct vcpu *guest_vcpu_by_mpidr(struct guest *g, uint32_t mpidr)
{
    /* only Aff0 is used: vCPU i is MPIDR i */
    if ((mpidr & 0x00ffff00u) || (mpidr & 0xff) >= g->cfg->ncpus)
        return NULL;
    return &g->vcpu[mpidr & 0xff];
}

static const char *cpu_compatible(void)
{
    uint32_t part = (sysreg_read_midr() >> 4) & 0xfff;
    return part == 0xc07 ? "arm,cortex-a7" : part == 0xc0e ? "arm,cortex-a17"
                                                          : "arm,cortex-a15";
}

/* Load the images and the DT; returns the IPA of vCPU 0's entry. */
static int guest_load(struct guest *g, uint32_t *entry, uint32_t *dtb_ipa)
{
    const struct guest_config *c = g->cfg;
    uint8_t *ram = (uint8_t *)(uint32_t)c->mem_base;    /* identity mapped */
    uint32_t ipa = (uint32_t)guest_ram_ipa(c);
    uint32_t window = c->mem_size > 0x10000000u ? 0x10000000u : (uint32_t)c->mem_size;
    struct guest_dt_info info = { ipa, 0, 0, cpu_compatible(), host_fdt };

    /* scrub: nothing of a previous life or another guest survives; the
     * guest starts with its MMU and caches off and reads memory directly,
     * so every line goes to the point of coherency (QEMU has no caches to
     * show a mistake here) */
    dcache_zero_clean(ram, (uint32_t)c->mem_size);
    uint32_t dtb_off = (window - GUEST_DTB_MAX) & ~7u;
    if (c->format == KERNEL_LINUX) {
        memcpy(ram + LINUX_ZIMAGE_OFFSET, c->kernel, c->kernel_size);
        *entry = ipa + LINUX_ZIMAGE_OFFSET;
        if (c->initrd_size) {
            uint32_t off = (dtb_off - c->initrd_size) & ~0xfffu;
            memcpy(ram + off, c->initrd, c->initrd_size);
            info.initrd_ipa = ipa + off;
            info.initrd_size = c->initrd_size;
        }
    } else {
        memcpy(ram + c->load_offset, c->kernel, c->kernel_size);
        *entry = ipa + c->entry_offset;
    }
    int size = guest_dt_build(dt_scratch, GUEST_DTB_MAX, c, &info);
    if (size < 0) {
        pr_err("guest '%s': cannot write its device tree: %s\n", c->name, fdt_strerror(size));
        return -1;
    }
    memcpy(ram + dtb_off, dt_scratch, (size_t)size);
    *dtb_ipa = ipa + dtb_off;
    /* what was copied over the scrubbed RAM, to the point of coherency too;
     * and no stale instructions */
    if (c->format == KERNEL_LINUX) {
        dcache_clean_range(ram + LINUX_ZIMAGE_OFFSET, c->kernel_size);
        if (c->initrd_size)
            dcache_clean_range(ram + (info.initrd_ipa - ipa), c->initrd_size);
    } else {
        dcache_clean_range(ram + c->load_offset, c->kernel_size);
    }
    dcache_clean_range(ram + dtb_off, (uint32_t)size);
    icache_invalidate_all();
    return 0;
}

static int guest_build_s2(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    s2_destroy(&g->s2);
    if (s2_init(&g->s2, &s2_ops) != 0)
        return -1;
    if (s2_map(&g->s2, guest_ram_ipa(c), c->mem_base, c->mem_size, S2_RWX) != 0)
        return -1;
    /* the guest's GIC CPU interface is the hardware GICV (brief section 4) */
    if (s2_map(&g->s2, VBOARD_GICC_IPA, host.gic.gicv.base, VBOARD_GICC_SIZE,
               S2_RW | S2_DEVICE) != 0)
        return -1;
    for (unsigned int i = 0; i < c->npt_regs; i++)
        if (s2_map(&g->s2, c->pt_regs[i].base, c->pt_regs[i].base, c->pt_regs[i].size,
                   S2_RW | S2_DEVICE) != 0)
            return -1;
    if (channel_map(c, &g->s2) != 0)
        return -1;
    /*
     * The walker reads the new tables through the cache (VTCR: WB, inner
     * shareable): a DSB makes them visible.  The VMID served the earlier
     * lives of this guest: drop its stage-1/2 entries on all CPUs, and only
     * its own - TLBIALLIS executed in Hyp mode acts on the VMID in VTTBR
     * (B4.2.2, as KVM's __kvm_tlb_flush_vmid does), so a guest restarting in
     * a loop does not cost the others their TLBs.  This CPU runs no guest
     * now (HCR.VM is clear in HYP); its VTTBR is put back all the same.
     * QEMU flushes every entry whatever the VMID: a mistake here would only
     * show on hardware.
     */
    dsb_ish();
    uint64_t vttbr = sysreg_read_vttbr();
    sysreg_write_vttbr(s2_vttbr(&g->s2, g->vmid));
    isb();
    sysreg_op_tlbiallis(0);
    dsb_ish();
    sysreg_write_vttbr(vttbr);
    isb();
    return 0;
}

static bool guest_vcpus_idle(struct guest *g)
{
    for (unsigned int i = 0; i < g->cfg->ncpus; i++)
        if (g->vcpu[i].loaded)
            return false;
    return true;
}

/* Ask every vCPU of g to leave its physical CPU. */
static void guest_kick_all(struct guest *g, uint32_t req)
{
    for (unsigned int i = 0; i < g->cfg->ncpus; i++) {
        __atomic_or_fetch(&g->vcpu[i].requests, req, __ATOMIC_SEQ_CST);
        vcpu_kick(&g->vcpu[i]);
    }
}

int guest_start(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    if (g->state == GUEST_RUNNING)
        return -1;
    if (!guest_vcpus_idle(g)) {
        pr_err("guest '%s': its vCPUs are still leaving their CPUs\n", c->name);
        return -1;
    }
    uint32_t entry, dtb;
    if (guest_load(g, &entry, &dtb) != 0 || guest_build_s2(g) != 0) {
        pr_err("guest '%s': out of hypervisor memory for its tables\n", c->name);
        g->state = GUEST_CRASHED;
        return -1;
    }
    memset(&g->mmio, 0, sizeof(g->mmio));
    vuart_init(&g->uart, guest_uart_tx, guest_uart_irq, g);
    /* the distributor first: the bus is searched in order, and it is the
     * device guests touch most (every interrupt enable, every IPI) */
    mmio_register(&g->mmio, VBOARD_GICD_IPA, 0x1000, vgic_dist_handler, &g->vgic);
    mmio_register(&g->mmio, VBOARD_UART_IPA, 0x1000, guest_uart_mmio, g);
    channel_guest_start(g);
    g->in_count = 0;
    g->aborts = 0;
    g->line_len = 0;
    g->dtb_ipa = dtb;
    g->wd_expired = false;
    g->wd_deadline = c->watchdog_ms ? timer_now() + ms_to_ticks(c->watchdog_ms) : 0;
    if (g->wd_deadline && this_cpu()->index == 0)
        watchdog_arm();
    /* guest virtual time starts near zero (CNTVCT = CNTPCT - CNTVOFF) */
    g->cntvoff = timer_now();
    g->start_ticks = g->cntvoff;
    g->starts++;
    for (unsigned int i = 0; i < c->ncpus; i++) {
        struct vcpu *v = &g->vcpu[i];
        v->power = VCPU_OFF;
        v->requests = 0;
        memset(v->traps, 0, sizeof(v->traps));
    }
    guest_vgic_init(g);
    /* vCPU 0 boots like Linux wants it (r0 = 0, r1 = ~0, r2 = DTB); its
     * own CPU resets it, so per-CPU state is cleaned where it lives */
    struct vcpu *v0 = &g->vcpu[0];
    v0->on_entry = entry;
    v0->on_r[0] = 0;
    v0->on_r[1] = 0xffffffffu;
    v0->on_r[2] = dtb;
    v0->power = VCPU_ON_PENDING;
    v0->requests = VCPU_REQ_POWER_ON;
    dsb_ish();
    g->state = GUEST_RUNNING;
    dsb_ish();
    vcpu_kick(v0);
    return 0;
}

void guest_stop(struct guest *g)
{
    /* an expiry flagged or a reset asked for before the stop must not
     * start it again afterwards */
    g->wd_deadline = 0;
    g->wd_expired = false;
    uint32_t f = spin_lock_irqsave(&g->life_lock);
    if (g->state == GUEST_RUNNING)
        g->state = GUEST_STOPPED;
    g->restart_pending = false;
    spin_unlock_irqrestore(&g->life_lock, f);
    guest_kick_all(g, VCPU_REQ_STOP);
    uint64_t t0 = timer_now();
    while (!guest_vcpus_idle(g) && timer_ticks_to_us(timer_now() - t0) < 1000000)
        ;
    if (!guest_vcpus_idle(g))
        pr_err("guest '%s': a vCPU did not leave its CPU\n", g->cfg->name);
    guest_vgic_release(g);
}

/*
 * A vCPU ends its guest's life (SYSTEM_OFF, SYSTEM_RESET, a crash) while
 * the monitor may be stopping it on the boot CPU: only a running guest
 * changes state here, under its life lock, so a stop is never undone by a
 * restart asked for a moment before.  Returns false if it was not running.
 */
static bool guest_end_life(struct guest *g, enum guest_state to, bool restart)
{
    uint32_t f = spin_lock_irqsave(&g->life_lock);
    bool running = g->state == GUEST_RUNNING;
    if (running) {
        g->restart_pending = restart;
        g->state = to;
    }
    spin_unlock_irqrestore(&g->life_lock, f);
    guest_kick_all(g, VCPU_REQ_STOP);
    return running;
}

void guest_halt(struct guest *g)
{
    if (guest_end_life(g, GUEST_HALTED, false))
        guest_log(g, "guest '%s' halted (PSCI SYSTEM_OFF)\n", g->cfg->name);
}

void guest_request_restart(struct guest *g)
{
    if (guest_end_life(g, GUEST_STOPPED, true))
        sched_cpu0_work();
}

void guest_crash(struct vcpu *v, const char *why, uint32_t hsr, uint32_t far)
{
    struct guest *g = v->guest;
    bool restart = g->cfg->on_crash == ON_CRASH_RESTART;
    if (!guest_end_life(g, GUEST_CRASHED, restart))
        return;         /* stopped meanwhile, or another vCPU crashed it first */
    struct guest_crash *k = &g->crash;
    k->pc = v->regs.pc;
    k->cpsr = v->regs.cpsr;
    k->hsr = hsr;
    k->far = far;
    snprintf(k->why, sizeof(k->why), "%s", why);
    guest_log(g, "guest '%s' crashed on vCPU %u: %s: PC 0x%08lx mode 0x%02lx HSR 0x%08lx "
            "FAR 0x%08lx\n", g->cfg->name, v->id, why, (unsigned long)k->pc,
            (unsigned long)(k->cpsr & PSR_MODE_MASK), (unsigned long)hsr, (unsigned long)far);
    if (restart)
        sched_cpu0_work();
}

void guests_service(void)
{
    for (unsigned int i = 0; i < nguests; i++) {
        struct guest *g = &guests[i];
        if (g->wd_expired) {
            g->wd_expired = false;
            g->wd_fires++;
            bool restart = g->cfg->watchdog_action == ON_CRASH_RESTART;
            guest_log(g, "guest '%s': watchdog expired (not fed for %lu ms): %s\n", g->cfg->name,
                    (unsigned long)g->cfg->watchdog_ms, restart ? "restarting" : "stopping");
            guest_stop(g);
            g->state = GUEST_STOPPED;
            if (restart)
                guest_start(g);
            continue;
        }
        if (!g->restart_pending || !guest_vcpus_idle(g))
            continue;
        uint32_t f = spin_lock_irqsave(&g->life_lock);
        bool restart = g->restart_pending;
        g->restart_pending = false;
        g->state = GUEST_STOPPED;
        spin_unlock_irqrestore(&g->life_lock, f);
        if (!restart)
            continue;
        guest_log(g, "guest '%s': restarting\n", g->cfg->name);
        guest_start(g);
    }
}
