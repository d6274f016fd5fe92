/* The debug registers for guests: debug.h says how they are shared. */
#include <string.h>
#include <arch/sysregs.h>
#include "debug.h"

unsigned int debug_nbrp, debug_nwrp;
struct debug_gdb debug_gdb;

/* a breakpoint or watchpoint register n (CRm, a literal in the encoding:
 * the case labels cast it to the switch's unsigned type) */
#define PAIR_WRITE(enc, n, v) __asm__ volatile("mcr " SR_STR(enc(n, %0)) : : "r"(v) : "memory")
#define PAIR_CASES(n, v)                                                  \
    case ((unsigned int)(n) * 4u) + 0u: PAIR_WRITE(DBGBVR, n, v); break;  \
    case ((unsigned int)(n) * 4u) + 1u: PAIR_WRITE(DBGBCR, n, v); break;  \
    case ((unsigned int)(n) * 4u) + 2u: PAIR_WRITE(DBGWVR, n, v); break;  \
    case ((unsigned int)(n) * 4u) + 3u: PAIR_WRITE(DBGWCR, n, v); break;

enum pair_reg { BVR, BCR, WVR, WCR };    /* opc2 4, 5, 6, 7 */

static void pair_write(enum pair_reg r, unsigned int n, uint32_t v)
{
    switch ((n * 4u) + (unsigned int)r) {
    PAIR_CASES(0, v) PAIR_CASES(1, v) PAIR_CASES(2, v) PAIR_CASES(3, v)
    PAIR_CASES(4, v) PAIR_CASES(5, v) PAIR_CASES(6, v) PAIR_CASES(7, v)
    PAIR_CASES(8, v) PAIR_CASES(9, v) PAIR_CASES(10, v) PAIR_CASES(11, v)
    PAIR_CASES(12, v) PAIR_CASES(13, v) PAIR_CASES(14, v) PAIR_CASES(15, v)
    default:
        break;
    }
}

/* the guest's monitor-mode bits over what the hardware keeps */
#define DSCR_GUEST (DBGDSCR_MDBGEN | DBGDSCR_UDCCDIS)

static void dscr_write(uint32_t bits, uint32_t mask)
{
    sysreg_write_dbgdscrext(debug_dscr_merge(sysreg_read_dbgdscrext(), bits, mask));
}

void debug_cpu_init(void)
{
    uint32_t didr = sysreg_read_dbgdidr();
    debug_nbrp = DBGDIDR_BRPS(didr);
    debug_nwrp = DBGDIDR_WRPS(didr);
    /* v7.1 (C11.11.32-34): the OS Lock may be set at reset; while it or the
     * double lock is set, no breakpoint fires.  Guests get an emulated OS
     * Lock; the real ones stay open. */
    sysreg_write_dbgoslar(0);
    sysreg_write_dbgosdlr(0);
    isb();
    debug_quiet();
}

void debug_quiet(void)
{
    for (unsigned int i = 0u; i < debug_nbrp; i++) {
        pair_write(BCR, i, 0);
        pair_write(BVR, i, 0);
    }
    for (unsigned int i = 0u; i < debug_nwrp; i++) {
        pair_write(WCR, i, 0);
        pair_write(WVR, i, 0);
    }
    dscr_write(0, DSCR_GUEST | DBGDSCR_MOE_MASK);
    isb();      /* C3.6: changes take effect only after a context synchronization */
}

/*
 * With gdb: its comparators where it holds them, and monitor debug-mode on
 * for them (C3.1); the guest's own then only if it enabled monitor mode
 * itself (what it reads of DBGDSCR is its view, dscr_read).
 */
