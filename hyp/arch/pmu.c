/* The PMU for guests: pmu.h says how it is shared. */
#include <arch/sysregs.h>
#include "pmu.h"
#include "hyp/platform/percpu.h"

uint32_t pmu_hpmn, pmu_guest_bits, pmu_hdcr;
unsigned int pmu_reserved = PMU_NONE_RESERVED;
/* with a counter reserved: each CPU's guest's PMCR.E (pmcr_reserved) */
static uint8_t guest_pmcr_e[MAX_CPUS];

void pmu_init(void)
{
    unsigned int n = PMCR_N(sysreg_read_pmcr());
    pmu_hpmn = (n < PMU_MAX_COUNTERS) ? n : PMU_MAX_COUNTERS;
    pmu_guest_bits = PMU_CCNT_BIT | (((unsigned int)1u << pmu_hpmn) - 1u);
    pmu_hdcr = pmu_hpmn;
}

bool pmu_reserve(void)
{
    if (pmu_reserved != PMU_NONE_RESERVED) {
        return true;
    }
    if (pmu_hpmn == 0u) {
        return false;
    }
    /* the highest counter: HDCR.HPMN one less, so that PL1 sees N - 1
     * counters (PMCR.N reads HPMN, B4.1.117) and cannot reach it; HPME
     * enables it in every mode whatever PMCR.E (B4.1.64) */
    pmu_reserved = PMCR_N(sysreg_read_pmcr()) - 1u;
    if (pmu_reserved >= pmu_hpmn) {
        pmu_reserved = pmu_hpmn - 1u;
    }
    pmu_hpmn = pmu_reserved;
    pmu_guest_bits = PMU_CCNT_BIT | (((unsigned int)1u << pmu_hpmn) - 1u);
    pmu_hdcr = pmu_hpmn | HDCR_HPME;
    return true;
}

/* the guest's event counters to zero one by one: PMCR.P written from Hyp
 * mode would reset the reserved counter too (B4.1.117) */
static void zero_guest_counters(void)
{
    for (unsigned int i = 0u; i < pmu_hpmn; i++) {
        sysreg_write_pmselr(i);
        isb();
        sysreg_write_pmxevcntr(0);
    }
}

bool pmu_present(void)
{
    return ID_DFR0_PERFMON(sysreg_read_id_dfr0()) >= 2u;    /* PMUv2 */
}

void pmu_quiet(void)
{
    /* stopped, counters reset (all but a reserved one, which keeps E:
     * pmcr_reserved; the others are cleared below) */
    if (pmu_reserved == PMU_NONE_RESERVED) {
        sysreg_write_pmcr(PMCR_P | PMCR_C);
    } else {
        sysreg_write_pmcr(PMCR_C | PMCR_E);
        guest_pmcr_e[this_cpu()->index] = 0;
    }
    sysreg_write_pmcntenclr(pmu_guest_bits);
    sysreg_write_pmintenclr(pmu_guest_bits);
    sysreg_write_pmovsr(pmu_guest_bits);    /* write 1 to clear */
    sysreg_write_pmuserenr(0);
    unsigned int n = pmu_hpmn;
    for (unsigned int i = 0u; i < n; i++) {
        sysreg_write_pmselr(i);
        isb();
        sysreg_write_pmxevtyper(0);
        sysreg_write_pmxevcntr(0);
    }
    sysreg_write_pmselr(PMSELR_CCNT);
    isb();
    sysreg_write_pmxevtyper(0);             /* PMCCFILTR */
    sysreg_write_pmselr(0);
    isb();
}

void pmu_save(struct pmu_regs *r)
{
    r->pmcr = sysreg_read_pmcr();
    sysreg_write_pmcr(r->pmcr & ~PMCR_E);   /* stop, then read a still picture */
    isb();
    r->selr = sysreg_read_pmselr();
    r->userenr = sysreg_read_pmuserenr();
    r->cntenset = sysreg_read_pmcntenset();
    r->intenset = sysreg_read_pmintenset();
    r->ovsr = sysreg_read_pmovsr();
    r->ccntr = sysreg_read_pmccntr();
    unsigned int n = pmu_hpmn;
    for (unsigned int i = 0u; i < n; i++) {
        sysreg_write_pmselr(i);
        isb();
        r->evtyper[i] = sysreg_read_pmxevtyper();
        r->evcntr[i] = sysreg_read_pmxevcntr();
    }
    sysreg_write_pmselr(PMSELR_CCNT);
    isb();
    r->ccfiltr = sysreg_read_pmxevtyper();
    /* Stopped (PMCR.E clear above), no counter enabled, no overflow flag
     * or interrupt enable left: nothing of it counts or fires while
     * another vCPU runs.  Its event types, counts and PMUSERENR may stay
     * (not pmu_quiet's loop over every counter): a vCPU that used the PMU
     * gets every one of them written back by pmu_restore, and one that has
     * not reaches none without a trap (HDCR.TPM, B4.1.64), whose first one
     * quiets the PMU (hyp/trap/cp15.c) */
    /* (every counter: a shared CPU never runs a vCPU with a budget, so a
     * reserved counter there counts for nobody - config_budget.c) */
    sysreg_write_pmcntenclr(~0u);
    sysreg_write_pmintenclr(~0u);
    sysreg_write_pmovsr(~0u);               /* write 1 to clear */
    isb();
}

