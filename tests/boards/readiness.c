/*
 * Board readiness: run Partita's own platform probe (hyp/platform/platform.c, linked
 * in unchanged) over every board device tree in a directory and print a
 * Markdown table of what Partita finds and what each board lacks.
 *
 *   readiness DTB_DIR PACKAGE_NAME > docs/boards.md
 *
 * Boards are those whose CPUs are Cortex-A15, Cortex-A7 or Cortex-A17
 * (Linux DTs call the A17 "cortex-a12"): the cores with the
 * Virtualization Extensions.  Host program: libfdt from the host.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libfdt.h>
#include "hyp/platform/platform.h"
#include "hyp/platform/soc_smp.h"

struct board {
    char file[96];
    char soc[48];               /* the root's last compatible: the SoC family */
    bool uboot_psci;            /* its U-Boot adds PSCI (uboot_psci_socs) */
    char cores[32];
    unsigned int ncpus_dt;      /* every cpu node, not only the first 8 */
    struct platform p;
    char err[PLAT_NPARTS][160];
    bool failed[PLAT_NPARTS];
};

static void *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    rewind(f);
    void *buf = malloc((size_t)len);
    if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *n = (size_t)len;
    return buf;
}

/* The core types of the CPU nodes ("A15", "A15+A7"); false if none has VE. */
static bool board_cores(const void *fdt, struct board *b)
{
    static const struct { const char *compat, *name; } cores[] = {
        { "arm,cortex-a15", "A15" }, { "arm,cortex-a7", "A7" },
        { "arm,cortex-a17", "A17" }, { "arm,cortex-a12", "A17" },
    };
    bool seen[4] = { false };
    int cpus = fdt_path_offset(fdt, "/cpus"), node;
    if (cpus < 0)
        return false;
    fdt_for_each_subnode(node, fdt, cpus) {
        const char *dt = fdt_getprop(fdt, node, "device_type", NULL);
        if (!dt || strcmp(dt, "cpu") != 0)
            continue;
        b->ncpus_dt++;
        for (int i = 0; i < 4; i++)
            if (fdt_node_check_compatible(fdt, node, cores[i].compat) == 0)
                seen[i] = true;
    }
    b->cores[0] = '\0';
    for (int i = 0; i < 4; i++) {
        if (!seen[i] || strstr(b->cores, cores[i].name))
            continue;
        if (b->cores[0])
            strcat(b->cores, "+");
        strcat(b->cores, cores[i].name);
    }
    return b->cores[0] != '\0';
}

static void report(void *ctx, enum plat_part part, const char *err)
{
    struct board *b = ctx;
    b->failed[part] = true;
    snprintf(b->err[part], sizeof(b->err[part]), "%s", err);
}

/* Markdown cell text: no pipes */
static const char *cell(const char *s)
{
    static char buf[8][256];
    static int k;
    char *o = buf[k++ & 7];
    size_t i = 0;
    for (; *s && i + 1 < sizeof(buf[0]); s++)
        o[i++] = *s == '|' ? '/' : *s;
    o[i] = '\0';
    return o;
}

static void print_size(char *out, size_t n, uint64_t size)
{
    if (size >= (1ull << 30) && size % (1ull << 30) == 0)
        snprintf(out, n, "%llu GiB", (unsigned long long)(size >> 30));
    else
        snprintf(out, n, "%llu MiB", (unsigned long long)(size >> 20));
}

/*
 * SoC families whose U-Boot implements PSCI itself (CONFIG_ARMV7_PSCI:
 * arch/arm/cpu/armv7/sunxi/psci.c, mach-tegra, mx7, ls102xa, mach-stm32mp)
 * and adds the /psci node to the DT it passes on: on paper, Partita then
 * starts their CPUs by PSCI without a method of its own.
 */
static const char *const uboot_psci_socs[] = {
    "allwinner,sun6i-a31", "allwinner,sun7i-a20", "allwinner,sun8i-", "nvidia,tegra124",
    "fsl,imx7d", "fsl,imx7s", "fsl,ls1021a", "st,stm32mp15", NULL,
};

