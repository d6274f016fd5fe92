/* gdb's single step of a vCPU (gdb_step.h). */
#include "gdb_step.h"
#include "gdb_break.h"
#include "hyp/arch/arm_next.h"

static bool read_guest(void *arg, uint32_t addr, uint32_t n, uint32_t *val)
{
    *val = 0u;
    return guest_debug_access(arg, addr, val, n, false) == n;
}

bool gdb_step_begin(struct vcpu *v)
{
    struct arm_next_ctx c = { .cpsr = v->regs.cpsr, .read = read_guest, .arg = v };
    uint32_t next;
    for (unsigned int n = 0u; n < 16u; n++) {
        c.r[n] = *vcpu_saved_reg(v, n);
    }
    if (!arm_next(&c, &next)) {
        return false;
    }
    return gdb_bp_step_insert(v, next);
}
