/*
 * Secondary CPU bring-up: PSCI CPU_ON through the host DT's conduit; a
 * release address (spin-table cpu-release-addr, the Versatile Express
 * system flags) that a firmware pen waits on; or, in a secure start (where
 * Partita is the firmware and no PSCI exists), the release of a CPU waiting
 * in Partita's own pen.  Each CPU then builds nothing: it turns its MMU on
 * with the tables CPU 0 made (boot/entry.S).
 */
#include <arch/boot.h>
#include <arch/sysregs.h>
#include "smp.h"
#include "hyp/platform/cpu_release.h"
#include "hyp/platform/soc_smp.h"
#include "hyp/lib/console.h"
#include "hyp/platform/percpu.h"
#include "mm/cache.h"
#include "mm/hyp_mmu.h"
#include "timer/timer.h"
#include "vgic/gic.h"

#define CPU_ON_TIMEOUT_US 2000000u

/* SMC Calling Convention call through the DT's PSCI conduit (SMCCC 1.x) */
static int32_t psci_fw_call(enum psci_conduit c, uint32_t fn, uint32_t a1, uint32_t a2,
                            uint32_t a3)
{
    register uint32_t r0 __asm__("r0") = fn;
    register uint32_t r1 __asm__("r1") = a1;
    register uint32_t r2 __asm__("r2") = a2;
    register uint32_t r3 __asm__("r3") = a3;
    if (c == PSCI_CONDUIT_SMC) {
        __asm__ volatile("smc #0" : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : : "memory");
    } else if (c == PSCI_CONDUIT_HVC) {
        __asm__ volatile("hvc #0" : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : : "memory");
    } else {
        return -1;
    }
    return (int32_t)r0;
}

static int release_from_pen(unsigned int idx, uint32_t mpidr)
{
    /* the CPU reads the pen with its MMU and caches off: write to PoC */
    boot_pen.cpu = idx;
    dcache_clean_range(&boot_pen, sizeof(boot_pen));
    boot_pen.mpidr = mpidr;
    dcache_clean_range(&boot_pen, sizeof(boot_pen));
    sev();
    return 0;
}

static bool in_ram(const struct platform *p, uint64_t pa, uint32_t size)
{
    for (unsigned int i = 0u; i < p->nmem; i++) {
        if (pa >= p->mem[i].base && pa + size <= p->mem[i].base + p->mem[i].size &&
            pa + size <= HYP_VA_RAM_END) {
            return true;
            }
    }
    return false;
}

/* One store of a release plan, seen by a CPU whose caches are off. */
static int release_store(const struct platform *p, const struct release_write *w)
{
    volatile uint32_t *va;
    bool ram = in_ram(p, w->pa, w->size);
    if (ram) {
        va = (volatile uint32_t *)(uint32_t)w->pa;      /* RAM is identity mapped */
    } else if (!(va = ioremap(w->pa, w->size))) {
        return -1;
    } else {
        /* otherwise nothing to do */
    }
    if (w->size == 8u) {
        va[1] = (uint32_t)(w->value >> 32);
    }
    va[0] = (uint32_t)w->value;
    if (ram) {    /* the waiting CPU reads memory, not our cache */
        dcache_clean_range((const void *)va, w->size);
    }
    return 0;
}

/*
 * Start a CPU that waits on a release address: arm Partita's pen with its
 * index and MPIDR (the CPU gets no context), store the entry, then wake
 * it: SEV for a WFE pen (spin-table), an SGI for a WFI pen (the vexpress
 * boot monitor and QEMU's boot code wait in WFI with their GIC CPU
 * interface on).  The kick goes to every other CPU: any pen sharing the
 * address goes to Partita's pen and waits for its own turn there; CPUs
 * already online take it as the harmless SGI_KICK.
 */
