/*
 * Secondary CPU bring-up: PSCI CPU_ON through the host DT's conduit, or, in
 * a secure start (where Partita is the firmware and no PSCI exists), the
 * release of a CPU waiting in the boot pen.  Each CPU then builds nothing:
 * it turns its MMU on with the tables CPU 0 made (boot/head.S).
 */
#include <arch/boot.h>
#include <arch/sysregs.h>
#include "smp.h"
#include "console.h"
#include "percpu.h"
#include "mm/cache.h"
#include "mm/hyp_mmu.h"
#include "timer/timer.h"

#define CPU_ON_TIMEOUT_US 2000000

int32_t psci_call(enum psci_conduit c, uint32_t fn, uint32_t a1, uint32_t a2, uint32_t a3)
{
    register uint32_t r0 __asm__("r0") = fn;
    register uint32_t r1 __asm__("r1") = a1;
    register uint32_t r2 __asm__("r2") = a2;
    register uint32_t r3 __asm__("r3") = a3;
    if (c == PSCI_CONDUIT_SMC)
        __asm__ volatile("smc #0" : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : : "memory");
    else if (c == PSCI_CONDUIT_HVC)
        __asm__ volatile("hvc #0" : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : : "memory");
    else
        return -1;
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

static int start_cpu(const struct platform *p, unsigned int idx, const struct plat_cpu *c)
{
    if (this_cpu()->start_mode == START_MODE_SECURE)
        return release_from_pen(idx, c->mpidr);
    if (c->method == CPU_METHOD_PSCI) {
        uint32_t entry = (uint32_t)hyp_virt_to_phys((void *)secondary_entry);
        int32_t rc = psci_call(p->psci.conduit, p->psci.fn_cpu_on, c->mpidr, entry, idx);
        if (rc != 0)
            pr_err("cpu%u (MPIDR 0x%08lx): PSCI CPU_ON failed (%ld)\n", idx,
                   (unsigned long)c->mpidr, (long)rc);
        return rc;
    }
    if (c->method == CPU_METHOD_SPIN_TABLE)
        pr_err("cpu%u (MPIDR 0x%08lx): spin-table start is not supported yet\n", idx,
               (unsigned long)c->mpidr);
    else
        pr_err("cpu%u (MPIDR 0x%08lx): no way to start it: the DT has no PSCI node "
               "and no enable-method\n", idx, (unsigned long)c->mpidr);
    return -1;
}

unsigned int smp_online_count(void)
{
    unsigned int n = 0;
    for (unsigned int i = 0; i < MAX_CPUS; i++)
        n += pcpus[i].online;
    return n;
}

unsigned int smp_boot_secondaries(const struct platform *p)
{
    uint32_t self = this_cpu()->mpidr;
    unsigned int idx = 1;
    for (unsigned int i = 0; i < p->ncpus && idx < MAX_CPUS; i++) {
        const struct plat_cpu *c = &p->cpus[i];
        if (c->mpidr == self)
            continue;
        pcpus[idx].mpidr = c->mpidr;
        if (start_cpu(p, idx, c) == 0) {
            uint64_t t0 = timer_now();
            while (!pcpus[idx].online &&
                   timer_ticks_to_us(timer_now() - t0) < CPU_ON_TIMEOUT_US)
                wfe();
            if (!pcpus[idx].online)
                pr_err("cpu%u (MPIDR 0x%08lx) did not come online\n", idx,
                       (unsigned long)c->mpidr);
        }
        idx++;
    }
    return smp_online_count();
}
