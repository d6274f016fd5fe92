#ifndef HYP_LIB_HALT_H
#define HYP_LIB_HALT_H

/* Stop this CPU for good: interrupts masked, WFI forever. */
void hyp_halt(void) __attribute__((noreturn));

#endif