void debug_load(const struct debug_regs *d, bool gdb)
{
    const struct debug_gdb *g = &debug_gdb;
    uint32_t bheld = gdb ? g->bheld : 0u, wheld = gdb ? g->wheld : 0u;
    uint32_t dscr = d->dscr & (DSCR_GUEST | DBGDSCR_MOE_MASK);
    bool own = ((bheld | wheld) == 0u) || ((d->dscr & DBGDSCR_MDBGEN) != 0u);
    for (unsigned int i = 0u; i < debug_nbrp; i++) {
        bool held = (bheld & ((unsigned int)1u << i)) != 0u;
        pair_write(BVR, i, held ? g->bvr[i] : d->bvr[i]);
        pair_write(BCR, i, held ? g->bcr[i] : own ? debug_bcr_hw(d->bcr[i]) : 0u);
    }
    for (unsigned int i = 0u; i < debug_nwrp; i++) {
        bool held = (wheld & ((unsigned int)1u << i)) != 0u;
        pair_write(WVR, i, held ? g->wvr[i] : d->wvr[i]);
        pair_write(WCR, i, held ? g->wcr[i] : own ? debug_wcr_hw(d->wcr[i]) : 0u);
    }
    if ((bheld | wheld) != 0u) {
        dscr |= DBGDSCR_MDBGEN;
    }
    dscr_write(dscr, DSCR_GUEST | DBGDSCR_MOE_MASK);
    isb();
}

void debug_save_moe(struct debug_regs *d)
{
    d->dscr = (d->dscr & ~DBGDSCR_MOE_MASK) | (sysreg_read_dbgdscrext() & DBGDSCR_MOE_MASK);
}

/* DBGBVR/BCR/WVR/WCR n (opc2 4-7): the view, and the filtered hardware */
static bool pair_access(struct debug_regs *d, bool gdb, uint32_t n, uint32_t opc2, bool read,
                        uint32_t *val)
{
    uint32_t index = opc2 - 4u;     /* opc2 4-7: BVR, BCR, WVR, WCR */
    enum pair_reg r = (enum pair_reg)index;
    if (n >= (r <= BCR ? debug_nbrp : debug_nwrp)) {
        return false;           /* a comparator the CPU lacks: UNDEFINED, as on the CPU */
    }
    uint32_t *reg = r == BVR ? &d->bvr[n] : r == BCR ? &d->bcr[n]
                  : r == WVR ? &d->wvr[n] : &d->wcr[n];
    if (read) {
        *val = *reg;
        return true;
    }
    *reg = *val;
    uint32_t held = !gdb ? 0u : r <= BCR ? debug_gdb.bheld : debug_gdb.wheld;
    if (!(held & ((unsigned int)1u << n))) {        /* gdb's: the view only, until it lets go */
        pair_write(r, n, r == BCR ? debug_bcr_hw(*val) : r == WCR ? debug_wcr_hw(*val) : *val);
    }
    return true;
}

/* DBGDSCR (C11.11.20): read as the hardware's (the MOE of its last debug
 * event, HDBGen of an external debugger) with the guest's own bits */
static uint32_t dscr_read(const struct debug_regs *d, bool internal)
{
    uint32_t hw = internal ? sysreg_read_dbgdscrint() : sysreg_read_dbgdscrext();
    return (hw & ~DSCR_GUEST) | (d->dscr & DSCR_GUEST);
}

/* CRn 0 with opc2 0-2: identification, status, and the DCC (RAZ/WI);
 * a DBGDSCRext write changes the guest's bits and keeps the hardware's
 * MOE, the method of its last debug entry (C11.11.20) */
static bool c0_access(struct debug_regs *d, bool gdb, uint32_t crm, uint32_t opc2, bool read,
                      uint32_t *val)
{
    if (opc2 == 0u && crm == 0u) {                    /* DBGDIDR */
        *val = debug_didr_guest(sysreg_read_dbgdidr());
        return read;
    }
    if ((opc2 == 0u && crm == 1u) || (opc2 == 2u && crm == 2u)) {   /* DBGDSCRint, ext */
        if (read) {
            *val = dscr_read(d, opc2 == 0u);
        } else if (opc2 == 2u) {
            d->dscr = (d->dscr & ~DSCR_GUEST) | (*val & DSCR_GUEST);
            bool gdb_on = gdb && (debug_gdb.bheld | debug_gdb.wheld);
            dscr_write(d->dscr | (gdb_on ? DBGDSCR_MDBGEN : 0u), DSCR_GUEST);
        } else {
            /* otherwise nothing to do */
        }
        return read || opc2 == 2u;
    }
    /* DBGDTRRX/TXint (c5), DBGWFAR (c6), DBGVCR (c7); DBGDTRRXext (c0),
     * DBGDTRTXext (c3): an external debugger's, or not given */
    if ((opc2 == 0u && crm >= 5u && crm <= 7u) || (opc2 == 2u && (crm == 0u || crm == 3u))) {
        *val = 0u;
        return true;
    }
    return false;
}

