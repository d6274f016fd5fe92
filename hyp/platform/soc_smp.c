/*
 * The SoC start-method table (soc_smp.h): matching a DT to a family's
 * method, and the plan runner boot/smp.c and the unit tests share.
 */
#include <string.h>
#include <stdio.h>
#include "soc_smp.h"
#include "hyp/dt/dt_index.h"
#include "hyp/dt/translate.h"

/* every family's methods, each array ending with a NULL key */
static const struct soc_smp_method *const families[] = {
    soc_smp_omap5, soc_smp_rockchip, soc_smp_aspeed, soc_smp_exynos, soc_smp_sunxi,
};

static bool matches(const void *fdt, const struct platform *p, const struct soc_smp_method *m)
{
    if (!m->by_enable_method) {
        return dt_is_compatible(fdt, 0, m->key);
    }
    for (unsigned int i = 0u; i < p->ncpus; i++) {
        if (strcmp(p->cpus[i].enable_method, m->key) == 0) {
            return true;
        }
    }
    return false;
}

static const struct soc_smp_method *find_method(const void *fdt, const struct platform *p)
{
    for (unsigned int f = 0u; f < sizeof(families) / sizeof(families[0]); f++) {
        for (const struct soc_smp_method *m = families[f]; m->key; m++) {
            if (matches(fdt, p, m)) {
                return m;
            }
        }
    }
    return NULL;
}

void soc_smp_probe(const void *fdt, struct platform *p)
{
    struct plat_soc_smp *s = &p->soc_smp;
    bool needed = false;
    for (unsigned int i = 0u; i < p->ncpus; i++) {
        needed |= p->cpus[i].method == CPU_METHOD_NONE;
    }
    if (!needed) {
        return;
    }
    const struct soc_smp_method *m = find_method(fdt, p);
    if (!m) {
        return;
    }
    if (m->probe(fdt, p, s, s->err, sizeof(s->err)) != 0) {
        return;         /* s->err says what the DT lacks */
    }
    s->method = m;
    for (unsigned int i = 0u; i < p->ncpus; i++) {
        if (p->cpus[i].method == CPU_METHOD_NONE) {
            p->cpus[i].method = CPU_METHOD_SOC;
        }
    }
}

unsigned int soc_smp_plan(const struct platform *p, const struct plat_cpu *c, uint32_t entry_pa,
                          struct soc_step st[SOC_MAX_STEPS])
{
    const struct soc_smp_method *m = p->soc_smp.method;
    if (c->method != CPU_METHOD_SOC || !m) {
        return 0;
    }
    return m->plan(&p->soc_smp, c, entry_pa, st);
}

int soc_smp_run(const struct soc_step *st, unsigned int n, const struct soc_io *io)
{
    for (unsigned int i = 0u; i < n; i++) {
        const struct soc_step *s = &st[i];
        uint32_t waited = 0u;
        switch (s->op) {
        case STEP_WRITE:
            io->write32(io->ctx, s->pa, s->value);
            break;
        case STEP_UPDATE:
            io->write32(io->ctx, s->pa, (io->read32(io->ctx, s->pa) & ~s->mask) | s->value);
            break;
        case STEP_POLL:
            while ((io->read32(io->ctx, s->pa) & s->mask) != s->value) {
                if (waited++ >= SOC_POLL_TIMEOUT_US) {
                    return (int)i + 1;
                }
                io->delay_us(io->ctx, 1);
            }
            break;
        case STEP_DELAY_US:
            io->delay_us(io->ctx, s->value);
            break;
        default:
            break;
        }
    }
    return 0;
}

int soc_smp_node_reg(const void *fdt, const char *compat, uint64_t *base, uint64_t min_size)
{
    for (int n = dt_find_compatible(fdt, -1, compat); n >= 0;
         n = dt_find_compatible(fdt, n, compat)) {
        const char *st = dt_getprop(fdt, n, "status", NULL);
        struct plat_range r;
        if (st && strcmp(st, "okay") != 0 && strcmp(st, "ok") != 0) {
            continue;
        }
        if (dt_node_reg(fdt, n, 0, &r) == 0 && r.size >= min_size) {
            *base = r.base;
            return 0;
        }
    }
    return -1;
}
