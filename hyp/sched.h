#ifndef HYP_SCHED_H
#define HYP_SCHED_H
#include <stdbool.h>
/* Every physical CPU ends here: run the vCPU pinned to it, or sleep. */
void pcpu_loop(void) __attribute__((noreturn));
/* the boot CPU has monitor or lifecycle work: leave the guest for it */
void sched_cpu0_work(void);
/* console input arrived (the UART interrupt, on the boot CPU) */
void sched_console_input(void);
#endif
