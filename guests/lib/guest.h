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
#include <partita/hvc.h>
#include <stddef.h>

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

/* call IDs, return codes and statistics counters: the hypervisor's own ABI header */
#define PARTITA_VERSION     PARTITA_HC_VERSION
#define PARTITA_GUEST_INFO  PARTITA_HC_GUEST_INFO
#define PARTITA_STATS       PARTITA_HC_STATS
#define TRAP_CAUSE_CP15     1
#define TRAP_CAUSE_CP14     2
#define TRAP_CAUSE_HVC      3
#define TRAP_CAUSE_SMC      4
#define TRAP_CAUSE_MMIO     5
#define TRAP_CAUSE_DABT     6
#define TRAP_CAUSE_PABT     7
#define STAT_EXITS          PARTITA_STAT_EXITS
#define STAT_IDLE           PARTITA_STAT_IDLE
#define STAT_TRAP(n)        PARTITA_STAT_TRAP(n)   /* 0 WFI 1 CP15 2 CP14 3 HVC 4 SMC 5 MMIO 6 abort 7 pabt 8 undef 9 IRQ */
#define STAT_INJECTED       PARTITA_STAT_INJECTED
#define STAT_MAINT          PARTITA_STAT_MAINT
static inline uint64_t partita_stat(uint32_t n);

/* What the last expected exception recorded */
struct fault_record {
    volatile unsigned int count;
    volatile uint32_t kind;         /* 1 undef, 3 prefetch abort, 4 data abort */
    volatile uint32_t pc, far, fsr;
    volatile uint32_t spsr;         /* the interrupted state (mode, T, IT) */
    volatile uint32_t mode;         /* the mode the handler ran in */
    volatile uint32_t insn;         /* the faulting instruction (undef only) */
    volatile uint32_t cpsr;         /* the handler's CPSR (how it was entered) */
};
#define FAULT_UNDEF 1
#define FAULT_PABT  3
#define FAULT_DABT  4
extern struct fault_record faults[8];   /* per vCPU */

/* A prefetch or data abort is first offered to this hook (a guest that
 * uses breakpoints and watchpoints defines it): frame[13] is the aborting
 * instruction's address, where the handler returns; true if it took it */
bool guest_debug_event(uint32_t *frame, uint32_t kind, uint32_t fsr);

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

static inline void dsb(void) { __asm__ volatile("dsb sy" ::: "memory"); }
static inline void isb(void) { __asm__ volatile("isb" ::: "memory"); }

/*
 * WFI if cond (what an interrupt handler changes) still holds, IRQs unmasked
 * again after.  cond is tested with IRQs masked, so an interrupt that comes
 * between the test and the WFI stays pending and ends it (a pending IRQ
 * wakes WFI whatever CPSR.I says, ARM ARM B1.8.13).  Tested with IRQs
 * enabled, that interrupt is taken before the WFI, which then waits for
 * another that may never come: a one-shot timer's tick or an SGI that is
 * answered before the next is sent hung that way under a busy host.
 */
#define WFI_WHILE(cond)                                     \
    do {                                                    \
        __asm__ volatile("cpsid i" ::: "memory");           \
        if (cond)                                           \
            __asm__ volatile("wfi" ::: "memory");           \
        __asm__ volatile("cpsie i" ::: "memory");           \
    } while (0)

/* ---- more of the library (all optional for a guest) ---- */

#define SMCCC_VERSION_FN        0x80000000u

/* Thumb entry point for PSCI CPU_ON (use its address | 1) */
extern void secondary_start_thumb(void);
extern volatile uint32_t thumb_entries[8];   /* Thumb starts per vCPU */
/* how vCPU 0 started (start.S) and the last start of each secondary */
struct boot_state { uint32_t dtb, r0, r1, cpsr, sctlr; };
extern struct boot_state boot_state;
struct secondary_state { volatile uint32_t cpsr, sctlr; };
extern struct secondary_state secondary_state[8];

/* What the guest's device tree says (filled in before guest_main) */
struct guest_dt {
    bool valid;
    uint32_t mem_base, mem_size;    /* /memory reg */
    unsigned int ncpus;             /* /cpus/cpu@N nodes */
    char bootargs[256];             /* /chosen bootargs */
    char cpu_compatible[32];        /* of /cpus/cpu@0 */
    char psci_method[8];            /* /psci method */
    uint32_t initrd_start, initrd_end;  /* /chosen linux,initrd-start/end; 0: none */
};
extern struct guest_dt guest_dt;
bool dt_parse(const void *dtb, struct guest_dt *out);
/* "key=v1,v2,..." in bootargs: numbers (C syntax); returns how many */
int bootarg_u32s(const char *key, uint32_t *vals, int max);
bool bootarg_u32(const char *key, uint32_t *val);

/* An edge-triggered SPI (a doorbell, a virtio device: their DT says so)
 * to vCPU 0 at priority 0x80, enabled, with the distributor and
 * the CPU interface on (IRQs stay masked in the CPSR) */
void spi_enable(unsigned int irq);
/* The same for a PPI of this vCPU (the virtual timer's, 27) */
void ppi_enable(unsigned int irq);

/* The image's extent: [RAM_BASE, image_end()) holds code, data, bss, stacks */
uint32_t image_end(void);

/* Accesses that may abort: true if they did (the fault is in faults[cpu]) */
bool try_read32(uint32_t addr, uint32_t *val);
bool try_write32(uint32_t addr, uint32_t val);
bool try_read8(uint32_t addr, uint32_t *val);
bool try_exec(uint32_t addr);          /* branch there, come back on a prefetch abort */
struct fault_record *my_fault(void);

