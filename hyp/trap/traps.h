/* The trap layer: every exit of a guest is handled here. */
#ifndef HYP_TRAPS_H
#define HYP_TRAPS_H
#include <stdint.h>
#include <arch/sysregs.h>
#include "hyp/arch/vcpu.h"

typedef void (*trap_fn)(struct vcpu *v, uint32_t hsr);
/* handlers by HSR exception class (B3.13.6); NULL: undefined for the guest */
#define TRAP_EC_MAX 0x40
extern const trap_fn trap_table[TRAP_EC_MAX];
void trap_undef(struct vcpu *v, uint32_t hsr);
void trap_irq(struct vcpu *v, uint32_t reason);

/* Handle one exit of v (the general registers are in v->regs); inline in
 * the scheduler's loop, the way into every trap */
static inline void trap_handle_exit(struct vcpu *v, uint32_t reason)
{
    if (reason != EXIT_TRAP) {
        trap_irq(v, reason);
        return;
    }
    uint32_t hsr = sysreg_read_hsr();
    trap_fn fn = trap_table[HSR_EC(hsr)];
    (fn ? fn : trap_undef)(v, hsr);
}
/*
 * What a trap needs from the layers above it, registered once at boot
 * (boot/main.c): the trap layer calls neither the scheduler nor the guest
 * code directly.
 */
struct trap_hooks {
    /* WFI: sleep until v has something to do (hyp/sched: vcpu_wait) */
    void (*wait)(struct vcpu *v);
    /* v did something it cannot be handed back (hyp/guest: guest_crash) */
    void (*crash)(struct vcpu *v, const char *why, uint32_t hsr, uint32_t far);
    /* a BKPT of v while gdb is attached (HDCR.TDE): stop for the debugger
     * (hyp/guest: guest_debug_stop) */
    void (*debug_stop)(struct vcpu *v);
};
void trap_set_hooks(const struct trap_hooks *hooks);

#endif
