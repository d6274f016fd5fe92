/*
 * A virtual timer interrupt held across switches of a shared CPU
 * (tests/system/configs/ppihold.dts, tests/system/test_share.py): two of
 * these guests share one CPU.  Each round, a guest arms its virtual timer,
 * takes the interrupt and, in its handler, neither ends it nor quiets the
 * timer until it has seen itself switched out and back in (a gap in its
 * virtual counter), as a long handler on a busy CPU would.
 *
 * The timer's PPI is hardware-linked: the physical interrupt stays active
 * until the guest's EOI deactivates it (GICv2 5.2.1), and while it is
 * active no other vCPU's timer on that CPU can fire.  So the hypervisor
 * deactivates it when it switches the vCPU out, and activates it again
 * when it switches the vCPU back in (hyp/sched/sched_share.c share_put,
 * share_load).  Checked: both guests take their interrupts although each
 * holds its own across switches (without the deactivation the second
 * waits for ever), and each expiry is taken exactly once, the timer firing
 * again on the next arm after the EOI.  (Without the activation QEMU's GIC
 * signals the still-asserted PPI again to the hypervisor, which takes it
 * as the same expiry: no guest sees the difference.)
 */
#include "guest.h"

#define GICC_IAR       (GICC_BASE + 0x00c)
#define GICC_EOIR      (GICC_BASE + 0x010)
#define GIC_INTID(iar) ((iar) & 0x3ffu)
#define GIC_SPURIOUS   1020u            /* 1020-1023: no interrupt */
#define VTIMER_PPI     27u

#define ROUNDS         5
#define ARM_AHEAD_MS   1u               /* the timer fires this far ahead */
/* a gap in the virtual counter this long between two reads in a row: the
 * vCPU was switched out (the other guest's slice is 2 ms) */
#define SWITCH_GAP_US  1000u
/* how long a handler waits for a switch, and a round for its interrupt,
 * in the guest's virtual time (a busy host may be slow) */
#define HOLD_MAX_MS    20000u
#define AFTER_EOI_MS   20u              /* a second interrupt would come by then */

static volatile uint32_t timer_irqs, others, switched;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    uint32_t id = GIC_INTID(iar);
    if (id >= GIC_SPURIOUS)
        return;
    if (id == VTIMER_PPI) {
        timer_irqs++;
        /* hold it, the timer still firing, until switched out and back */
        uint64_t gap = ms_to_ticks(1) * SWITCH_GAP_US / 1000u;
        uint64_t start = cntvct(), last = start;
        while (cntvct() - start < ms_to_ticks(HOLD_MAX_MS)) {
            uint64_t now = cntvct();
            if (now - last > gap) {
                switched++;
                break;
            }
            last = now;
        }
        vtimer_off();
    } else {
        others++;
    }
    mmio_write32(GICC_EOIR, iar);
}

void guest_main(uint32_t dtb)
{
    ppi_enable(VTIMER_PPI);
    test_begin("timer_irq_held_across_switches");
    for (uint32_t round = 0; round < ROUNDS; round++) {
        uint32_t before = timer_irqs, held = switched;
        vtimer_arm(cntvct() + ms_to_ticks(ARM_AHEAD_MS));
        uint64_t t0 = cntvct();
        while (timer_irqs == before && cntvct() - t0 < ms_to_ticks(HOLD_MAX_MS))
            WFI_WHILE(timer_irqs == before);
        delay_ms(AFTER_EOI_MS);         /* interrupts on: a second one is taken */
        CHECK(timer_irqs == before + 1u, "round %lu: %lu timer interrupts for one expiry",
              (unsigned long)round, (unsigned long)(timer_irqs - before));
        CHECK(switched == held + 1u, "round %lu: never switched out while holding it",
              (unsigned long)round);
    }
    CHECK(others == 0u, "%lu other interrupts", (unsigned long)others);
    gprintf("ppihold: %lu timer interrupts in %d rounds, %lu held across a switch\n",
            (unsigned long)timer_irqs, ROUNDS, (unsigned long)switched);
    test_end();
    tests_finish();
    guest_poweroff();
}