/* Board DTs that tests/system/test_boards.py boots in QEMU, unmodified */
static const char *const qemu_booted[] = {
    "vexpress-v2p-ca15-tc1", "sun8i-h3-orangepi-pc", "imx7d-sdb", "imx6ul-14x14-evk",
    "aspeed-ast2600-evb", NULL,
};

static bool booted_in_qemu(const char *file)
{
    for (int i = 0; qemu_booted[i]; i++)
        if (strcmp(file, qemu_booted[i]) == 0)
            return true;
    return false;
}

static bool uboot_psci(const void *fdt)
{
    int len;
    const char *c = fdt_getprop(fdt, 0, "compatible", &len);
    for (const char *s = c; c && s < c + len; s += strlen(s) + 1)
        for (int i = 0; uboot_psci_socs[i]; i++)
            if (strncmp(s, uboot_psci_socs[i], strlen(uboot_psci_socs[i])) == 0)
                return true;
    return false;
}

/* "<its last root compatible>: no PSCI, no enable-method" */
static void root_soc(const void *fdt, struct board *b)
{
    int len;
    const char *c = fdt_getprop(fdt, 0, "compatible", &len), *last = NULL;
    for (const char *s = c; c && s < c + len; s += strlen(s) + 1)
        last = s;
    snprintf(b->soc, sizeof(b->soc), "%s: no PSCI, no enable-method", last ? last : "SoC");
}

/* What starts the secondaries: one method for all, or a list. */
static void secondary_text(const struct board *b, char *out, size_t n, bool *ok)
{
    const struct platform *p = &b->p;
    *ok = true;
    if (p->ncpus <= 1) {
        snprintf(out, n, "- (1 CPU)");
        return;
    }
    const struct plat_cpu *c = &p->cpus[1];
    for (unsigned int i = 1; i < p->ncpus; i++)
        if (p->cpus[i].method != c->method)
            *ok = false;
    if (c->method == CPU_METHOD_PSCI)
        snprintf(out, n, "PSCI (%s)", platform_psci_conduit_name(p->psci.conduit));
    else if (c->method == CPU_METHOD_SOC)
        snprintf(out, n, "%s (Linux %s)", p->soc_smp.method->name, p->soc_smp.method->source);
    else if (c->method == CPU_METHOD_NONE && p->soc_smp.err[0])
        snprintf(out, n, "none: %s", p->soc_smp.err);
    else if (c->method == CPU_METHOD_NONE && c->enable_method[0])
        snprintf(out, n, "none: enable-method %s", c->enable_method);
    else if (c->method == CPU_METHOD_NONE)
        snprintf(out, n, "none: no PSCI, no enable-method");
    else
        snprintf(out, n, "%s", platform_cpu_method_name(c->method));
    if (c->method == CPU_METHOD_NONE)
        *ok = false;
}

/* how many boards give each verdict, and need each missing part */
struct tally {
    char what[160];
    unsigned int boards;
};
static struct tally verdicts[64], missing[64], starts[64];

static void count(struct tally *t, const char *what)
{
    unsigned int i = 0;
    while (i < 63 && t[i].boards && strcmp(t[i].what, what) != 0)
        i++;
    snprintf(t[i].what, sizeof(t[i].what), "%s", what);
    t[i].boards++;
}

static int by_boards(const void *a, const void *b)
{
    const struct tally *x = a, *y = b;
    return x->boards != y->boards ? (x->boards < y->boards) - (x->boards > y->boards)
                                  : strcmp(x->what, y->what);
}

static void print_tally(struct tally *t, const char *title)
{
    unsigned int n = 0;
    while (n < 64 && t[n].boards)
        n++;
    qsort(t, n, sizeof(*t), by_boards);
    printf("\n| %s | boards |\n| --- | --- |\n", title);
    for (unsigned int i = 0; i < n; i++)
        printf("| %s | %u |\n", t[i].what, t[i].boards);
}

