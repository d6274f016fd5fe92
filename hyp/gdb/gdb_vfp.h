/*
 * The VFP registers for gdb (target description feature org.gnu.gdb.arm.vfp,
 * gdb's manual "ARM Features"): d0-d31 as gdb's registers 26-57 and FPSCR
 * as 58, read and written with p/P (gdb fetches what its g packet lacks
 * with p).  They come from the vCPU's saved VFP state: on a shared CPU its
 * lazy-switch save area (hyp/arch/vfp.c; a vCPU that owned the VFP when
 * halted for gdb saves it there and gives up ownership, so gdb's writes are
 * what it restores), on a CPU of its own a copy kept here, saved when it
 * leaves its CPU under gdb and restored when it comes back (vcpu_put,
 * vcpu_load), the last time after gdb let go.
 */
#ifndef HYP_CONSOLE_GDB_VFP_H
#define HYP_CONSOLE_GDB_VFP_H

#include <stdbool.h>
#include "gdb_guest.h"
#include "rsp.h"

#define GDB_REG_D0     26u
#define GDB_REG_FPSCR  58u

#define GDB_VFP_XML \
    "<feature name=\"org.gnu.gdb.arm.vfp\">" \
    "<reg name=\"d0\" bitsize=\"64\" type=\"ieee_double\" regnum=\"26\"/>" \
    "<reg name=\"d1\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d2\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d3\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d4\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d5\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d6\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d7\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d8\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d9\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d10\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d11\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d12\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d13\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d14\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d15\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d16\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d17\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d18\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d19\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d20\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d21\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d22\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d23\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d24\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d25\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d26\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d27\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d28\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d29\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d30\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"d31\" bitsize=\"64\" type=\"ieee_double\"/>" \
    "<reg name=\"fpscr\" bitsize=\"32\" type=\"int\" group=\"float\"/>" \
    "</feature>"

/* gdb holds (on) or lets go of v: HDCR.TDE (dbg_trap) from its next
 * entry, its comparators switched with it, and on a CPU of its own its VFP
 * kept here while it is away (before the halt, so that it is saved) */
void gdb_vfp_hold(struct vcpu *v, bool on);
/* once g is halted: the VFP registers its vCPUs left in a CPU's VFP are
 * saved where gdb reads them (the boot CPU's own vCPU, which left before
 * gdb came; a shared CPU's lazy owner, sched_share_vfp_flush); false if a
 * shared CPU did not answer */
bool gdb_vfp_catch(struct guest *g);
/* p n of v's VFP registers into tx; false: n is not one of them */
bool gdb_vfp_read(struct vcpu *v, unsigned int n, struct rsp_tx *tx);
/* P n=v: -1 not a VFP register, 0 refused (the wrong width), 1 written */
int gdb_vfp_write(struct vcpu *v, const struct rsp_cmd *c);

#endif
