/* gdb's software breakpoints in a guest's code (gdb_break.h). */
#include <stdio.h>
#include <string.h>
#include "gdb_break.h"
#include "debug_gdb.h"

/* BKPT #0 (ARM ARM A8.8.24): with HDCR.TDE it traps to Partita */
#define GDB_MAX_BREAKPOINTS 32u
#define BKPT_ARM     0xe1200070u
#define BKPT_THUMB   0xbe00u

static struct gdb_breakpoint {
    uint32_t addr, size;        /* size 0: a free slot */
    uint8_t orig[4];
} bp[GDB_MAX_BREAKPOINTS];

static struct gdb_breakpoint *bp_find(uint32_t addr)
{
    for (unsigned int i = 0u; i < GDB_MAX_BREAKPOINTS; i++) {
        if (bp[i].size && bp[i].addr == addr) {
            return &bp[i];
        }
    }
    return NULL;
}

/* the single step's own, apart from gdb's table */
static struct gdb_breakpoint step_bp;
static struct vcpu *step_vcpu;

static bool bp_write(struct vcpu *v, struct gdb_breakpoint *b, uint32_t addr, uint32_t size)
{
    uint32_t insn = size == 4u ? BKPT_ARM : BKPT_THUMB;
    if (guest_debug_access(v, addr, b->orig, size, false) != size ||
        guest_debug_access(v, addr, &insn, size, true) != size) {
        return false;
        }
    b->addr = addr;
    b->size = size;
    return true;
}

const char *gdb_bp_insert(struct vcpu *v, uint32_t addr, uint32_t kind)
{
    if (bp_find(addr) != NULL) {
        return "OK";
    }
    struct gdb_breakpoint *b = NULL;
    for (unsigned int i = 0u; !b && (i < GDB_MAX_BREAKPOINTS); i++) {
        if (!bp[i].size) {
            b = &bp[i];
        }
    }
    if (!b || (kind != 2u && kind != 3u && kind != 4u)) {
        return "E01";
    }
    return bp_write(v, b, addr, kind == 4u ? 4 : 2) ? "OK" : "E01";
}

const char *gdb_bp_remove(struct vcpu *v, uint32_t addr)
{
    struct gdb_breakpoint *b = bp_find(addr);
    if (!b) {
        return "OK";
    }
    bool ok = guest_debug_access(v, addr, b->orig, b->size, true) == b->size;
    b->size = 0u;
    return ok ? "OK" : "E01";
}

void gdb_bp_remove_all(struct vcpu *v)
{
    for (unsigned int i = 0u; i < GDB_MAX_BREAKPOINTS; i++) {
        if (bp[i].size != 0u) {
            (void)gdb_bp_remove(v, bp[i].addr);
        }
    }
}

void gdb_bp_forget_all(void)
{
    (void)memset(bp, 0, sizeof(bp));
    step_bp.size = 0u;
}

bool gdb_bp_step_insert(struct vcpu *v, uint32_t addr)
{
    gdb_bp_step_remove();
    uint32_t at = addr & ~1u;
    if (bp_find(at) != NULL) {
        return true;        /* gdb's own stops it there anyway */
    }
    step_vcpu = v;
    return bp_write(v, &step_bp, at, (addr & 1u) ? 2 : 4);
}

void gdb_bp_step_remove(void)
{
    if (step_bp.size != 0u) {
        (void)guest_debug_access(step_vcpu, step_bp.addr, step_bp.orig, step_bp.size, true);
    }
    step_bp.size = 0u;
}

/* Z1-Z4 on the debug registers (hyp/arch/debug.h: gdb's comparators);
 * the vCPUs are halted and take them in when they are loaded again */
static const char *hw_request(const struct rsp_cmd *c, bool insert)
{
    enum debug_gdb_watch type = (enum debug_gdb_watch)c->type;
    if (c->type == 1u) {
        if (!insert) {
            return debug_gdb_bp_del(&debug_gdb, c->addr), "OK";
        }
        return debug_gdb_bp_add(&debug_gdb, debug_nbrp, c->addr, c->kind_arg) >= 0 ? "OK"
                                                                                : "E01";
    }
    if (!insert) {
        return debug_gdb_wp_del(&debug_gdb, c->addr, c->kind_arg, type), "OK";
    }
    return debug_gdb_wp_add(&debug_gdb, debug_nwrp, c->addr, c->kind_arg, type) >= 0 ? "OK"
                                                                                  : "E01";
}

const char *gdb_bp_request(struct vcpu *v, const struct rsp_cmd *c)
{
    bool insert = c->kind == RSP_CMD_INSERT_BP;
    if (c->type == 0u) {
        return insert ? gdb_bp_insert(v, c->addr, c->kind_arg) : gdb_bp_remove(v, c->addr);
    }
    if (c->type <= 4u) {
        return hw_request(c, insert);
    }
    return "";      /* not offered */
}

void gdb_hw_release(struct guest *g)
{
    (void)memset(&debug_gdb, 0, sizeof(debug_gdb));
}

bool gdb_watch_stop(struct vcpu *v, char *buf, size_t size)
{
    static const char *const kind[] = { "watch", "rwatch", "awatch" };
    uint32_t n = v->dbg_watch;
    v->dbg_watch = 0u;
    if (!n || !(debug_gdb.wheld & ((unsigned int)1u << (n - 1u)))) {
        return false;
    }
    enum debug_gdb_watch type = debug_gdb_wp_type(&debug_gdb, (int)n - 1);
    (void)snprintf(buf, size, "T05%s:%lx;thread:%x;", kind[type - DEBUG_WATCH_WRITE],
                   (unsigned long)debug_gdb.waddr[n - 1u], v->id + 1u);
    return true;
}