static void add(char *out, size_t n, const char *what)
{
    size_t l = strlen(out);
    snprintf(out + l, n - l, "%s%s", l ? "; " : "", what);
}

static void print_row(struct board *b, unsigned int *ready, unsigned int *as_is)
{
    const struct platform *p = &b->p;
    char gic[160], timer[64], mem[64], uart[160], smp[96], need[400] = "", note[160] = "";
    bool smp_ok = true;

    if (b->failed[PLAT_PART_GIC]) {
        char *hint = strstr(b->err[PLAT_PART_GIC], " (QEMU:");
        if (hint)
            *hint = '\0';      /* the hint is for QEMU users, not boards */
        snprintf(gic, sizeof(gic), "**%s**", b->err[PLAT_PART_GIC]);
        add(need, sizeof(need), strstr(b->err[PLAT_PART_GIC], "GICH")
                                    ? "GICH/GICV regions in the DT" : "a GICv2");
    } else {
        snprintf(gic, sizeof(gic), "GICH 0x%08llx, GICV 0x%08llx, maintenance %u",
                 (unsigned long long)p->gic.gich.base, (unsigned long long)p->gic.gicv.base,
                 p->gic.maint_irq);
    }
    if (b->failed[PLAT_PART_TIMER]) {
        snprintf(timer, sizeof(timer), "**missing**");
        add(need, sizeof(need), "generic timer PPIs");
    } else {
        snprintf(timer, sizeof(timer), "%u/%u/%u/%u", p->timer.irq_sec_phys,
                 p->timer.irq_phys, p->timer.irq_virt, p->timer.irq_hyp);
    }
    if (b->failed[PLAT_PART_MEMORY]) {
        snprintf(mem, sizeof(mem), "from the bootloader");
        add(note, sizeof(note), "memory from the bootloader");
    } else {
        char sz[24];
        uint64_t total = 0;
        for (unsigned int i = 0; i < p->nmem; i++)
            total += p->mem[i].size;
        print_size(sz, sizeof(sz), total);
        snprintf(mem, sizeof(mem), "0x%08llx, %s", (unsigned long long)p->mem[0].base, sz);
    }
    if (b->failed[PLAT_PART_UART]) {
        snprintf(uart, sizeof(uart), "**none found** (no stdout-path, serial0 alias or "
                 "UART with a driver)");
        add(need, sizeof(need), "a console");
    } else if (p->uart.kind == UART_NONE) {
        snprintf(uart, sizeof(uart), "%s: **no driver**", p->uart.compatible);
        char what[96];
        snprintf(what, sizeof(what), "a %s console driver", p->uart.compatible);
        add(need, sizeof(need), what);
    } else {
        bool fallback = strcmp(p->uart.found_by, "stdout-path") != 0;
        snprintf(uart, sizeof(uart), "%s: %s, IRQ %u%s%s%s", p->uart.compatible,
                 platform_uart_kind_name(p->uart.kind), p->uart.irq,
                 fallback ? " (no stdout-path: " : "", fallback ? p->uart.found_by : "",
                 fallback ? ")" : "");
    }
    if (b->failed[PLAT_PART_CPUS]) {
        snprintf(smp, sizeof(smp), "**%s**", b->err[PLAT_PART_CPUS]);
        add(need, sizeof(need), "usable CPU nodes");
    } else {
        secondary_text(b, smp, sizeof(smp), &smp_ok);
        if (!smp_ok && b->uboot_psci) {
            add(note, sizeof(note), "secondary CPUs by U-Boot's PSCI");
        } else if (!smp_ok) {
            char what[160];
            if (p->soc_smp.err[0])      /* a method matched, the DT or the SoC defeats it */
                snprintf(what, sizeof(what), "secondary-CPU start: %s", p->soc_smp.err);
            else
                snprintf(what, sizeof(what), "secondary-CPU start (%s)",
                         p->cpus[1].enable_method[0] ? p->cpus[1].enable_method : b->soc);
            add(need, sizeof(need), what);
        }
    }
    char verdict[600];
    if (need[0]) {
        snprintf(verdict, sizeof(verdict), "needs %s", need);
    } else {
        snprintf(verdict, sizeof(verdict), "**ready**%s%s", note[0] ? " (" : "", note);
        if (note[0])
            strcat(verdict, ")");
        (*ready)++;
        *as_is += !note[0];
    }
    if (!need[0])
        count(starts, b->failed[PLAT_PART_CPUS] ? "-" : !smp_ok ? "U-Boot's PSCI" : smp);
    count(verdicts, need[0] ? "needs something (below)" : note[0] ? "ready, with U-Boot's help"
                                                                  : "ready as it is");
    for (char *item = need, *end; item && *item; item = end ? end + 2 : NULL) {
        end = strstr(item, "; ");
        char one[160];
        snprintf(one, sizeof(one), "%.*s", end ? (int)(end - item) : (int)strlen(item), item);
        count(missing, one);
    }
    char cpus[48];
    snprintf(cpus, sizeof(cpus), "%u x %s", b->ncpus_dt, b->cores);
    if (booted_in_qemu(b->file))
        strcat(verdict, ", booted in QEMU");
    printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", b->file, cell(p->model), cpus,
           cell(gic), timer, mem, cell(uart), cell(smp), cell(verdict));
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DTB_DIR PACKAGE\n", argv[0]);
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        perror(argv[1]);
        return 1;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".dtb") == 0) {
            names = realloc(names, (n + 1) * sizeof(*names));
            names[n++] = strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof(*names), by_name);

    printf("# Board readiness\n\n"
           "Generated by `make boards-table` (tests/boards/readiness.c) from the board device\n"
           "trees in Debian's `%s`, unmodified: every board whose CPUs\n"
           "are Cortex-A15, Cortex-A7 or Cortex-A17 (`cortex-a12` in Linux DTs), read by\n"
           "Partita's own platform probe (`hyp/platform/platform.c`, the SoC start methods of\n"
           "`hyp/platform/soc_smp*.c`). `tests/system/test_board_table.py` checks that this\n"
           "file is current. See docs/porting.md for what the columns mean for a port.\n"
           "\"booted in QEMU\" marks the DTs the system tests boot Partita and its guests\n"
           "with (QEMU's models of those boards); every other row is on paper.\n\n",
           argv[2]);
    printf("| DTB | model | CPUs | GIC virtualization | timer PPIs (sec/phys/virt/hyp) | memory | "
           "console | secondary CPUs | verdict |\n");
    printf("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    unsigned int boards = 0, ready = 0, as_is = 0;
    for (size_t i = 0; i < n; i++) {
        char path[512];
        size_t size;
        snprintf(path, sizeof(path), "%s/%s", argv[1], names[i]);
        void *fdt = read_file(path, &size);
        static struct board b;
        memset(&b, 0, sizeof(b));
        snprintf(b.file, sizeof(b.file), "%.*s", (int)(strlen(names[i]) - 4), names[i]);
        if (fdt && fdt_check_header(fdt) == 0 && board_cores(fdt, &b)) {
            platform_probe_all(fdt, &b.p, report, &b);
            b.uboot_psci = uboot_psci(fdt);
            root_soc(fdt, &b);
            print_row(&b, &ready, &as_is);
            boards++;
        }
        free(fdt);
        free(names[i]);
    }
    free(names);
    printf("\n%u boards: %u ready on paper, %u of them with nothing from the bootloader "
           "(the others need U-Boot to fill in /memory or add PSCI, as it does on those "
           "SoCs); the rest name what is missing.\n", boards, ready, as_is);
    printf("\n## Totals\n");
    print_tally(verdicts, "verdict");
    print_tally(missing, "still missing (a board may need several)");
    print_tally(starts, "secondary CPUs of the ready boards, started by");
    return 0;
}
