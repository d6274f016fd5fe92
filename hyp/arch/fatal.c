/*
 * An unexpected exception in HYP: report everything a developer needs and
 * park this CPU only; the others go on.
 */
#include <arch/sysregs.h>
#include "frame.h"
#include "hyp/lib/console.h"
#include "hyp/platform/percpu.h"

static const char *const kind_names[] = {
    "reset", "undefined instruction", "HVC in HYP", "prefetch abort",
    "data abort", "unexpected trap",
    "IRQ taken in HYP (HYP runs with IRQs masked: a hypervisor bug)",
    "FIQ taken in HYP (HYP runs with FIQs masked: a hypervisor bug)",
};

void hyp_fatal(struct hyp_frame *f)
{
    struct pcpu *c = this_cpu();
    unsigned int kind = f->kind & 0xffu;
    const char *name = kind < 8u ? kind_names[kind] : "?";

    console_hold_break();

    if ((f->kind & EXC_STACK_OVERFLOW) != 0u) {
        console_printf("\n*** cpu%u: HYP stack overflow (guard page hit) during %s\n",
                       c->index, name);
    } else {
        console_printf("\n*** cpu%u: fatal HYP exception: %s\n", c->index, name);
    }
    console_printf("  mode 0x%02lx (%s)  PC 0x%08lx  CPSR 0x%08lx  HSR 0x%08lx\n",
                   (unsigned long)(f->spsr & PSR_MODE_MASK),
                   ((f->spsr & PSR_MODE_MASK) == PSR_MODE_HYP) ? "HYP" : "guest",
                   (unsigned long)f->pc, (unsigned long)f->spsr,
                   (unsigned long)sysreg_read_hsr());
    console_printf("  HDFAR 0x%08lx  HIFAR 0x%08lx  HPFAR 0x%08lx\n",
                   (unsigned long)sysreg_read_hdfar(), (unsigned long)sysreg_read_hifar(),
                   (unsigned long)sysreg_read_hpfar());
    for (int i = 0; i < 13; i += 4) {
        console_printf("  ");
        for (int j = i; j < i + 4 && j < 13; j++) {
            console_printf("r%-2d 0x%08lx  ", j, (unsigned long)f->r[j]);
        }
        console_printf("\n");
    }
    console_printf("  sp  0x%08lx  lr  0x%08lx\n", (unsigned long)f->sp, (unsigned long)f->lr);
    console_printf("*** cpu%u stopped; the other CPUs go on\n", c->index);
    c->parked = true;
    c->online = false;
    for (;;) {
        wfi();  /* IRQs stay masked: this CPU does nothing more */
    }
}
