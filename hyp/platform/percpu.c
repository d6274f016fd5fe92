#include "percpu.h"

struct pcpu pcpus[MAX_CPUS];
unsigned int pcpu_count;

void pcpu_init_self(unsigned int index, uint32_t start_mode)
{
    struct pcpu *c = &pcpus[index];
    c->index = index;
    c->mpidr = sysreg_read_mpidr() & 0x00ffffffu;
    c->start_mode = start_mode;
    sysreg_write_htpidr((uint32_t)c);
    isb();
}

unsigned int pcpu_online_count(void)
{
    unsigned int n = 0u;
    for (unsigned int i = 0u; i < MAX_CPUS; i++) {
        n += pcpus[i].online;
    }
    return n;
}

const char *start_mode_name(uint32_t mode)
{
    switch (mode) {
    case START_MODE_NS_HYP: return "nonsecure-hyp";
    case START_MODE_SECURE: return "secure";
    case START_MODE_NS_SVC: return "nonsecure-svc";
    default: return "unknown";
    }
}
