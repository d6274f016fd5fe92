/* The trap layer: every exit of a guest is handled here. */
#ifndef HYP_TRAPS_H
#define HYP_TRAPS_H
#include <stdint.h>
#include <arch/sysregs.h>
#include "hyp/arch/vcpu.h"

/*
 * The exit handlers, for guest_run (hyp/arch/vcpu.h): by HSR exception
 * class (B3.13.6), every entry set (trap_undef where Partita emulates
 * nothing: undefined for the guest), then the physical IRQ's.
 */
extern const exit_fn trap_table[GUEST_EXIT_NR];
void trap_undef(struct vcpu *v, uint32_t hsr);

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
    /* a debug exception of v while gdb is attached (HDCR.TDE), at far:
     * true if gdb took it and stopped the guest (hyp/gdb: gdb_debug_hit) */
    bool (*debug_hit)(struct vcpu *v, uint32_t hsr, uint32_t far, bool data);
};
void trap_set_hooks(const struct trap_hooks *hooks);

#endif
