/* The end of the line for a CPU that cannot go on. */
#include <arch/sysregs.h>
#include "halt.h"

void hyp_halt(void)
{
    irq_disable();
    for (;;) {
        wfi();
    }
}
