/*
 * The platform probe's UARTs (platform.h): the console, found as Linux's
 * earlycon finds it, and the debugger's own UART if /chosen names one.
 */
#include <libfdt.h>
#include "platform_internal.h"
#include "hyp/dt/translate.h"

/* a path or an alias, ":options" cut, as a node */
static int console_path(const void *fdt, const char *sp, int len)
{
    if (!sp || len <= 1) {
        return -1;
    }
    const char *colon = memchr(sp, ':', (size_t)len);
    int n;
    if (colon != NULL) {
        ptrdiff_t before = colon - sp;
        n = (int)before;
    } else {
        n = (int)strnlen(sp, (size_t)len);
    }
    return dt_path_offset_namelen(fdt, sp, n);
}

static int first_driven_uart(const void *fdt);

/*
 * The console, as Linux's earlycon finds it (drivers/of/fdt.c,
 * early_init_dt_scan_chosen_stdout, and the serial core's alias order):
 * /chosen stdout-path; without one, /aliases/serial0; then the first
 * enabled UART (in DT order) that Partita has a driver for.
 */
static int find_console(const void *fdt, const char **found_by)
{
    int chosen = dt_path_offset(fdt, "/chosen"), node = -1, len;
    const char *names[] = { "stdout-path", "linux,stdout-path" };
    for (int i = 0; i < 2 && chosen >= 0 && node < 0; i++) {
        const char *sp = dt_getprop(fdt, chosen, names[i], &len);
        node = console_path(fdt, sp, len);
        *found_by = "stdout-path";
    }
    int aliases = dt_path_offset(fdt, "/aliases");
    if (node < 0 && aliases >= 0) {
        const char *sp = dt_getprop(fdt, aliases, "serial0", &len);
        node = console_path(fdt, sp, len);
        *found_by = "/aliases/serial0";
        if (node >= 0 && !plat_node_enabled(fdt, node)) {
            node = -1;
        }
    }
    if (node < 0) {
        node = first_driven_uart(fdt);
        *found_by = "the first UART with a driver";
    }
    return node;
}

/*
 * Console UARTs Partita drives, by compatible string, with the register
 * layout their Linux drivers assume when the DT does not say: OMAP UARTs
 * (8250_omap) have byte registers 4 bytes apart; Samsung's are 32-bit.
 */
static const struct uart_match {
    const char *compatible;
    enum uart_kind kind;
    uint32_t reg_shift, io_width;   /* defaults; reg-shift/reg-io-width override */
} uart_matches[] = {
    { "arm,pl011",                UART_PL011,   0, 4 },
    { "ns16550a",                 UART_NS16550, 0, 1 },
    { "ns16550",                  UART_NS16550, 0, 1 },
    { "ns16450",                  UART_NS16550, 0, 1 },
    { "snps,dw-apb-uart",         UART_NS16550, 0, 1 },
    { "nvidia,tegra20-uart",      UART_NS16550, 2, 1 },
    { "ti,omap4-uart",            UART_NS16550, 2, 1 },
    { "ti,omap3-uart",            UART_NS16550, 2, 1 },
    { "ti,omap2-uart",            UART_NS16550, 2, 1 },
    { "ti,am3352-uart",           UART_NS16550, 2, 1 },
    { "ti,dra742-uart",           UART_NS16550, 2, 1 },
    { "ti,am4372-uart",           UART_NS16550, 2, 1 },
    { "samsung,exynos4210-uart",  UART_SAMSUNG, 0, 4 },
    { "samsung,s5pv210-uart",     UART_SAMSUNG, 0, 4 },
    { "samsung,s3c6400-uart",     UART_SAMSUNG, 0, 4 },
    { "fsl,imx6q-uart",           UART_IMX,     0, 4 },
    { "fsl,imx21-uart",           UART_IMX,     0, 4 },
    { "st,stm32h7-uart",          UART_STM32,   0, 4 },
};

static int first_driven_uart(const void *fdt)
{
    int best = -1;
    for (unsigned int i = 0u; i < sizeof(uart_matches) / sizeof(uart_matches[0]); i++) {
        for (int n = dt_find_compatible(fdt, -1, uart_matches[i].compatible); n >= 0;
             n = dt_find_compatible(fdt, n, uart_matches[i].compatible)) {
            if (plat_node_enabled(fdt, n)) {
                if (best < 0 || n < best) {
                    best = n;       /* structure offsets run in DT order */
                }
                break;
            }
             }
    }
    return best;
}

const char *platform_uart_kind_name(enum uart_kind k)
{
    static const char *const names[] = { "none", "pl011", "ns16550", "samsung", "imx", "stm32" };
    return (unsigned int)k < sizeof(names) / sizeof(names[0]) ? names[k] : "none";
}