/* CRn 1: the OS Lock and power-down registers (opc2 4), DBGDRAR (c0,0),
 * DBGBXVR (opc2 1: VMID match values, not given) */
static bool c1_access(struct debug_regs *d, uint32_t crm, uint32_t opc2, bool read, uint32_t *val)
{
    if (opc2 == 1u && crm < debug_nbrp) {
        *val = 0u;
        return true;
    }
    if (opc2 == 0u && crm == 0u) {                    /* DBGDRAR: no ROM table */
        *val = 0u;
        return read;
    }
    if (opc2 != 4u) {
        return false;
    }
    switch (crm) {
    case 0: if (!read) {                              /* DBGOSLAR */
                d->oslk = *val == DBGOSLAR_KEY;
    }
            return !read;
    case 1: *val = DBGOSLSR_OSLM_V71 | (d->oslk ? DBGOSLSR_OSLK : 0u);   /* DBGOSLSR */
            return read;
    case 3: *val = 0u; return true;                  /* DBGOSDLR: never double locked */
    case 4: *val = 0u; return true;                  /* DBGPRCR */
    case 5: *val = DBGPRSR_PU; return read;         /* DBGPRSR: powered up */
    default:
        break;
    }
    return false;
}

/* CRn 7: DBGDEVID/1/2 (opc2 7), the claim tags and DBGAUTHSTATUS (opc2 6) */
static bool c7_access(struct debug_regs *d, uint32_t crm, uint32_t opc2, bool read, uint32_t *val)
{
    if (opc2 == 7u && crm <= 2u) {
        *val = crm == 2u ? debug_devid_guest(sysreg_read_dbgdevid())
             : crm == 1u ? sysreg_read_dbgdevid1() : 0u;
        return read;
    }
    if (opc2 == 6u && (crm == 8u || crm == 9u)) {      /* DBGCLAIMSET, DBGCLAIMCLR */
        if (read) {
            *val = d->claim;
        } else {
            d->claim = crm == 8u ? d->claim | (*val & 0xffu) : d->claim & ~*val;
        }
        return true;
    }
    if (opc2 == 6u && crm == 14u) {                   /* DBGAUTHSTATUS */
        *val = sysreg_read_dbgauthstatus();
        return read;
    }
    return false;
}

/* The hardware writes take effect at the ERET back to the guest, a
 * context synchronization event (C3.6, B1.8.11) */
bool debug_access(struct debug_regs *d, bool gdb, uint32_t crn, uint32_t crm, uint32_t opc2,
                  bool read, bool user, uint32_t *val)
{
    if (user) {
        /* PL0 reaches DBGDIDR, and DBGDSCRint and the DCC unless UDCCdis
         * (C6.4.1); everything else is UNDEFINED there */
        bool dcc = crn == 0u && opc2 == 0u && (crm == 1u || crm == 5u);
        if (!(crn == 0u && opc2 == 0u && crm == 0u) && !(dcc && !(d->dscr & DBGDSCR_UDCCDIS))) {
            return false;
        }
    }
    if (crn == 0u) {
        return opc2 >= 4u ? pair_access(d, gdb, crm, opc2, read, val)
                         : c0_access(d, gdb, crm, opc2, read, val);
    }
    if (crn == 1u) {
        return c1_access(d, crm, opc2, read, val);
    }
    if (crn == 2u && crm == 0u && opc2 == 0u) {        /* DBGDSAR: no debug registers mapped */
        *val = 0u;
        return read;
    }
    if (crn == 7u) {
        return c7_access(d, crm, opc2, read, val);
    }
    return false;
}
