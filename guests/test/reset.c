/*
 * PSCI SYSTEM_RESET: the guest must run again from its entry point with
 * a pristine image and a fresh machine.  The first boot checks its fresh
 * state, then leaves a mark everywhere it can (.data, .bss, a RAM page,
 * CP15 thread registers, the virtual timer, the UART's registers, vCPU 1
 * left spinning) and asks for a reset; the second boot finds none of it
 * and powers off.
 *
 * Which boot is which?  A correct hypervisor leaves the guest nothing to
 * tell them apart by, except time: the first boot waits until the host's
 * physical counter passes second-boot-after (bootargs, ms) before it
 * resets, so a boot that starts after that point is the second one.
 *
 * bootargs: second-boot-after=<ms of host counter time>
 */
#include "guest.h"

#define MARK        0xdead0000u
#define DATA_INIT   0x1234abcdu
#define SCRATCH     (RAM_BASE + 0x200000)      /* a page outside the image */
#define SCRATCH_WORDS 1024

static volatile uint32_t data_word = DATA_INIT;    /* .data */
static volatile uint32_t bss_word;                 /* .bss */
static volatile uint32_t spins;                    /* vCPU 1 counts here */
static volatile uint32_t spinning;

static uint32_t read_tpidrurw(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c13, c0, 2" : "=r"(v));
    return v;
}

static uint32_t read_tpidrprw(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c13, c0, 4" : "=r"(v));
    return v;
}

static uint32_t read_cntv_ctl(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c14, c3, 1" : "=r"(v));
    return v;
}

void guest_secondary(unsigned int cpu)
{
    spinning = 1;
    for (;;)
        spins++;
}

