/*
 * Which saved CPSR someone outside the guest (its debugger) may give one of
 * its vCPUs: the vCPU takes it at its next entry, by an exception return
 * from Hyp mode (ERET), so a value the guest's own code could never reach
 * would run the guest in a state the architecture does not define - and an
 * exception return to a reserved mode stays in Hyp mode on QEMU's ARMv7
 * CPUs, the guest's code with the hypervisor's privilege.  A pure function
 * of the values, unit tested on the host (tests/unit/arch/test_psr.c).
 */
#ifndef HYP_ARCH_PSR_H
#define HYP_ARCH_PSR_H

#include <stdint.h>
#include <stdbool.h>

/* May a vCPU whose saved CPSR is old be given val instead? */
bool psr_debugger_may_write(uint32_t old, uint32_t val);
/* Is mode (CPSR.M) one of the seven a guest at PL1 and PL0 has? */
bool psr_guest_mode(uint32_t mode);

#endif
