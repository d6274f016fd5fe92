/*
 * The CP15 state a guest owns (ARM ARM B4.1): the non-secure PL1 copies,
 * which HYP reads and writes directly.  64-bit TTBRs and PAR cover LPAE
 * guests as well (the 64-bit views include the 32-bit ones).
 */
#include <arch/sysregs.h>
#include "vcpu.h"

void cp15_save(struct vcpu_cp15 *c)
{
    c->sctlr = sysreg_read_sctlr();
    c->cpacr = sysreg_read_cpacr();
    c->ttbr0 = sysreg_read_ttbr0_64();
    c->ttbr1 = sysreg_read_ttbr1_64();
    c->ttbcr = sysreg_read_ttbcr();
    c->dacr = sysreg_read_dacr();
    c->dfsr = sysreg_read_dfsr();
    c->ifsr = sysreg_read_ifsr();
    c->adfsr = sysreg_read_adfsr();
    c->aifsr = sysreg_read_aifsr();
    c->dfar = sysreg_read_dfar();
    c->ifar = sysreg_read_ifar();
    c->par = sysreg_read_par64();
    c->prrr = sysreg_read_prrr();
    c->nmrr = sysreg_read_nmrr();
    c->amair0 = sysreg_read_amair0();
    c->amair1 = sysreg_read_amair1();
    c->vbar = sysreg_read_vbar();
    c->contextidr = sysreg_read_contextidr();
    c->tpidrurw = sysreg_read_tpidrurw();
    c->tpidruro = sysreg_read_tpidruro();
    c->tpidrprw = sysreg_read_tpidrprw();
    c->csselr = sysreg_read_csselr();
    c->cntkctl = sysreg_read_cntkctl();
}

void cp15_restore(const struct vcpu_cp15 *c)
{
    sysreg_write_cpacr(c->cpacr);
    sysreg_write_ttbcr(c->ttbcr);     /* before the TTBRs: EAE selects their format */
    sysreg_write_ttbr0_64(c->ttbr0);
    sysreg_write_ttbr1_64(c->ttbr1);
    sysreg_write_dacr(c->dacr);
    sysreg_write_dfsr(c->dfsr);
    sysreg_write_ifsr(c->ifsr);
    sysreg_write_adfsr(c->adfsr);
    sysreg_write_aifsr(c->aifsr);
    sysreg_write_dfar(c->dfar);
    sysreg_write_ifar(c->ifar);
    sysreg_write_par64(c->par);
    sysreg_write_prrr(c->prrr);
    sysreg_write_nmrr(c->nmrr);
    sysreg_write_amair0(c->amair0);
    sysreg_write_amair1(c->amair1);
    sysreg_write_vbar(c->vbar);
    sysreg_write_contextidr(c->contextidr);
    sysreg_write_tpidrurw(c->tpidrurw);
    sysreg_write_tpidruro(c->tpidruro);
    sysreg_write_tpidrprw(c->tpidrprw);
    sysreg_write_csselr(c->csselr);
    sysreg_write_cntkctl(c->cntkctl);
    sysreg_write_sctlr(c->sctlr);     /* last: it may turn the guest's MMU on */
    isb();
}
