/*
 * Cyclic schedules left out of the image (docs/building.md, "Rooms"):
 * linked instead of cyclic.c and cyclic_ctl.c.  No configuration has a
 * schedule (hyp/config/config_schedule_none.c refuses them), so no CPU is
 * under one and every switch is refused.
 */
#include "cyclic.h"
#include "hyp/lib/halt.h"

void sched_cyclic_prepare(const struct system_config *sys)
{
}

void sched_cyclic_start(const struct system_config *sys, struct vm *(*vm_of)(unsigned int i))
{
}

bool sched_cyclic_cpu(unsigned int cpu)
{
    return false;
}

/* never called: sched_cyclic_cpu is false for every CPU */
void sched_cyclic_loop(struct pcpu *c)
{
    hyp_halt();
}

int schedule_request_switch(unsigned int index)
{
    return SCHEDULE_E_INVALID;
}

uint32_t schedule_switch_frame(void)
{
    return 0;
}

bool schedule_fill(struct partita_schedule *o)
{
    return false;
}

int schedule_in_force(void)
{
    return -1;
}
