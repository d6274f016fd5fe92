/*
 * Inside the trap layer: the handlers of trap_table.c's exception classes,
 * by the file that holds them.
 */
#ifndef HYP_TRAP_HANDLERS_H
#define HYP_TRAP_HANDLERS_H

#include <stdint.h>
#include <arch/sysregs.h>
#include "traps.h"

/* what the layers above do for a trap (trap_set_hooks) */
extern struct trap_hooks trap_hooks;

/* cp15.c: MCR/MRC and MCRR/MRRC to CP15 and CP14 */
void trap_cp15_32(struct vcpu *v, uint32_t hsr);
void trap_raz_wi_64(struct vcpu *v, uint32_t hsr);
void trap_cp14_32(struct vcpu *v, uint32_t hsr);
void trap_cp14_ls(struct vcpu *v, uint32_t hsr);
void trap_cp10_id(struct vcpu *v, uint32_t hsr);
/* smccc.c: HVC and SMC */
void trap_hvc(struct vcpu *v, uint32_t hsr);
void trap_smc(struct vcpu *v, uint32_t hsr);
/* abort.c: data and prefetch aborts */
void trap_dabt(struct vcpu *v, uint32_t hsr);
/* a debug event (HDCR.TDE: gdb attached), trap_table.c */
void trap_debug(struct vcpu *v, uint32_t hsr);
void trap_pabt(struct vcpu *v, uint32_t hsr);

#endif