/* SMP helpers */
typedef struct { volatile uint32_t v; } gspinlock_t;
void gspin_lock(gspinlock_t *l);
void gspin_unlock(gspinlock_t *l);
uint32_t atomic_add(volatile uint32_t *p, uint32_t n);   /* returns the new value */
uint64_t ms_to_ticks(uint32_t ms);
void delay_ms(uint32_t ms);

/* Stage-1 MMU: flat (VA = IPA) 1 MiB sections, RAM window normal write-back,
 * the rest device and execute-never; one table for every vCPU */
void mmu_enable(void);
void mmu_disable(void);                /* cleans the data cache first */
bool mmu_enabled(void);
#define SECT_NORMAL  0x00011c0eu       /* TEX=001 C=1 B=1 (WBWA), AP=011, S */
#define SECT_DEVICE  0x00000c16u       /* TEX=000 C=0 B=1 (shareable device), AP=011, XN */
void mmu_map_section(uint32_t va, uint32_t desc);   /* desc: PA | SECT_*, or a table */
uint32_t mmu_section(uint32_t va);

/* RAM test over [start, end) (word aligned): each word its own address,
 * then its complement, then alternating bits, each written in full before
 * it is read back (so aliased pages show up), and byte/halfword stores.
 * Returns the number of bad words; *first_bad gets the first one. */
uint32_t ram_test(uint32_t start, uint32_t end, uint32_t *first_bad);
/* Words in [start, end) that are not zero (first one in *first) */
uint32_t ram_count_nonzero(uint32_t start, uint32_t end, uint32_t *first);

/* Cache maintenance by set/way over every level CLIDR reports */
enum setway_op { SETWAY_DCISW, SETWAY_DCCSW, SETWAY_DCCISW };
unsigned int dcache_setway_all(enum setway_op op);   /* returns the number of ops */

/* Run n ARM instructions from a RAM buffer (I-cache made coherent first):
 * r0-r11 come from regs and go back there; the code must leave r13-r15 */
#define JIT_MAX 256
void jit_run(const uint32_t *insns, unsigned int n, uint32_t regs[12]);
/* the same for n halfwords of Thumb code (16- and 32-bit instructions) */
void jit_run_thumb(const uint16_t *hw, unsigned int n, uint32_t regs[12]);
/* xorshift32 */
uint32_t rand_next(uint32_t *state);
/* a random SMCCC function ID that leaves the caller running */
uint32_t rand_smccc_fn(uint32_t *state);

static inline uint32_t read_cpsr(void)
{
    uint32_t v;
    __asm__ volatile("mrs %0, cpsr" : "=r"(v));
    return v;
}
static inline uint32_t read_sctlr(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c1, c0, 0" : "=r"(v));
    return v;
}
static inline uint32_t read_mpidr(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c0, c0, 5" : "=r"(v));
    return v;
}
static inline uint64_t cntpct(void)
{
    uint32_t lo, hi;
    isb();
    __asm__ volatile("mrrc p15, 0, %0, %1, c14" : "=r"(lo), "=r"(hi));
    return ((uint64_t)hi << 32) | lo;
}

/* one plain LDR/STR each: a compiler's writeback or LDRD forms carry no
 * syndrome (ISV = 0) and a hypervisor cannot emulate them (as Linux's
 * readl/writel are asm for the same reason) */
static inline uint32_t mmio_read32(uint32_t a)
{
    uint32_t v;
    __asm__ volatile("ldr %0, [%1]" : "=r"(v) : "r"(a) : "memory");
    return v;
}
static inline void mmio_write32(uint32_t a, uint32_t v)
{
    __asm__ volatile("str %0, [%1]" : : "r"(v), "r"(a) : "memory");
}
static inline void mmio_write8(uint32_t a, uint8_t v)
{
    __asm__ volatile("strb %0, [%1]" : : "r"(v), "r"(a) : "memory");
}
static inline void mmio_write16(uint32_t a, uint16_t v)
{
    __asm__ volatile("strh %0, [%1]" : : "r"(v), "r"(a) : "memory");
}
static inline uint32_t mmio_read8(uint32_t a)
{
    uint32_t v;
    __asm__ volatile("ldrb %0, [%1]" : "=r"(v) : "r"(a) : "memory");
    return v;
}
static inline uint32_t mmio_read16(uint32_t a)
{
    uint32_t v;
    __asm__ volatile("ldrh %0, [%1]" : "=r"(v) : "r"(a) : "memory");
    return v;
}
static inline uint64_t cntvct(void)
{
    uint32_t lo, hi;
    isb();
    __asm__ volatile("mrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi));
    return ((uint64_t)hi << 32) | lo;
}
/* The virtual timer: fire at CNTVCT == at (CNTV_CVAL, then CNTV_CTL.ENABLE),
 * or off */
static inline void vtimer_arm(uint64_t at)
{
    __asm__ volatile("mcrr p15, 3, %0, %1, c14" : : "r"((uint32_t)at), "r"((uint32_t)(at >> 32)));
    __asm__ volatile("mcr p15, 0, %0, c14, c3, 1" : : "r"(1u));
    isb();
}
static inline void vtimer_off(void)
{
    __asm__ volatile("mcr p15, 0, %0, c14, c3, 1" : : "r"(0u));
    isb();
}
static inline uint32_t cntfrq(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c14, c0, 0" : "=r"(v));
    return v;
}

static inline uint64_t partita_stat(uint32_t n)
{
    struct smc_ret r = hvc_call(PARTITA_STATS, n, 0, 0);
    return ((uint64_t)r.r1 << 32) | r.r0;
}

#endif