void pmu_restore(const struct pmu_regs *r)
{
    unsigned int n = pmu_hpmn;
    for (unsigned int i = 0u; i < n; i++) {
        sysreg_write_pmselr(i);
        isb();
        sysreg_write_pmxevtyper(r->evtyper[i]);
        sysreg_write_pmxevcntr(r->evcntr[i]);
    }
    sysreg_write_pmselr(PMSELR_CCNT);
    isb();
    sysreg_write_pmxevtyper(r->ccfiltr);
    sysreg_write_pmselr(r->selr);
    sysreg_write_pmccntr(r->ccntr);
    sysreg_write_pmuserenr(r->userenr);
    sysreg_write_pmovsset(r->ovsr);
    sysreg_write_pmintenset(r->intenset);
    sysreg_write_pmcntenset(r->cntenset);
    sysreg_write_pmcr(r->pmcr & PMCR_WRITABLE & ~(PMCR_P | PMCR_C));   /* E last */
    isb();
}

/*
 * PMCR with a counter reserved.  P from the guest resets its counters
 * only.  E stays set in the register: QEMU 7.2 raises no PMU interrupt
 * while PMCR.E is clear, even for counters HDCR.HPME enables
 * (target/arm pmu_update_irq), so the guest's E is kept aside and read
 * back; its counters stop with PMCNTENCLR (Linux's perf clears both).
 */
static bool pmcr_reserved(bool read, uint32_t *val)
{
    unsigned int cpu = this_cpu()->index;
    uint32_t v = *val;
    if (read) {
        *val = (sysreg_read_pmcr() & ~(PMCR_N_MASK | PMCR_E)) | (pmu_hpmn << PMCR_N_SHIFT) |
               guest_pmcr_e[cpu];
        return true;
    }
    guest_pmcr_e[cpu] = (uint8_t)(v & PMCR_E);
    sysreg_write_pmcr((v & PMCR_WRITABLE & ~PMCR_P) | PMCR_E);
    if ((v & PMCR_P) != 0u) {
        uint32_t sel = sysreg_read_pmselr();
        zero_guest_counters();
        sysreg_write_pmselr(sel);
    }
    return true;
}

/* PMSELR's counter is one of the guest's (or 31, the cycle counter's filter) */
static bool selected_ok(bool ccnt_ok)
{
    uint32_t sel = sysreg_read_pmselr() & 0x1fu;
    return (sel < pmu_hpmn) || (ccnt_ok && (sel == PMSELR_CCNT));
}

static bool pmu_c12(uint32_t opc2, bool read, uint32_t *val)
{
    uint32_t v = *val;
    switch (opc2) {
    case 0:     /* PMCR: N as the guest's share (HDCR.HPMN) */
        if (pmu_reserved != PMU_NONE_RESERVED) {
            return pmcr_reserved(read, val);
        }
        if (read) {
            *val = (sysreg_read_pmcr() & ~PMCR_N_MASK) | (pmu_hpmn << PMCR_N_SHIFT);
        } else {
            sysreg_write_pmcr(v & PMCR_WRITABLE);
        }
        return true;
    case 1:
        if (read) {
            *val = sysreg_read_pmcntenset() & pmu_guest_bits;
        } else {
            sysreg_write_pmcntenset(v & pmu_guest_bits);
        }
        return true;
    case 2:
        if (read) {
            *val = sysreg_read_pmcntenset() & pmu_guest_bits;
        } else {
            sysreg_write_pmcntenclr(v & pmu_guest_bits);
        }
        return true;
    case 3:
        if (read) {
            *val = sysreg_read_pmovsr() & pmu_guest_bits;
        } else {
            sysreg_write_pmovsr(v & pmu_guest_bits);
        }
        return true;
    case 4:
        if (!read) {
            sysreg_write_pmswinc(v & pmu_guest_bits & ~PMU_CCNT_BIT);
        } else {
            *val = 0u;
        }
        return true;
    case 5:
        if (read) {
            *val = sysreg_read_pmselr();
        } else {
            sysreg_write_pmselr(v & 0x1fu);
        }
        return true;
    case 6:
        if (read) {
            *val = sysreg_read_pmceid0();
        }
        return true;
    case 7:
        if (read) {
            *val = sysreg_read_pmceid1();
        }
        return true;
    default:
        break;
    }
    return false;
}

