#include <string.h>
#include <arch/sysregs.h>
#include "cache.h"

void zero_clean_64(void *va, uint32_t len);     /* mm/zero_clean.S */

static uint32_t dcache_line(void)
{
    /* CTR.DminLine, log2 of words in the smallest D-cache line (B4.1.42) */
    return (unsigned int)4u << ((sysreg_read_ctr() >> 16) & 0xfu);
}

void dcache_clean_range(const void *va, uint32_t len)
{
    uint32_t line = dcache_line();
    uint32_t a = (uint32_t)va & ~(line - 1u);
    uint32_t end = (uint32_t)va + len;
    dsb();
    /* four lines a round: a guest's whole RAM goes through here */
    for (; a < end && end - a >= 4u * line; a += 4u * line) {
        sysreg_op_dccmvac(a);
        sysreg_op_dccmvac(a + line);
        sysreg_op_dccmvac(a + 2u * line);
        sysreg_op_dccmvac(a + 3u * line);
    }
    for (; a < end; a += line) {
        sysreg_op_dccmvac(a);
    }
    dsb();
}

void dcache_clean_inval_range(const void *va, uint32_t len)
{
    uint32_t line = dcache_line();
    uint32_t a = (uint32_t)va & ~(line - 1u);
    uint32_t end = (uint32_t)va + len;
    dsb();
    for (; a < end; a += line) {
        sysreg_op_dccimvac(a);
    }
    dsb();
}

void dcache_zero_clean(void *va, uint32_t len)
{
    if (dcache_line() == 64u && !(((uint32_t)va | len) & 63u)) {
        zero_clean_64(va, len);
        return;
    }
    (void)memset(va, 0, len);
    dcache_clean_range(va, len);
}

void icache_invalidate_all(void)
{
    /* every CPU may run the new code: inner-shareable invalidate-all */
    sysreg_op_icialluis(0);
    sysreg_op_bpiallis(0);
    dsb();
    isb();
}

bool cache_llc(unsigned int *level, struct cache_geom *g)
{
    int l = clidr_last_data_level(sysreg_read_clidr());
    if (l < 0) {
        return false;
    }
    /* CSSELR selects the level's data side; the geometry reads back through
     * CCSIDR after an ISB (B4.1.19) */
    uint32_t csselr = sysreg_read_csselr();
    sysreg_write_csselr((uint32_t)l << 1);
    isb();
    *g = ccsidr_decode(sysreg_read_ccsidr());
    sysreg_write_csselr(csselr);
    isb();
    *level = (unsigned int)l;
    return true;
}
