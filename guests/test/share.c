/*
 * Shared-CPU test guest (tests/system/configs/share.dts,
 * tests/system/test_share.py). bootargs "role=R seed=S":
 *  role=0 busy: fills d0-d31 and FPSCR with a pattern of its own (seed S)
 *    and checks them in a loop, refilling a new variant now and then; every
 *    500 ms of its virtual time prints the checks done in that time, the
 *    VFP errors so far and how often its VFP registers were brought back
 *    (lazy switching traps).
 *  role=1 sleep: also owns a VFP pattern, and sleeps in WFI on its virtual
 *    timer every 4 ms; on each interrupt it measures how late it came and
 *    checks its VFP registers; every 250 wakes prints the lateness.
 * On a CPU shared with another guest the registers survive only if the
 * hypervisor switches them, and the timer is on time only if a sleeping
 * vCPU's timer wakes it ahead of the busy one's turn.
 */
#include "guest.h"

#define GICD_CTLR      (GICD_BASE + 0x000)
#define GICD_ISENABLER (GICD_BASE + 0x100)
#define GICC_CTLR      (GICC_BASE + 0x000)
#define GICC_PMR       (GICC_BASE + 0x004)
#define GICC_IAR       (GICC_BASE + 0x00c)
#define GICC_EOIR      (GICC_BASE + 0x010)
#define STAT_VFP       STAT_TRAP(10)

static uint64_t want[32], got[32];
static uint32_t want_fpscr;
static uint32_t vfp_errors;

/* CPACR: CP10/CP11 full access; FPEXC.EN (B1.11.4) */
static void vfp_enable(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c1, c0, 2" : "=r"(v));
    v |= 0xfu << 20;
    __asm__ volatile("mcr p15, 0, %0, c1, c0, 2\n isb" : : "r"(v));
    __asm__ volatile(".fpu neon-vfpv4\n vmsr fpexc, %0\n isb" : : "r"(1u << 30));
}

static void vfp_fill(uint32_t seed, uint32_t gen)
{
    for (unsigned int i = 0; i < 32; i++)
        want[i] = ((uint64_t)(seed * 0x9e3779b9u + gen) << 32) | (seed << 24) | (gen << 8) | i;
    /* rounding mode (bits 23:22) and flush-to-zero (24) from the seed */
    want_fpscr = ((seed & 3) << 22) | ((seed & 4) << 22);
    __asm__ volatile(".fpu neon-vfpv4\n"
                     "vldmia %0, {d0-d15}\n"
                     "vldmia %1, {d16-d31}\n"
                     "vmsr fpscr, %2\n"
                     : : "r"(want), "r"(&want[16]), "r"(want_fpscr) : "memory");
}

/* true if d0-d31 and FPSCR still hold the pattern */
static bool vfp_check(void)
{
    uint32_t fpscr;
    __asm__ volatile(".fpu neon-vfpv4\n"
                     "vstmia %1, {d0-d15}\n"
                     "vstmia %2, {d16-d31}\n"
                     "vmrs %0, fpscr\n"
                     : "=r"(fpscr) : "r"(got), "r"(&got[16]) : "memory");
    bool ok = (fpscr & 0x01c00000u) == want_fpscr;
    for (unsigned int i = 0; i < 32; i++)
        ok &= got[i] == want[i];
    if (!ok && vfp_errors++ < 3)
        gprintf("VFP MISMATCH: d0 %08lx%08lx (want %08lx%08lx), fpscr %08lx (want %08lx)\n",
                (unsigned long)(got[0] >> 32), (unsigned long)got[0],
                (unsigned long)(want[0] >> 32), (unsigned long)want[0],
                (unsigned long)fpscr, (unsigned long)want_fpscr);
    return ok;
}

static void busy(uint32_t seed)
{
    uint64_t period = ms_to_ticks(500), next = cntvct() + period;
    uint32_t gen = 0, checks = 0, report = 0;
    vfp_fill(seed, gen);
    for (;;) {
        vfp_check();
        if ((++checks & 4095) == 0)
            vfp_fill(seed, ++gen);
        if (cntvct() >= next) {
            next += period;
            gprintf("busy %lu: checks %lu vfp-errors %lu vfp-loads %lu\n",
                    (unsigned long)report++, (unsigned long)checks,
                    (unsigned long)vfp_errors, (unsigned long)partita_stat(STAT_VFP));
            checks = 0;
        }
    }
}

/* ---- role 1: on the virtual timer ---- */

static volatile uint64_t deadline;
static volatile uint32_t wakes;
static uint64_t late_max, late_sum;

void guest_irq_handler(uint32_t *frame)
{
    uint32_t iar = mmio_read32(GICC_IAR);
    if ((iar & 0x3ff) == 27) {
        uint64_t late = cntvct() - deadline;
        if (late > late_max)
            late_max = late;
        late_sum += late;
        wakes++;
        vtimer_off();   /* off until re-armed */
    }
    if ((iar & 0x3ff) < 1020)
        mmio_write32(GICC_EOIR, iar);
}

static void sleeper(uint32_t seed)
{
    uint32_t period = (uint32_t)ms_to_ticks(4), report = 0;
    uint64_t f = cntfrq();
    mmio_write32(GICD_CTLR, 1);
    mmio_write32(GICD_ISENABLER, 1u << 27);
    mmio_write32(GICC_PMR, 0xf0);
    mmio_write32(GICC_CTLR, 1);
    vfp_fill(seed, 0);
    for (;;) {
        uint32_t w = wakes;
        deadline = cntvct() + period;
        vtimer_arm(deadline);
        /* sleep with interrupts masked: WFI wakes on the pending one */
        while (wakes == w) {
            __asm__ volatile("wfi");
            __asm__ volatile("cpsie i\n nop\n cpsid i");
        }
        vfp_check();
        if (wakes % 250 == 0) {
            gprintf("sleep %lu: wakes %lu late avg %lu us max %lu us vfp-errors %lu "
                    "vfp-loads %lu\n", (unsigned long)report++, (unsigned long)wakes,
                    (unsigned long)(late_sum * 1000000 / f / 250),
                    (unsigned long)(late_max * 1000000 / f),
                    (unsigned long)vfp_errors, (unsigned long)partita_stat(STAT_VFP));
            late_sum = late_max = 0;
        }
    }
}

void guest_main(uint32_t dtb)
{
    uint32_t role = 0, seed = 1;
    bootarg_u32("role", &role);
    bootarg_u32("seed", &seed);
    vfp_enable();
    gprintf("share: role %lu seed %lu\n", (unsigned long)role, (unsigned long)seed);
    if (role == 1)
        sleeper(seed);
    busy(seed);
}
