/*
 * The debug registers for guests (ARM ARM C11.11, v7.1 Debug): hardware
 * breakpoints and watchpoints in monitor debug-mode, so that a guest's own
 * debugger (Linux hw_breakpoint, ptrace, gdb inside the guest, a bare-metal
 * monitor) uses the CPU's comparators.
 *
 * Every debug register access of a guest traps (HDCR.TDA, TDOSA, TDRA) and
 * lands in a per-vCPU copy, the guest's view; the hardware gets a filtered
 * copy of it (debug_filter.c): a breakpoint or watchpoint matches in the
 * Non-secure PL0/PL1 modes only - never in Hyp mode (HMC), never in the
 * Secure state (SSC) - and the VMID match types are not given.  HDCR.TDE
 * is 0 (but while gdb is attached to the guest, hyp/gdb): the
 * debug exceptions themselves are the guest's prefetch and data aborts
 * (C4.1, debug event -> abort) and never enter Hyp mode, so hitting a
 * breakpoint costs no exit.
 *
 * On a CPU of its own a vCPU's comparators stay in the hardware; on a
 * shared CPU they are written when a vCPU that has used them comes in and
 * cleared when it goes (hyp/sched/sched_share.c), so a guest's breakpoint
 * never fires in another guest.  A reset clears them.
 *
 * Not given: halting debug and the debug communications channel (an
 * external debugger's), the memory-mapped and trace views (ID_DFR0 says so,
 * DBGDRAR/DBGDSAR read as not valid), the PC sample register (DBGDIDR and
 * DBGDEVID say so), vector catch and the OS double lock (read as zero, as
 * when never set).
 */
#ifndef HYP_ARCH_DEBUG_H
#define HYP_ARCH_DEBUG_H

#include <stdint.h>
#include <stdbool.h>

/* breakpoints and watchpoints the architecture allows (DBGDIDR: 1-16) */
#define DEBUG_MAX_PAIRS 16

/* A guest's view of its debug registers */
struct debug_regs {
    uint32_t bvr[DEBUG_MAX_PAIRS], bcr[DEBUG_MAX_PAIRS];
    uint32_t wvr[DEBUG_MAX_PAIRS], wcr[DEBUG_MAX_PAIRS];
    uint32_t dscr;          /* MDBGen, UDCCdis; MOE while it is away */
    uint32_t claim;         /* DBGCLAIMSET/CLR: software's own bits */
    bool oslk;              /* its OS Lock */
};

/* ---- the filter (debug_filter.c; no hardware, unit-tested) ---- */

/* What the hardware's DBGBCR/DBGWCR get for a guest's value: matching in
 * Non-secure PL0/PL1 only, or disabled where nothing of that is left */
uint32_t debug_bcr_hw(uint32_t bcr);
uint32_t debug_wcr_hw(uint32_t wcr);
/* The DBGDIDR, DBGDEVID and ID_DFR0 a guest reads for the CPU's */
uint32_t debug_didr_guest(uint32_t didr);
uint32_t debug_devid_guest(uint32_t devid);
uint32_t debug_dfr0_guest(uint32_t dfr0, bool pmu);

/* DBGDSCR with bits (those of mask) written over the hardware's hw: a
 * guest's write changes its own bits only and leaves the hardware's MOE */
uint32_t debug_dscr_merge(uint32_t hw, uint32_t bits, uint32_t mask);

/*
 * ---- gdb's comparators (their rules: hyp/gdb/debug_gdb.c, pure) ----
 *
 * gdb's hardware breakpoints and watchpoints (hyp/gdb, Z1-Z4) for
 * the guest under debug, one session at a time: the highest-numbered free
 * comparators, taken from the top down (a guest's own debugger usually
 * starts from 0).  While gdb holds comparator n, the vCPUs of that guest
 * run with gdb's value in it (debug_load with gdb set, DBGDSCR.MDBGen on);
 * the guest's own value for n stays in its view - it reads back what it
 * wrote, and gets it in the hardware again when gdb lets go - but does not
 * fire meanwhile.  With HDCR.TDE the hits of gdb's come to Hyp mode
 * (debug_gdb_bp_match / wp_match tell them from the guest's own, which
 * are handed back to it).
 */
enum debug_gdb_watch { DEBUG_WATCH_WRITE = 2, DEBUG_WATCH_READ = 3, DEBUG_WATCH_ACCESS = 4 };

struct debug_gdb {
    uint32_t bheld, wheld;      /* bit n: comparator n is gdb's */
    uint32_t bvr[DEBUG_MAX_PAIRS], bcr[DEBUG_MAX_PAIRS];    /* the hardware's values */
    uint32_t wvr[DEBUG_MAX_PAIRS], wcr[DEBUG_MAX_PAIRS];
    uint32_t waddr[DEBUG_MAX_PAIRS];    /* the address gdb asked to watch */
};
extern struct debug_gdb debug_gdb;

/* ---- the hardware (debug.c) ---- */

/* the CPU's breakpoints and watchpoints (DBGDIDR), read once at boot */
extern unsigned int debug_nbrp, debug_nwrp;
/* every CPU at boot: OS Lock and double lock open (a guest's breakpoints
 * can then fire), no breakpoint, watchpoint or monitor mode left */
void debug_cpu_init(void);
/* nothing armed, monitor mode off: what no guest left anything in */
void debug_quiet(void);
/* the hardware from a guest's view: all of it (debug_load; with gdb's
 * comparators where gdb holds them if gdb), or the MOE of its last debug
 * event back into the view before debug_quiet */
void debug_load(const struct debug_regs *d, bool gdb);
void debug_save_moe(struct debug_regs *d);
/*
 * A guest's MRC (read: *val gets the value) or MCR (*val is written) of
 * CP14 debug register (opc1 0) CRn, CRm, opc2, from PL0 if user; the
 * vCPU is on its CPU; gdb: its guest is under debug (gdb's comparators
 * keep their values).  False: no such register for it (UNDEFINED).
 */
bool debug_access(struct debug_regs *d, bool gdb, uint32_t crn, uint32_t crm, uint32_t opc2,
                  bool read, bool user, uint32_t *val);

#endif
