/* The VFP registers for gdb (gdb_vfp.h). */
#include <string.h>
#include "gdb_vfp.h"
#include "hyp/sched/sched_share.h"
#include "hyp/platform/percpu.h"

/* a CPU of its own: the vCPU's VFP while it is away (vcpu_put saves it
 * there, vcpu_load restores it); one guest at a time */
static struct vcpu_vfp kept[GUEST_MAX_VCPUS];

static struct vcpu_vfp *vfp_of(struct vcpu *v)
{
    return v->share ? &v->share->vfp : v->dbg_vfp;
}

bool gdb_vfp_catch(struct guest *g)
{
    bool ok = true;
    for (unsigned int i = 0u; i < g->cfg->ncpus; i++) {
        struct vcpu *v = &g->vcpu[i];
        if (v->share != NULL) {
            ok &= sched_share_vfp_flush(v->pcpu);
        } else if (v->pcpu == this_cpu()->index && v->dbg_vfp) {
            vfp_save(v->dbg_vfp);   /* left this CPU before gdb came: its VFP is still here */
        } else {
            /* otherwise nothing to do */
        }
    }
    return ok;
}

void gdb_vfp_hold(struct vcpu *v, bool on)
{
    v->dbg_trap = on;
    if (!on) {
        return;     /* its vcpu_load restores gdb's values, then lets go */
    }
    v->dbg_used = true;         /* comparators switched with it from now */
    if (!v->share) {
        (void)memset(&kept[v->id], 0, sizeof(kept[v->id]));
        v->dbg_vfp = &kept[v->id];
        v->dbg_reload = true;
    }
}

bool gdb_vfp_read(struct vcpu *v, unsigned int n, struct rsp_tx *tx)
{
    struct vcpu_vfp *f = vfp_of(v);
    if (n == GDB_REG_FPSCR) {
        rsp_tx_reg32(tx, f->fpscr);
        return true;
    }
    if ((n < GDB_REG_D0) || (n >= (GDB_REG_D0 + 32u))) {
        return false;
    }
    uint64_t d = f->d[n - GDB_REG_D0];
    rsp_tx_reg32(tx, (uint32_t)d);
    rsp_tx_reg32(tx, (uint32_t)(d >> 32));
    return true;
}

int gdb_vfp_write(struct vcpu *v, const struct rsp_cmd *c)
{
    struct vcpu_vfp *f = vfp_of(v);
    if (c->reg == GDB_REG_FPSCR) {
        if (c->wide) {
            return 0;
        }
        f->fpscr = c->value;
        return 1;
    }
    if ((c->reg < GDB_REG_D0) || (c->reg >= (GDB_REG_D0 + 32u))) {
        return -1;
    }
    if (!c->wide) {
        return 0;
    }
    f->d[c->reg - GDB_REG_D0] = ((uint64_t)c->value_hi << 32) | c->value;
    return 1;
}
