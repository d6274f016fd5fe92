/*
 * The test-guest library: console on the virtual board's PL011, PSCI and
 * Partita calls over HVC, exception handlers that tests can expect, and a
 * tiny test framework whose output the system tests parse:
 *   "TEST <name>: PASS" / "TEST <name>: FAIL <why>", then
 *   "RESULT: <n> passed, <m> failed".
 */
#ifndef GUEST_H
#define GUEST_H

#include <stdint.h>
#include <stdbool.h>
#include <stdarg.h>

#define VUART_BASE   0x09000000u
#define GICD_BASE    0x08000000u
#define GICC_BASE    0x08010000u
#define RAM_BASE     0x40000000u

void gprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void gputs(const char *s);

/* SMCCC over HVC (or SMC): r0..r3 in, r0..r3 out */
struct smc_ret { uint32_t r0, r1, r2, r3; };
struct smc_ret hvc_call(uint32_t fn, uint32_t a1, uint32_t a2, uint32_t a3);
struct smc_ret smc_call(uint32_t fn, uint32_t a1, uint32_t a2, uint32_t a3);

#define PSCI_VERSION        0x84000000u
#define PSCI_CPU_SUSPEND    0x84000001u
#define PSCI_CPU_OFF        0x84000002u
#define PSCI_CPU_ON         0x84000003u
#define PSCI_AFFINITY_INFO  0x84000004u
#define PSCI_MIGRATE        0x84000005u
#define PSCI_MIGRATE_INFO_TYPE 0x84000006u
#define PSCI_SYSTEM_OFF     0x84000008u
#define PSCI_SYSTEM_RESET   0x84000009u
#define PSCI_FEATURES       0x8400000au
#define PARTITA_VERSION     0x86000000u
#define PARTITA_GUEST_INFO  0x86000001u

/* What the last expected exception recorded */
struct fault_record {
    volatile unsigned int count;
    volatile uint32_t kind;         /* 1 undef, 3 prefetch abort, 4 data abort */
    volatile uint32_t pc, far, fsr;
};
extern struct fault_record faults[8];   /* per vCPU */

/* Run fn expecting exactly one exception of kind; returns its record */
unsigned int cpu_id(void);
void expect_fault_begin(void);
unsigned int fault_count(void);

/* test framework */
void test_begin(const char *name);
void test_check(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define CHECK(cond, ...) test_check((cond), __VA_ARGS__)
void test_end(void);
int tests_finish(void);          /* prints RESULT line; returns failures */
void guest_poweroff(void) __attribute__((noreturn));

/* entry points a test guest provides */
void guest_main(uint32_t dtb);
void guest_secondary(unsigned int cpu);
extern void secondary_start(void);

static inline uint32_t mmio_read32(uint32_t a) { return *(volatile uint32_t *)a; }
static inline void mmio_write32(uint32_t a, uint32_t v) { *(volatile uint32_t *)a = v; }
static inline void dsb(void) { __asm__ volatile("dsb sy" ::: "memory"); }
static inline void isb(void) { __asm__ volatile("isb" ::: "memory"); }
static inline uint64_t cntvct(void)
{
    uint32_t lo, hi;
    isb();
    __asm__ volatile("mrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi));
    return ((uint64_t)hi << 32) | lo;
}
static inline uint32_t cntfrq(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(v));
    return v;
}

#endif