void guest_main(uint32_t dtb)
{
    uint64_t vct = cntvct(), pct = cntpct();
    uint32_t after = 2000;
    bootarg_u32("second-boot-after", &after);
    uint64_t started = pct - vct;       /* host counter at this boot's start */
    bool second = started >= ms_to_ticks(after);
    gprintf("reset: boot %d: started at %lu ms of host time, virtual time %lu ms\n",
            second ? 2 : 1, (unsigned long)(started * 1000 / cntfrq()),
            (unsigned long)(vct * 1000 / cntfrq()));

    test_begin("fresh_image");
    CHECK(data_word == DATA_INIT, ".data word 0x%08lx, the image has 0x%08lx",
          (unsigned long)data_word, (unsigned long)DATA_INIT);
    CHECK(bss_word == 0 && spins == 0, ".bss words 0x%08lx 0x%08lx, expected 0",
          (unsigned long)bss_word, (unsigned long)spins);
    test_end();

    test_begin("fresh_ram");
    uint32_t first = 0;
    uint32_t n = ram_count_nonzero(SCRATCH, SCRATCH + 4 * SCRATCH_WORDS, &first);
    CHECK(n == 0, "%lu words of the scratch page not zero, the first at 0x%08lx = 0x%08lx",
          (unsigned long)n, (unsigned long)first,
          (unsigned long)(n ? *(volatile uint32_t *)first : 0));
    test_end();

    test_begin("fresh_vcpus");
    CHECK(boot_state.r0 == 0 && boot_state.r1 == 0xffffffffu && !(boot_state.sctlr & 5) &&
          (boot_state.cpsr & 0x1f) == 0x13,
          "vCPU 0 started with r0 0x%08lx r1 0x%08lx CPSR 0x%08lx SCTLR 0x%08lx",
          (unsigned long)boot_state.r0, (unsigned long)boot_state.r1,
          (unsigned long)boot_state.cpsr, (unsigned long)boot_state.sctlr);
    CHECK((read_tpidrurw() & 0xffff0000u) != MARK && (read_tpidrprw() & 0xffff0000u) != MARK,
          "TPIDRURW 0x%08lx TPIDRPRW 0x%08lx kept from before", (unsigned long)read_tpidrurw(),
          (unsigned long)read_tpidrprw());
    CHECK(!(read_cntv_ctl() & 1), "CNTV_CTL 0x%lx: the virtual timer is still enabled",
          (unsigned long)read_cntv_ctl());
    CHECK(vct < ms_to_ticks(1000), "the virtual counter was at %lu ms at entry: not restarted",
          (unsigned long)(vct * 1000 / cntfrq()));
    int32_t a = (int32_t)hvc_call(PSCI_AFFINITY_INFO, 1, 0, 0).r0;
    CHECK(a == 1, "AFFINITY_INFO(1) = %ld at boot, expected 1 (OFF)", (long)a);
    delay_ms(20);
    CHECK(spins == 0, "vCPU 1 still runs old code: %lu spins", (unsigned long)spins);
    test_end();

    test_begin("fresh_uart");
    uint32_t cr = mmio_read32(VUART_BASE + 0x30), imsc = mmio_read32(VUART_BASE + 0x38);
    uint32_t lcr = mmio_read32(VUART_BASE + 0x2c);
    CHECK(imsc == 0 && lcr == 0 && cr == 0x300, "UART IMSC 0x%lx LCR_H 0x%lx CR 0x%lx: "
          "not as after reset (0, 0, 0x300)", (unsigned long)imsc, (unsigned long)lcr,
          (unsigned long)cr);
    test_end();

    if (second) {
        gprintf("reset: second boot: fresh, powering off\n");
        tests_finish();
        return;
    }

    /* leave marks, then reset */
    data_word = MARK | 1;
    bss_word = MARK | 2;
    for (uint32_t i = 0; i < SCRATCH_WORDS; i++)
        ((volatile uint32_t *)SCRATCH)[i] = MARK | 3;
    __asm__ volatile("mcr p15, 0, %0, c13, c0, 2" : : "r"(MARK | 4));
    __asm__ volatile("mcr p15, 0, %0, c13, c0, 4" : : "r"(MARK | 5));
    __asm__ volatile("mcrr p15, 3, %0, %1, c14" : : "r"(0xffffffffu), "r"(0x00ffffffu));
    __asm__ volatile("mcr p15, 0, %0, c14, c3, 1" : : "r"(3));  /* enabled, masked */
    mmio_write32(VUART_BASE + 0x2c, 0x70);  /* LCR_H: 8 bits, FIFOs */
    mmio_write32(VUART_BASE + 0x38, 0x10);  /* IMSC: RX */
    test_begin("marks_left");
    int32_t r = (int32_t)hvc_call(PSCI_CPU_ON, 1, (uint32_t)secondary_start, 1).r0;
    CHECK(r == PSCI_SUCCESS, "CPU_ON(1) = %ld", (long)r);
    uint64_t end = cntvct() + ms_to_ticks(3000);
    while (!spinning && cntvct() < end)
        ;
    CHECK(spinning, "vCPU 1 did not start");
    CHECK(read_tpidrurw() == (MARK | 4) && (read_cntv_ctl() & 3) == 3,
          "TPIDRURW 0x%08lx CNTV_CTL 0x%lx did not take the marks",
          (unsigned long)read_tpidrurw(), (unsigned long)read_cntv_ctl());
    test_end();
    tests_finish();

    while (cntpct() < ms_to_ticks(after) + ms_to_ticks(100))
        ;
    gprintf("reset: first boot: asking for a reset\n");
    /* r4-r11 marked too: nothing of them may show in the next boot */
    register uint32_t r0 __asm__("r0") = PSCI_SYSTEM_RESET;
    __asm__ volatile("ldr r4, =0xdead0004\n mov r5, r4\n mov r6, r4\n mov r7, r4\n"
                     "mov r8, r4\n mov r9, r4\n mov r10, r4\n mov r11, r4\n"
                     "hvc #0\n"
                     : "+r"(r0) : : "r1", "r2", "r3", "r4", "r5", "r6", "r7", "r8", "r9",
                       "r10", "r11", "memory");
    test_begin("system_reset");
    CHECK(false, "SYSTEM_RESET returned 0x%08lx", (unsigned long)r0);
    test_end();
    tests_finish();
}