static bool pmu_c13(uint32_t opc2, bool read, uint32_t *val)
{
    switch (opc2) {
    case 0:
        if (read) {
            *val = sysreg_read_pmccntr();
        } else {
            sysreg_write_pmccntr(*val);
        }
        return true;
    case 1:     /* PMXEVTYPER, or PMCCFILTR: never count in Hyp mode */
        if (!selected_ok(true)) {
            *val = read ? 0u : *val;
        } else if (read) {
            *val = sysreg_read_pmxevtyper();
        } else {
            sysreg_write_pmxevtyper(*val & ~PMXEVTYPER_NSH);
        }
        return true;
    case 2:     /* PMXEVCNTR of an event counter of the guest's */
        if (!selected_ok(false)) {
            *val = read ? 0u : *val;
        } else if (read) {
            *val = sysreg_read_pmxevcntr();
        } else {
            sysreg_write_pmxevcntr(*val);
        }
        return true;
    default:
        break;
    }
    return false;
}

static bool pmu_c14(uint32_t opc2, bool read, uint32_t *val)
{
    uint32_t v = *val;
    switch (opc2) {
    case 0:
        if (read) {
            *val = sysreg_read_pmuserenr();
        } else {
            sysreg_write_pmuserenr(v & 1u);     /* EN: PL0 access */
        }
        return true;
    case 1:
        if (read) {
            *val = sysreg_read_pmintenset() & pmu_guest_bits;
        } else {
            sysreg_write_pmintenset(v & pmu_guest_bits);
        }
        return true;
    case 2:
        if (read) {
            *val = sysreg_read_pmintenset() & pmu_guest_bits;
        } else {
            sysreg_write_pmintenclr(v & pmu_guest_bits);
        }
        return true;
    case 3:
        if (read) {
            *val = sysreg_read_pmovsr() & pmu_guest_bits;
        } else {
            sysreg_write_pmovsset(v & pmu_guest_bits);
        }
        return true;
    default:
        break;
    }
    return false;
}

bool pmu_access(uint32_t crm, uint32_t opc2, bool read, uint32_t *val)
{
    bool ok = crm == 12u ? pmu_c12(opc2, read, val)
            : crm == 13u ? pmu_c13(opc2, read, val)
            : crm == 14u ? pmu_c14(opc2, read, val) : false;
    if (ok && !read) {
        isb();      /* PMSELR before the next PMXEV*, PMCR.E before counting */
    }
    return ok;
}

uint32_t pmu_budget_read(uint32_t *ovf)
{
    uint32_t bit = (unsigned int)1u << pmu_reserved, sel = sysreg_read_pmselr();
    sysreg_write_pmselr(pmu_reserved);
    isb();
    uint32_t n = sysreg_read_pmxevcntr();
    *ovf = sysreg_read_pmovsr() & bit;
    sysreg_write_pmselr(sel);
    isb();
    return n;
}

void pmu_budget_program(uint32_t event, uint32_t count)
{
    uint32_t bit = (unsigned int)1u << pmu_reserved, sel = sysreg_read_pmselr();
    sysreg_write_pmselr(pmu_reserved);
    isb();
    /* P, U, NSK, NSU and NSH clear: PL1 and PL0 of the guests count,
     * Hyp mode does not (B4.1.128) */
    sysreg_write_pmxevtyper(event & PMXEVTYPER_EVENT);
    sysreg_write_pmxevcntr(count);
    sysreg_write_pmovsr(bit);               /* an overflow already counted */
    sysreg_write_pmintenset(bit);
    sysreg_write_pmcntenset(bit);
    sysreg_write_pmselr(sel);
    /* and PMCR.E, which QEMU wants for the interrupt (pmcr_reserved) */
    sysreg_write_pmcr((sysreg_read_pmcr() & PMCR_WRITABLE & ~(PMCR_P | PMCR_C)) | PMCR_E);
    isb();
}

void pmu_unpark(struct pcpu *c)
{
    sysreg_write_pmintenset(c->pmu_inten_parked);
    c->pmu_inten_parked = 0u;
}