static int start_by_release(const struct platform *p, unsigned int idx, const struct plat_cpu *c)
{
    struct release_write w[RELEASE_MAX_WRITES];
    uint32_t entry = (uint32_t)hyp_virt_to_phys((void *)secondary_pen_entry);
    unsigned int n = cpu_release_plan(c, entry, w);
    (void)release_from_pen(idx, c->mpidr);
    for (unsigned int i = 0u; i < n; i++) {
        if (release_store(p, &w[i]) != 0) {
            pr_err("cpu%u (MPIDR 0x%08lx): cannot map its release address 0x%llx\n", idx,
                   (unsigned long)c->mpidr, w[i].pa);
            return -1;
        }
    }
    dsb();
    sev();
    gic_send_sgi_others(SGI_KICK);
    pr_info("cpu%u: released through %s at 0x%08llx\n", idx,
            platform_cpu_method_name(c->method), c->release_addr);
    return 0;
}

/*
 * A secure start with a spin-table CPU: the CPU waits in Partita's secure
 * pen, not in a firmware's.  Partita's secure code plays the firmware
 * (boot/secure.S firmware_spin): released into non-secure HYP, the CPU waits
 * on its cpu-release-addr, and the spin-table start above then runs as on
 * a board.
 */
static int start_secure(const struct platform *p, unsigned int idx, const struct plat_cpu *c)
{
    bool spin = c->method == CPU_METHOD_SPIN_TABLE && in_ram(p, c->release_addr, c->release_size);
    boot_pen.release_pa = spin ? (uint32_t)c->release_addr : 0u;
    dcache_clean_range(&boot_pen, sizeof(boot_pen));
    return spin ? start_by_release(p, idx, c) : release_from_pen(idx, c->mpidr);
}

/* SoC registers for soc_smp_run: each page mapped once (ioremap does not free) */
#define SOC_PAGES 8u
static struct { uint64_t page; volatile uint8_t *va; } soc_pages[SOC_PAGES];

static volatile uint32_t *soc_reg(uint64_t pa)
{
    uint64_t page = pa & ~((uint64_t)PAGE_SIZE - 1u);
    unsigned int i = 0u;
    while ((i < SOC_PAGES) && (soc_pages[i].va != NULL) && (soc_pages[i].page != page)) {
        i++;
    }
    if (i == SOC_PAGES) {
        return NULL;
    }
    if (!soc_pages[i].va) {
        soc_pages[i].va = (volatile uint8_t *)ioremap(page, PAGE_SIZE);
        soc_pages[i].page = page;
    }
    return soc_pages[i].va ? (volatile uint32_t *)(soc_pages[i].va + (pa - page)) : NULL;
}

static uint32_t soc_read32(void *ctx, uint64_t pa)
{
    volatile uint32_t *r = soc_reg(pa);
    return r ? *r : 0xffffffffu;
}

static void soc_write32(void *ctx, uint64_t pa, uint32_t v)
{
    volatile uint32_t *r = soc_reg(pa);
    if (r != NULL) {
        *r = v;
    }
}

static void soc_delay_us(void *ctx, uint32_t us)
{
    timer_udelay(us);
}

/*
 * Start a CPU by its SoC's method (hyp/platform/soc_smp.h): arm the pen
 * with its index and MPIDR and with what secondary_soc_entry needs to
 * reach HYP from the mode the ROM runs it in (this CPU's GIC addresses and
 * CNTFRQ for a secure arrival; the ROM's HYP-entry and CNTFRQ calls for a
 * non-secure SVC one), run the plan, then wake it (SEV: the ROM pens wait
 * in WFE, as the Linux ports' dsb_sev; an SGI for those in WFI).  The pen
 * and the plan's SRAM stores are seen by a CPU with its caches off: the pen
 * is cleaned to PoC, the SoC registers are device memory.
 */
