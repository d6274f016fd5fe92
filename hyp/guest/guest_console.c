/*
 * A guest's console: its emulated PL011's output, line by line behind its
 * name (or raw while it has the console's focus) and held to its
 * console-rate; the input typed for it; its lifecycle lines; its virtio
 * console (hvc0), the other way to the same console.
 */
#include <stdarg.h>
#include <string.h>
#include <arch/sysregs.h>
#include "guest.h"
#include "guest_parts.h"
#include "hyp/lib/console.h"
#include "timer/timer.h"
#include "vgic/vgic.h"

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
            g->tx_dropped = 0u;
        }
    }
    return pass;
}

void guest_uart_tx(void *ctx, char c)
{
    struct guest *g = ctx;
    if (!guest_tx_budget(g)) {
        return;
    }
    /* kept for the control partition, whoever has the console */
    if (g->mg != NULL) {
        g->mg->out_ring[g->mg->out_total % GUEST_OUT_RING] = (uint8_t)c;
        g->mg->out_total++;
    }
    if (console_focus == g) {
        /* the focused guest owns the terminal: pass its output through */
        if (g->line_len != 0u) {
            console_write(g->line, g->line_len);
            g->line_len = 0u;
        }
        console_write_raw(&c, 1);
        return;
    }
    if (c == '\r') {
        return;
    }
    if (c != '\n') {
        g->line[g->line_len++] = c;
    }
    if (c == '\n' || g->line_len == sizeof(g->line) - 1u) {
        g->line[g->line_len] = '\0';
        console_printf("[%s] %s\n", g->cfg->name, g->line);
        g->line_len = 0u;
    }
}

/* Move typed input into the receive FIFO while it has room (uart_lock held) */
static void guest_uart_refill(struct guest *g)
{
    while (g->in_count && vuart_rx_push(&g->uart, g->input[g->in_head])) {
        g->in_head = (g->in_head + 1u) % sizeof(g->input);
        g->in_count--;
    }
}

/* Typed input into the virtio console's receive buffers (uart_lock held):
 * two calls at most (the ring's end, then its start), each bounded by
 * VCON_RX_DESCS_PER_CALL; one that takes less than it was given found no
 * more buffers or its budget spent, and the rest waits for the next
 * buffers the driver adds */
static void guest_vcon_refill(struct guest *g)
{
    while (g->in_count != 0u) {
        uint32_t run = sizeof(g->input) - g->in_head;
        uint32_t want = g->in_count < run ? g->in_count : run;
        uint32_t took = vcon_input(&g->vcon, &g->input[g->in_head], want);
        g->in_head = (g->in_head + took) % sizeof(g->input);
        g->in_count -= took;
        if (took < want) {
            break;
        }
    }
}

void guest_console_input(struct guest *g, char c)
{
    uint32_t f = spin_lock_irqsave(&g->uart_lock);
    if (g->in_count < sizeof(g->input)) {
        g->input[(g->in_head + g->in_count) % sizeof(g->input)] = (uint8_t)c;
        g->in_count++;
    }
    /* input goes to hvc0 once its driver takes it, else to the UART */
    if (g->state == GUEST_RUNNING && g->cfg->vcon && vcon_live(&g->vcon)) {
        guest_vcon_refill(g);
    } else if (g->state == GUEST_RUNNING) {
        guest_uart_refill(g);
    } else {
        /* otherwise nothing to do */
    }
    spin_unlock_irqrestore(&g->uart_lock, f);
}

uint32_t guest_console_inject(struct guest *g, const uint8_t *buf, uint32_t len)
{
    uint32_t f = spin_lock_irqsave(&g->uart_lock);
    uint32_t n = 0u;
    for (; n < len && g->in_count < sizeof(g->input); n++) {
        g->input[(g->in_head + g->in_count) % sizeof(g->input)] = buf[n];
        g->in_count++;
    }
    guest_uart_refill(g);
    spin_unlock_irqrestore(&g->uart_lock, f);
    return n;
}

uint32_t guest_console_recent(struct guest *g, uint8_t *buf, uint32_t len, uint32_t *pos,
                              uint32_t *lost)
{
    *lost = 0u;
    if (!g->mg) {
        return 0;
    }
    uint32_t f = spin_lock_irqsave(&g->uart_lock);
    uint32_t total = g->mg->out_total;
    uint32_t oldest = (total > GUEST_OUT_RING) ? (total - GUEST_OUT_RING) : 0u;
    *lost = 0u;
    if (*pos > total) {
        *pos = total;           /* a position from a previous count: start afresh */
    }
    if (*pos < oldest) {
        *lost = oldest - *pos;
        *pos = oldest;
    }
    uint32_t n = total - *pos < len ? total - *pos : len;
    for (uint32_t i = 0u; i < n; i++) {
        buf[i] = g->mg->out_ring[(*pos + i) % GUEST_OUT_RING];
    }
    *pos += n;
    spin_unlock_irqrestore(&g->uart_lock, f);
    return n;
}

/* ---- the virtio console: output to the same console, input from it ---- */

static void vcon_out(void *ctx, const uint8_t *p, uint32_t len)
{
    struct guest *g = ctx;
    uint32_t f = spin_lock_irqsave(&g->uart_lock);
    for (uint32_t i = 0u; i < len; i++) {
        guest_uart_tx(g, (char)p[i]);       /* held to its console-rate, as the UART */
    }
    spin_unlock_irqrestore(&g->uart_lock, f);
}