/*
 * u from the UART at node: its path, compatible, reg, interrupt and the
 * driver's register layout.  A UART Partita has no driver for is left
 * UART_NONE (its caller says what that means); what is named `what` in
 * the errors ("console UART", "debug UART").
 */
static int uart_fill(const void *fdt, int node, struct plat_uart *u, const char *what,
                     char *err, size_t errlen)
{
    if (dt_get_path(fdt, node, u->path, sizeof(u->path)) < 0) {
        plat_copy_str(u->path, sizeof(u->path), fdt_get_name(fdt, node, NULL));
    }
    plat_copy_str(u->compatible, sizeof(u->compatible), dt_getprop(fdt, node, "compatible", NULL));
    if (dt_node_reg(fdt, node, 0, &u->reg) < 0) {
        ERR("%s: %s without a usable reg", u->path, what);
    }
    int irq = dt_node_irq(fdt, node, 0);
    u->irq = irq > 0 ? (uint32_t)irq : 0u;
    const struct uart_match *m = NULL;
    for (unsigned int i = 0u; i < sizeof(uart_matches) / sizeof(uart_matches[0]) && !m; i++) {
        if (dt_is_compatible(fdt, node, uart_matches[i].compatible)) {
            m = &uart_matches[i];
        }
    }
    if (!m) {
        return 0;
    }
    u->reg_shift = (uint32_t)dt_cell_prop(fdt, node, "reg-shift", (int)m->reg_shift);
    u->io_width = (uint32_t)dt_cell_prop(fdt, node, "reg-io-width", (int)m->io_width);
    if (u->reg_shift > 2u || (u->io_width != 1u && u->io_width != 2u && u->io_width != 4u)) {
        ERR("%s: %s with an unsupported reg-shift %lu or reg-io-width %lu", u->path, what,
            (unsigned long)u->reg_shift, (unsigned long)u->io_width);
    }
    /* only now: the callers print through the UART even when probing fails */
    u->kind = m->kind;
    return 0;
}

/*
 * The debugger's own UART: /chosen's partita,debug-uart names a
 * second UART, by path or alias as stdout-path does (":options" cut), for
 * gdb's remote protocol alone, so that the console stays the monitor's.
 * Absent: gdb shares the console.  Named but unusable - no such node, a
 * disabled one, the console itself, no reg, no driver - is an error: the
 * property is never read and then ignored.  A part of its own, probed
 * last: its error is printed on the console, with the rest of the board
 * known.
 */
int plat_probe_debug_uart(const void *fdt, struct platform *p, char *err, size_t errlen)
{
    static const char prop[] = "/chosen/partita,debug-uart";
    int chosen = dt_path_offset(fdt, "/chosen"), len = 0;
    const char *name = chosen >= 0 ? dt_getprop(fdt, chosen, "partita,debug-uart", &len) : NULL;
    if (!name) {
        return 0;
    }
    int node = console_path(fdt, name, len);
    int shown = len > 0 ? (int)strnlen(name, (size_t)len) : 0;
    if (node < 0) {
        ERR("%s: no node or alias '%.*s'", prop, shown, name);
    }
    if (!plat_node_enabled(fdt, node)) {
        ERR("%s: '%.*s' is disabled", prop, shown, name);
    }
    if (uart_fill(fdt, node, &p->debug_uart, "debug UART (/chosen/partita,debug-uart)", err,
                  errlen) < 0) {
        return -1;
                  }
    /* the console's registers, whatever node or alias names them */
    if (p->debug_uart.reg.base == p->uart.reg.base) {
        ERR("%s: '%.*s' is the console: the debugger needs a UART of its own", prop, shown,
            name);
    }
    /* one handler per interrupt: the console's input would be lost */
    if (p->debug_uart.irq && p->debug_uart.irq == p->uart.irq) {
        ERR("%s: '%.*s' shares the console's interrupt %lu", prop, shown, name,
            (unsigned long)p->uart.irq);
    }
    p->debug_uart.found_by = prop;
    if (p->debug_uart.kind == UART_NONE) {
        ERR("%s: %s (%s): no driver for it", prop, p->debug_uart.path,
            p->debug_uart.compatible);
    }
    return 0;
}

int plat_probe_uart(const void *fdt, struct platform *p, char *err, size_t errlen)
{
    int node = find_console(fdt, &p->uart.found_by);
    if (node < 0) {
        ERR("no console UART: no /chosen stdout-path, no /aliases/serial0 and no enabled "
            "UART Partita has a driver for");
    }
    /* kind UART_NONE: the caller names the missing driver */
    return uart_fill(fdt, node, &p->uart, "console UART", err, errlen);
}