static int start_soc(const struct platform *p, unsigned int idx, const struct plat_cpu *c)
{
    static const struct soc_io io = { soc_read32, soc_write32, soc_delay_us, NULL };
    const struct soc_smp_method *m = p->soc_smp.method;
    struct soc_step st[SOC_MAX_STEPS];
    uint32_t entry = (uint32_t)hyp_virt_to_phys((void *)secondary_soc_entry);
    unsigned int n = soc_smp_plan(p, c, entry, st);
    if (n == 0u) {
        pr_err("cpu%u (MPIDR 0x%08lx): %s cannot start this CPU\n", idx,
               (unsigned long)c->mpidr, m->name);
        return -1;
    }
    if (!boot_pen.gicd_pa) {
        boot_pen.gicd_pa = (uint32_t)p->gic.gicd.base;
        boot_pen.gicc_pa = (uint32_t)p->gic.gicc.base;
    }
    if (!boot_pen.cntfrq) {
        boot_pen.cntfrq = sysreg_read_cntfrq();
    }
    boot_pen.hyp_smc = m->hyp_entry_smc;
    boot_pen.cntfrq_smc = m->cntfrq_smc;
    (void)release_from_pen(idx, c->mpidr);
    int rc = soc_smp_run(st, n, &io);
    if (rc != 0) {
        pr_err("cpu%u (MPIDR 0x%08lx): %s: step %d timed out (register 0x%llx)\n", idx,
               (unsigned long)c->mpidr, m->name, rc, st[rc - 1].pa);
        return -1;
    }
    dsb();
    sev();
    gic_send_sgi_others(SGI_KICK);
    pr_info("cpu%u: started by %s (as Linux %s)\n", idx, m->name, m->source);
    return 0;
}

static int start_cpu(const struct platform *p, unsigned int idx, const struct plat_cpu *c)
{
    if (c->method == CPU_METHOD_SOC) {
        return start_soc(p, idx, c);
    }
    if (this_cpu()->start_mode == START_MODE_SECURE) {
        return start_secure(p, idx, c);
    }
    if (c->method == CPU_METHOD_PSCI) {
        uint32_t entry = (uint32_t)hyp_virt_to_phys((void *)secondary_entry);
        int32_t rc = psci_fw_call(p->psci.conduit, p->psci.fn_cpu_on, c->mpidr, entry, idx);
        if (rc != 0) {
            pr_err("cpu%u (MPIDR 0x%08lx): PSCI CPU_ON failed (%ld)\n", idx,
                   (unsigned long)c->mpidr, (long)rc);
        }
        return rc;
    }
    if (c->method == CPU_METHOD_SPIN_TABLE || c->method == CPU_METHOD_SYSFLAGS) {
        return start_by_release(p, idx, c);
    }
    if (c->enable_method[0] != 0) {
        pr_err("cpu%u (MPIDR 0x%08lx): no way to start it: enable-method \"%s\" is not "
               "supported and the DT has no PSCI node\n", idx, (unsigned long)c->mpidr,
               c->enable_method);
    } else {
        pr_err("cpu%u (MPIDR 0x%08lx): no way to start it: the DT has no PSCI node "
               "and no enable-method\n", idx, (unsigned long)c->mpidr);
    }
    return -1;
}

unsigned int smp_boot_secondaries(const struct platform *p)
{
    uint32_t self = this_cpu()->mpidr;
    unsigned int idx = 1u;
    for (unsigned int i = 0u; i < p->ncpus && idx < MAX_CPUS; i++) {
        const struct plat_cpu *c = &p->cpus[i];
        if (c->mpidr == self) {
            continue;
        }
        pcpus[idx].mpidr = c->mpidr;
        if (start_cpu(p, idx, c) == 0) {
            uint64_t t0 = timer_now();
            while (!pcpus[idx].online &&
                   timer_ticks_to_us(timer_now() - t0) < CPU_ON_TIMEOUT_US) {
                wfe();
                   }
            if (!pcpus[idx].online) {
                pr_err("cpu%u (MPIDR 0x%08lx) did not come online\n", idx,
                       (unsigned long)c->mpidr);
            }
        }
        idx++;
    }
    return pcpu_online_count();
}