static void vcon_raise(void *ctx)
{
    struct guest *g = ctx;
    if (g->state != GUEST_RUNNING) {
        return;
    }
    dsb_ish();      /* the used ring before the interrupt */
    vgic_inject_edge(&g->vgic, 0, g->cfg->vcon_irq);
}

static void vcon_report(void *ctx, const char *why)
{
    struct guest *g = ctx;
    guest_log(g, "guest '%s': virtio console: device needs reset: %s\n", g->cfg->name, why);
}

static const struct vcon_ops guest_vcon_ops = { vcon_out, vcon_raise, vcon_report };

static bool guest_vcon_mmio(void *dev, struct mmio_access *a, uint32_t offset)
{
    struct guest *g = dev;
    bool ok = vcon_mmio(&g->vcon, a, offset);
    if (vcon_rx_notified(&g->vcon)) {       /* new receive buffers: input waiting? */
        uint32_t f = spin_lock_irqsave(&g->uart_lock);
        guest_vcon_refill(g);
        spin_unlock_irqrestore(&g->uart_lock, f);
    }
    return ok;
}

int guest_vcon_start(struct guest *g)
{
    const struct guest_config *c = g->cfg;
    if (!c->vcon) {
        return 0;
    }
    vcon_init(&g->vcon, &guest_vcon_ops, g);
    /* on the bus first: a device it cannot reach is never attached */
    if (guest_mmio_add(g, "virtio-console", c->vcon_ipa, VIRTIO_MMIO_SIZE, guest_vcon_mmio,
                       g) != 0) {
        return -1;
    }
    vcon_attach(&g->vcon, (struct gmem){ guest_ram_ipa(c), c->mem_size,
                                         (uint8_t *)(uintptr_t)c->mem_base });
    return 0;
}

void guest_vcon_stop(struct guest *g)
{
    if (guest_vm(g)->cfg->vcon) {
        vcon_detach(&g->vcon);
    }
}

void guest_vcon_print_stats(const struct guest *g)
{
    if (!g->cfg->vcon) {
        return;
    }
    const struct vcon *v = &g->vcon;
    /* counters of another CPU's making: a snapshot, each word read once */
    pr_info("  virtio console: bytes written %lu, received %lu, malformed rings %lu%s\n",
            (unsigned long)__atomic_load_n(&v->written, __ATOMIC_RELAXED),
            (unsigned long)__atomic_load_n(&v->received, __ATOMIC_RELAXED),
            (unsigned long)__atomic_load_n(&v->errors, __ATOMIC_RELAXED),
            (((uint32_t)__atomic_load_n(&v->dev.status, __ATOMIC_RELAXED) &
              VIRTIO_STATUS_NEEDS_RESET) != 0u) ? " (needs reset)" : "");
}

/* The guest's accesses to its PL011 but a lock-free FR read: one at a
 * time with the console's */
static bool __attribute__((noinline)) guest_uart_locked(struct guest *g, struct mmio_access *a,
                                                        uint32_t offset)
{
    uint32_t f = spin_lock_irqsave(&g->uart_lock);
    if (g->uart.tx_full && !a->write) {      /* spent: has the budget come back? */
        vuart_set_tx_full(&g->uart, !ratelimit_tokens(&g->tx_budget, timer_now(),
                                                      timer_freq() / g->cfg->console_rate,
                                                      g->cfg->console_burst));
    }
    bool ok = vuart_mmio(&g->uart, a, offset);
    if (!a->write && offset == 0u) {
        guest_uart_refill(g);       /* a byte left the FIFO: room for one */
    }
    spin_unlock_irqrestore(&g->uart_lock, f);
    return ok;
}

bool guest_uart_mmio(void *dev, struct mmio_access *a, uint32_t offset)
{
    struct guest *g = dev;
    /* FR, read around every character, changes nothing: no lock (and no
     * frame) while the budget is not spent (vuart_fr) */
    if (offset == (uint32_t)PL011_FR && !a->write &&
        !__atomic_load_n(&g->uart.tx_full, __ATOMIC_RELAXED)) {
        a->value = vuart_fr(&g->uart);
        return true;
    }
    return guest_uart_locked(g, a, offset);
}

void guest_log(struct guest *g, const char *fmt, ...)
{
    uint32_t dropped;
    uint32_t f = spin_lock_irqsave(&g->life_lock);
    bool pass = ratelimit_pass(&g->life_log, timer_now(), timer_freq() / GUEST_LOG_RATE,
                               GUEST_LOG_BURST, &dropped);
    spin_unlock_irqrestore(&g->life_lock, f);
    if (!pass) {
        return;
    }
    if (dropped != 0u) {
        pr_info("guest '%s': %lu lifecycle messages suppressed\n", g->cfg->name,
                (unsigned long)dropped);
    }
    va_list ap;
    va_start(ap, fmt);
    console_vprintf(fmt, ap);
    va_end(ap);
}

void guest_uart_irq(void *ctx, bool level)
{
    struct guest *g = ctx;
    vgic_set_level(&g->vgic, 0, VBOARD_UART_IRQ, level);
}
