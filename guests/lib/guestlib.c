#include <stdio.h>
#include <string.h>
#include "guest.h"

struct fault_record faults[8];
static volatile int lock;
static unsigned int passed, failed;
static const char *cur_test;
static bool cur_ok;

static void spin_lock(volatile int *l)
{
    int tmp, one = 1;
    __asm__ volatile(
        "1: ldrex %0, [%1]\n"
        "   teq   %0, #0\n"
        "   wfene\n"
        "   strexeq %0, %2, [%1]\n"
        "   teqeq %0, #0\n"
        "   bne   1b\n"
        "   dmb\n"
        : "=&r"(tmp) : "r"(l), "r"(one) : "cc", "memory");
}

static void spin_unlock(volatile int *l)
{
    __asm__ volatile("dmb" ::: "memory");
    *l = 0;
    __asm__ volatile("dsb\n sev" ::: "memory");
}

static void uart_putc(char c)
{
    while (mmio_read32(VUART_BASE + 0x18) & (1 << 5))
        ;
    mmio_write32(VUART_BASE, (uint8_t)c);
}

void gputs(const char *s)
{
    spin_lock(&lock);
    while (*s)
        uart_putc(*s++);
    spin_unlock(&lock);
}

void gprintf(const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    gputs(buf);
}

struct smc_ret hvc_call(uint32_t fn, uint32_t a1, uint32_t a2, uint32_t a3)
{
    register uint32_t r0 __asm__("r0") = fn, r1 __asm__("r1") = a1;
    register uint32_t r2 __asm__("r2") = a2, r3 __asm__("r3") = a3;
    __asm__ volatile("hvc #0" : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : : "memory");
    return (struct smc_ret){ r0, r1, r2, r3 };
}

struct smc_ret smc_call(uint32_t fn, uint32_t a1, uint32_t a2, uint32_t a3)
{
    register uint32_t r0 __asm__("r0") = fn, r1 __asm__("r1") = a1;
    register uint32_t r2 __asm__("r2") = a2, r3 __asm__("r3") = a3;
    __asm__ volatile(".arch_extension sec\n smc #0"
                     : "+r"(r0), "+r"(r1), "+r"(r2), "+r"(r3) : : "memory");
    return (struct smc_ret){ r0, r1, r2, r3 };
}

unsigned int cpu_id(void)
{
    uint32_t mpidr;
    __asm__ volatile("mrc p15, 0, %0, c0, c0, 5" : "=r"(mpidr));
    return mpidr & 0xff;
}

void expect_fault_begin(void)
{
    faults[cpu_id()].count = 0;
}

unsigned int fault_count(void)
{
    return faults[cpu_id()].count;
}

/* frame: r0-r12, return address */
static void record(uint32_t *frame, uint32_t kind, uint32_t far, uint32_t fsr, bool skip)
{
    struct fault_record *f = &faults[cpu_id()];
    f->kind = kind;
    f->pc = frame[13];
    f->far = far;
    f->fsr = fsr;
    f->count++;
    if (skip)
        frame[13] += 4;     /* ARM code only: step over the faulting instruction */
}

void guest_undef_handler(uint32_t *frame)
{
    /* LR_und points after the instruction: the return already skips it */
    frame[13] -= 4;
    record(frame, 1, 0, 0, true);
}

void guest_svc_handler(uint32_t *frame) { (void)frame; }

void guest_pabt_handler(uint32_t *frame)
{
    uint32_t ifar, ifsr;
    __asm__ volatile("mrc p15, 0, %0, c6, c0, 2" : "=r"(ifar));
    __asm__ volatile("mrc p15, 0, %0, c5, c0, 1" : "=r"(ifsr));
    /* a branch to a bad address: return to the caller instead */
    record(frame, 3, ifar, ifsr, false);
    frame[13] = frame[12];  /* tests branch with the return address in r12 */
}

void guest_dabt_handler(uint32_t *frame)
{
    uint32_t dfar, dfsr;
    __asm__ volatile("mrc p15, 0, %0, c6, c0, 0" : "=r"(dfar));
    __asm__ volatile("mrc p15, 0, %0, c5, c0, 0" : "=r"(dfsr));
    record(frame, 4, dfar, dfsr, true);
}

void __attribute__((weak)) guest_irq_handler(uint32_t *frame) { (void)frame; }
void __attribute__((weak)) guest_fiq_handler(uint32_t *frame) { (void)frame; }

void test_begin(const char *name)
{
    cur_test = name;
    cur_ok = true;
}

void test_check(bool ok, const char *fmt, ...)
{
    if (ok || !cur_ok)
        return;
    char buf[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    cur_ok = false;
    gprintf("TEST %s: FAIL %s\n", cur_test, buf);
}

void test_end(void)
{
    if (cur_ok) {
        passed++;
        gprintf("TEST %s: PASS\n", cur_test);
    } else {
        failed++;
    }
}

int tests_finish(void)
{
    gprintf("RESULT: %u passed, %u failed\n", passed, failed);
    return (int)failed;
}

void guest_poweroff(void)
{
    hvc_call(PSCI_SYSTEM_OFF, 0, 0, 0);
    for (;;)
        __asm__ volatile("wfi");
}

void guest_boot_main(uint32_t dtb)
{
    guest_main(dtb);
    guest_poweroff();
}

void guest_secondary_main(unsigned int cpu)
{
    guest_secondary(cpu);
    hvc_call(PSCI_CPU_OFF, 0, 0, 0);
    for (;;)
        __asm__ volatile("wfi");
}

void __attribute__((weak)) guest_secondary(unsigned int cpu) { (void)cpu; }

/* newlib's printf family needs these in a freestanding image */
void *_sbrk(int incr) { (void)incr; return (void *)-1; }
int _write(int fd, const char *b, int n) { (void)fd; (void)b; return n; }
int _read(int fd, char *b, int n) { (void)fd; (void)b; (void)n; return 0; }
int _close(int fd) { (void)fd; return -1; }
int _lseek(int fd, int o, int w) { (void)fd; (void)o; (void)w; return 0; }
int _fstat(int fd, void *s) { (void)fd; (void)s; return -1; }
int _isatty(int fd) { (void)fd; return 1; }
int _getpid(void) { return 1; }
int _kill(int p, int s) { (void)p; (void)s; return -1; }
void _exit(int c) { (void)c; guest_poweroff(); }
