#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "guest.h"

struct fault_record faults[8];
static gspinlock_t lock;     /* one console line at a time */
static unsigned int passed, failed;
static const char *cur_test;
static bool cur_ok;

static void uart_putc(char c)
{
    while (mmio_read32(VUART_BASE + 0x18) & (1 << 5))
        ;
    mmio_write32(VUART_BASE, (uint8_t)c);
}

void gputs(const char *s)
{
    gspin_lock(&lock);
    while (*s)
        uart_putc(*s++);
    gspin_unlock(&lock);
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

/*
 * Exception handlers.  frame: r0-r12, the return address; frame[-2] is the
 * saved SPSR (start.S pushes it below the frame), which a handler may
 * change.  ARM and Thumb code (16/32-bit, inside IT blocks) are stepped.
 */
#define PSR_T (1u << 5)

static uint32_t thumb_insn_len(uint32_t pc)
{
    uint16_t hw = *(volatile uint16_t *)pc;
    return (hw >> 11) >= 0x1d ? 4 : 2;      /* 0b11101, 0b11110, 0b11111: 32-bit */
}

static uint32_t spsr_it_advance(uint32_t spsr)
{
    uint32_t it = ((spsr >> 25) & 3) | ((spsr >> 8) & 0xfc);
    if (!it)
        return spsr;
    it = (it & 7) ? ((it & 0xe0) | ((it << 1) & 0x1f)) : 0;
    spsr &= ~((3u << 25) | (0x3fu << 10));
    return spsr | ((it & 3) << 25) | ((it >> 2) << 10);
}

static void record(uint32_t *frame, uint32_t kind, uint32_t pc, uint32_t far, uint32_t fsr,
                   bool skip)
{
    struct fault_record *f = &faults[cpu_id()];
    uint32_t spsr = frame[-2];
    f->kind = kind;
    f->pc = pc;
    f->far = far;
    f->fsr = fsr;
    f->spsr = spsr;
    f->cpsr = read_cpsr();
    f->mode = f->cpsr & 0x1f;
    if (skip) {
        bool thumb = spsr & PSR_T;
        frame[13] = pc + (thumb ? thumb_insn_len(pc) : 4);
        if (thumb)
            frame[-2] = spsr_it_advance(spsr);
    }
    f->count++;
}

void guest_undef_handler(uint32_t *frame)
{
    /* LR_und is the instruction + 4 (ARM) or + 2 (Thumb, either length) */
    uint32_t spsr = frame[-2], pc;
    struct fault_record *f = &faults[cpu_id()];
    if (spsr & PSR_T) {
        pc = frame[13] - 2;
        uint32_t hw = *(volatile uint16_t *)pc;
        f->insn = thumb_insn_len(pc) == 4 ? (hw << 16) | *(volatile uint16_t *)(pc + 2) : hw;
    } else {
        pc = frame[13] - 4;
        f->insn = *(volatile uint32_t *)pc;
    }
    record(frame, FAULT_UNDEF, pc, 0, 0, true);
}

void guest_svc_handler(uint32_t *frame) { (void)frame; }

bool __attribute__((weak)) guest_debug_event(uint32_t *frame, uint32_t kind, uint32_t fsr)
{
    (void)frame; (void)kind; (void)fsr;
    return false;
}

void guest_pabt_handler(uint32_t *frame)
{
    uint32_t ifar, ifsr;
    __asm__ volatile("mrc p15, 0, %0, c6, c0, 2" : "=r"(ifar));
    __asm__ volatile("mrc p15, 0, %0, c5, c0, 1" : "=r"(ifsr));
    if (guest_debug_event(frame, FAULT_PABT, ifsr))
        return;
    record(frame, FAULT_PABT, frame[13], ifar, ifsr, false);
    /* a branch to a bad address: return to r12 (tests put the return
     * address there; bit 0 selects Thumb) */
    uint32_t ret = frame[12];
    frame[13] = ret & ~1u;
    frame[-2] = (frame[-2] & ~(PSR_T | (3u << 25) | (0x3fu << 10))) | ((ret & 1) ? PSR_T : 0);
}

void guest_dabt_handler(uint32_t *frame)
{
    uint32_t dfar, dfsr;
    __asm__ volatile("mrc p15, 0, %0, c6, c0, 0" : "=r"(dfar));
    __asm__ volatile("mrc p15, 0, %0, c5, c0, 0" : "=r"(dfsr));
    if (guest_debug_event(frame, FAULT_DABT, dfsr))
        return;
    /* LR_abt is the instruction + 8, in ARM and Thumb state alike */
    record(frame, FAULT_DABT, frame[13], dfar, dfsr, true);
}

struct fault_record *my_fault(void)
{
    return &faults[cpu_id()];
}

bool try_read32(uint32_t addr, uint32_t *val)
{
    unsigned int before = my_fault()->count;
    uint32_t v = 0xdeadbeef;
    __asm__ volatile("ldr %0, [%1]" : "+r"(v) : "r"(addr) : "memory");
    *val = v;
    return my_fault()->count != before;
}

bool try_read8(uint32_t addr, uint32_t *val)
{
    unsigned int before = my_fault()->count;
    uint32_t v = 0xdeadbeef;
    __asm__ volatile("ldrb %0, [%1]" : "+r"(v) : "r"(addr) : "memory");
    *val = v;
    return my_fault()->count != before;
}

bool try_write32(uint32_t addr, uint32_t val)
{
    unsigned int before = my_fault()->count;
    __asm__ volatile("str %0, [%1]" : : "r"(val), "r"(addr) : "memory");
    return my_fault()->count != before;
}

bool try_exec(uint32_t addr)
{
    unsigned int before = my_fault()->count;
    register uint32_t target __asm__("r0") = addr;
    /* the prefetch abort handler resumes at r12 */
    __asm__ volatile("adr r12, 1f\n"
                     "bx  %0\n"
                     "1:\n"
                     : "+r"(target) : : "r12", "lr", "memory", "cc");
    return my_fault()->count != before;
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
    dt_parse((const void *)dtb, &guest_dt);
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

/* ---- the guest's device tree (a small reader: the hypervisor writes
 * #address-cells = #size-cells = 1) ---- */

struct guest_dt guest_dt;

static uint32_t be32(const void *p)
{
    const volatile uint8_t *b = p;
    return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
}

static void copy_str(char *dst, size_t size, const void *src, uint32_t len)
{
    size_t n = len < size ? len : size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

bool dt_parse(const void *dtb, struct guest_dt *o)
{
    memset(o, 0, sizeof(*o));
    const uint8_t *d = dtb;
    if (!d || ((uint32_t)d & 3) || be32(d) != 0xd00dfeedu)
        return false;
    uint32_t total = be32(d + 4), off_struct = be32(d + 8), off_strings = be32(d + 12);
    uint32_t size_struct = be32(d + 36);
    if (off_struct >= total || off_strings >= total || total > 0x100000)
        return false;
    const uint8_t *p = d + off_struct, *end = p + size_struct;
    const char *strings = (const char *)d + off_strings;
    char path[4][24];
    int depth = 0;
    while (p < end) {
        uint32_t tok = be32(p);
        p += 4;
        if (tok == 1) {                     /* FDT_BEGIN_NODE */
            const char *name = (const char *)p;
            size_t n = strlen(name);
            if (depth < 4)
                copy_str(path[depth], sizeof(path[depth]), name, n);
            depth++;
            if (depth == 3 && strcmp(path[1], "cpus") == 0 && strncmp(name, "cpu@", 4) == 0)
                o->ncpus++;
            p += (n + 4) & ~3u;
        } else if (tok == 2) {              /* FDT_END_NODE */
            depth--;
        } else if (tok == 3) {              /* FDT_PROP */
            uint32_t len = be32(p), nameoff = be32(p + 4);
            const uint8_t *val = p + 8;
            const char *pn = strings + nameoff;
            p += 8 + ((len + 3) & ~3u);
            if (depth == 2 && strncmp(path[1], "memory", 6) == 0 && strcmp(pn, "reg") == 0 &&
                len >= 8) {
                o->mem_base = be32(val);
                o->mem_size = be32(val + 4);
            } else if (depth == 2 && strcmp(path[1], "chosen") == 0 &&
                       strcmp(pn, "bootargs") == 0) {
                copy_str(o->bootargs, sizeof(o->bootargs), val, len);
            } else if (depth == 2 && strcmp(path[1], "chosen") == 0 && len == 4 &&
                       strcmp(pn, "linux,initrd-start") == 0) {
                o->initrd_start = be32(val);
            } else if (depth == 2 && strcmp(path[1], "chosen") == 0 && len == 4 &&
                       strcmp(pn, "linux,initrd-end") == 0) {
                o->initrd_end = be32(val);
            } else if (depth == 2 && strcmp(path[1], "psci") == 0 && strcmp(pn, "method") == 0) {
                copy_str(o->psci_method, sizeof(o->psci_method), val, len);
            } else if (depth == 3 && strcmp(path[1], "cpus") == 0 &&
                       strcmp(path[2], "cpu@0") == 0 && strcmp(pn, "compatible") == 0) {
                copy_str(o->cpu_compatible, sizeof(o->cpu_compatible), val, len);
            }
        } else if (tok == 4) {              /* FDT_NOP */
            continue;
        } else if (tok == 9) {              /* FDT_END */
            break;
        } else {
            return false;
        }
    }
    o->valid = o->mem_size != 0;
    return o->valid;
}

int bootarg_u32s(const char *key, uint32_t *vals, int max)
{
    size_t kl = strlen(key);
    const char *s = guest_dt.bootargs;
    while (*s) {
        while (*s == ' ')
            s++;
        if (strncmp(s, key, kl) == 0 && s[kl] == '=') {
            const char *v = s + kl + 1;
            int n = 0;
            while (n < max) {
                char *e;
                unsigned long x = strtoul(v, &e, 0);
                if (e == v)
                    break;
                vals[n++] = (uint32_t)x;
                if (*e != ',')
                    break;
                v = e + 1;
            }
            return n;
        }
        while (*s && *s != ' ')
            s++;
    }
    return 0;
}

bool bootarg_u32(const char *key, uint32_t *val)
{
    return bootarg_u32s(key, val, 1) == 1;
}

/* irq at priority 0x80, enabled, with the distributor and the CPU
 * interface on */
static void irq_on(unsigned int irq)
{
    mmio_write32(GICD_BASE + 0x000, 1);                         /* GICD_CTLR */
    *(volatile uint8_t *)(GICD_BASE + 0x400 + irq) = 0x80;      /* GICD_IPRIORITYR */
    mmio_write32(GICD_BASE + 0x100 + 4 * (irq / 32), 1u << (irq % 32));  /* ISENABLER */
    mmio_write32(GICC_BASE + 0x004, 0xf0);                      /* GICC_PMR */
    mmio_write32(GICC_BASE + 0x000, 1);                         /* GICC_CTLR */
}

void spi_enable(unsigned int irq)
{
    /* an SPI needs a target (GICv2 4.3.12) and enabling; its trigger is
     * the DT's: Partita's doorbells and virtio devices are rising edge
     * (GICD_ICFGR bit 2n+1, 4.3.13), so a doorbell that comes again while
     * one is active is a new edge, not a level to re-sample at EOI */
    uint32_t cfg = GICD_BASE + 0xc00 + 4 * (irq / 16);
    mmio_write32(cfg, mmio_read32(cfg) | 2u << (2 * (irq % 16)));  /* GICD_ICFGR */
    *(volatile uint8_t *)(GICD_BASE + 0x800 + irq) = 1;         /* GICD_ITARGETSR */
    irq_on(irq);
}

void ppi_enable(unsigned int irq)
{
    irq_on(irq);        /* a PPI is the CPU's own: no target, its trigger fixed */
}

extern char _end[];
uint32_t image_end(void)
{
    return (uint32_t)_end;
}

/* ---- SMP helpers ---- */

void gspin_lock(gspinlock_t *l)
{
    uint32_t tmp, one = 1;
    __asm__ volatile(
        "1: ldrex   %0, [%1]\n"
        "   teq     %0, #0\n"
        "   wfene\n"
        "   strexeq %0, %2, [%1]\n"
        "   teqeq   %0, #0\n"
        "   bne     1b\n"
        "   dmb\n"
        : "=&r"(tmp) : "r"(&l->v), "r"(one) : "cc", "memory");
}

void gspin_unlock(gspinlock_t *l)
{
    __asm__ volatile("dmb" ::: "memory");
    l->v = 0;
    __asm__ volatile("dsb\n sev" ::: "memory");
}

uint32_t atomic_add(volatile uint32_t *p, uint32_t n)
{
    uint32_t v, fail;
    __asm__ volatile(
        "   dmb\n"
        "1: ldrex   %0, [%2]\n"
        "   add     %0, %0, %3\n"
        "   strex   %1, %0, [%2]\n"
        "   teq     %1, #0\n"
        "   bne     1b\n"
        "   dmb\n"
        : "=&r"(v), "=&r"(fail) : "r"(p), "r"(n) : "cc", "memory");
    return v;
}

uint64_t ms_to_ticks(uint32_t ms)
{
    return (uint64_t)cntfrq() * ms / 1000;
}

void delay_ms(uint32_t ms)
{
    uint64_t end = cntvct() + ms_to_ticks(ms);
    while (cntvct() < end)
        ;
}

/* ---- stage-1 MMU: one flat short-descriptor table ---- */

static uint32_t l1_table[4096] __attribute__((aligned(16384)));
static volatile uint32_t l1_ready;
static gspinlock_t l1_lock;

static void tlb_flush_all(void)
{
    __asm__ volatile("dsb\n"
                     "mcr p15, 0, %0, c8, c3, 0\n"      /* TLBIALLIS */
                     "mcr p15, 0, %0, c7, c1, 0\n"      /* ICIALLUIS */
                     "mcr p15, 0, %0, c7, c1, 6\n"      /* BPIALLIS */
                     "dsb\n isb\n" : : "r"(0) : "memory");
}

void mmu_enable(void)
{
    gspin_lock(&l1_lock);
    if (!l1_ready) {
        uint32_t base = guest_dt.valid ? guest_dt.mem_base : RAM_BASE;
        uint32_t size = guest_dt.valid ? guest_dt.mem_size : 0x100000;
        for (uint32_t i = 0; i < 4096; i++) {
            uint32_t va = i << 20;
            bool ram = va + 0x100000 > base && va < base + size;
            l1_table[i] = va | (ram ? SECT_NORMAL : SECT_DEVICE);
        }
        l1_ready = 1;
    }
    gspin_unlock(&l1_lock);
    dsb();
    __asm__ volatile("mcr p15, 0, %0, c2, c0, 2" : : "r"(0));                  /* TTBCR */
    __asm__ volatile("mcr p15, 0, %0, c2, c0, 0" : : "r"((uint32_t)l1_table | 0x6a)); /* TTBR0 */
    __asm__ volatile("mcr p15, 0, %0, c3, c0, 0" : : "r"(0x55555555u));         /* DACR */
    isb();
    tlb_flush_all();
    uint32_t sctlr = read_sctlr();
    sctlr |= (1u << 0) | (1u << 2) | (1u << 11) | (1u << 12);   /* M, C, Z, I */
    sctlr &= ~((1u << 28) | (1u << 29));                        /* TRE, AFE off */
    __asm__ volatile("mcr p15, 0, %0, c1, c0, 0\n isb" : : "r"(sctlr) : "memory");
}

bool mmu_enabled(void)
{
    return read_sctlr() & 1;
}

void mmu_disable(void)
{
    dcache_setway_all(SETWAY_DCCISW);
    uint32_t sctlr = read_sctlr() & ~((1u << 0) | (1u << 2));
    __asm__ volatile("dsb\n mcr p15, 0, %0, c1, c0, 0\n isb" : : "r"(sctlr) : "memory");
    dcache_setway_all(SETWAY_DCCISW);
    tlb_flush_all();
}

void mmu_map_section(uint32_t va, uint32_t desc)
{
    l1_table[va >> 20] = desc;
    /* the walker may read the table from memory: clean the entry to the
     * point of coherency, then drop the old translation everywhere */
    __asm__ volatile("dsb\n"
                     "mcr p15, 0, %0, c7, c10, 1\n"     /* DCCMVAC */
                     "dsb\n"
                     "mcr p15, 0, %1, c8, c3, 1\n"      /* TLBIMVAIS */
                     "mcr p15, 0, %2, c7, c1, 6\n"      /* BPIALLIS */
                     "dsb\n isb\n"
                     : : "r"(&l1_table[va >> 20]), "r"(va & ~0xfffu), "r"(0) : "memory");
}

uint32_t mmu_section(uint32_t va)
{
    return l1_table[va >> 20];
}

/* ---- set/way maintenance over every data or unified cache level ---- */

unsigned int dcache_setway_all(enum setway_op op)
{
    uint32_t clidr, ccsidr;
    unsigned int count = 0;
    __asm__ volatile("mrc p15, 1, %0, c0, c0, 1" : "=r"(clidr));
    uint32_t loc = (clidr >> 24) & 7;
    dsb();
    for (uint32_t level = 0; level < loc; level++) {
        uint32_t ctype = (clidr >> (3 * level)) & 7;
        if (ctype < 2)
            continue;   /* none, or instruction only */
        __asm__ volatile("mcr p15, 2, %0, c0, c0, 0\n isb" : : "r"(level << 1));
        __asm__ volatile("mrc p15, 1, %0, c0, c0, 0" : "=r"(ccsidr));
        uint32_t line_shift = (ccsidr & 7) + 4;
        uint32_t ways = ((ccsidr >> 3) & 0x3ff) + 1, sets = ((ccsidr >> 13) & 0x7fff) + 1;
        uint32_t way_shift = ways > 1 ? (uint32_t)__builtin_clz(ways - 1) : 0;
        for (uint32_t w = 0; w < ways; w++) {
            for (uint32_t s = 0; s < sets; s++) {
                uint32_t v = (w << way_shift) | (s << line_shift) | (level << 1);
                switch (op) {
                case SETWAY_DCISW:
                    __asm__ volatile("mcr p15, 0, %0, c7, c6, 2" : : "r"(v) : "memory");
                    break;
                case SETWAY_DCCSW:
                    __asm__ volatile("mcr p15, 0, %0, c7, c10, 2" : : "r"(v) : "memory");
                    break;
                case SETWAY_DCCISW:
                    __asm__ volatile("mcr p15, 0, %0, c7, c14, 2" : : "r"(v) : "memory");
                    break;
                }
                count++;
            }
        }
    }
    __asm__ volatile("mcr p15, 2, %0, c0, c0, 0\n dsb\n isb" : : "r"(0) : "memory");
    return count;
}

/* ---- RAM tests ---- */

static uint32_t ram_verify(uint32_t start, uint32_t end, uint32_t xor, uint32_t *first_bad)
{
    uint32_t bad = 0;
    for (uint32_t a = start; a < end; a += 4) {
        uint32_t want = (xor == 0x55555555u) ? ((a & 4) ? 0xaaaaaaaau : 0x55555555u) : a ^ xor;
        if (*(volatile uint32_t *)a != want) {
            if (!bad++ && first_bad)
                *first_bad = a;
        }
    }
    return bad;
}

static void ram_fill(uint32_t start, uint32_t end, uint32_t xor)
{
    for (uint32_t a = start; a < end; a += 4)
        *(volatile uint32_t *)a = (xor == 0x55555555u) ? ((a & 4) ? 0xaaaaaaaau : 0x55555555u)
                                                       : a ^ xor;
}

uint32_t ram_test(uint32_t start, uint32_t end, uint32_t *first_bad)
{
    static const uint32_t patterns[] = { 0, 0xffffffffu, 0x55555555u };
    uint32_t bad = 0;
    for (unsigned int i = 0; i < 3; i++) {
        ram_fill(start, end, patterns[i]);
        dsb();
        bad += ram_verify(start, end, patterns[i], bad ? NULL : first_bad);
    }
    /* bytes and halfwords in the first and last 64 bytes of every page */
    for (uint32_t page = start & ~0xfffu; page < end; page += 0x1000) {
        for (uint32_t off = 0; off < 0x1000; off += (off == 63 ? 0x1000 - 127 : 1)) {
            uint32_t a = page + off;
            if (a < start || a >= end)
                continue;
            *(volatile uint8_t *)a = (uint8_t)(a * 7);
        }
        for (uint32_t off = 0; off < 0x1000; off += (off == 62 ? 0x1000 - 126 : 2)) {
            uint32_t a = page + off;
            if (a < start || a + 2 > end)
                continue;
            if (*(volatile uint16_t *)a != (uint16_t)(((uint8_t)((a + 1) * 7) << 8) | (uint8_t)(a * 7))) {
                if (!bad++ && first_bad)
                    *first_bad = a;
            }
            *(volatile uint16_t *)a = (uint16_t)~a;
        }
        for (uint32_t off = 0; off < 0x1000; off += (off == 60 ? 0x1000 - 124 : 4)) {
            uint32_t a = page + off;
            if (a < start || a + 4 > end)
                continue;
            uint32_t want = ((uint32_t)(uint16_t)~(a + 2) << 16) | (uint16_t)~a;
            if (*(volatile uint32_t *)a != want) {
                if (!bad++ && first_bad)
                    *first_bad = a;
            }
        }
    }
    return bad;
}

uint32_t ram_count_nonzero(uint32_t start, uint32_t end, uint32_t *first)
{
    uint32_t n = 0;
    for (uint32_t a = start; a < end; a += 4)
        if (*(volatile uint32_t *)a != 0 && !n++ && first)
            *first = a;
    return n;
}

/* ---- code made at run time (generated encodings, fuzzing) ---- */

static uint32_t jit_buf[8][JIT_MAX + 1] __attribute__((aligned(64)));

/* jit_enter(regs, code): r0-r11 from regs, call code, r0-r11 back to regs */
uint32_t jit_enter(uint32_t *regs, const uint32_t *code);
__asm__(".pushsection .text\n"
        ".arm\n"
        ".type jit_enter, %function\n"
        ".globl jit_enter\n"
        "jit_enter:\n"
        "   push    {r0, r1, r4-r12, lr}\n"
        "   mov     r12, r1\n"
        "   ldm     r0, {r0-r11}\n"
        "   blx     r12\n"
        "   push    {r0}\n"
        "   ldr     r0, [sp, #4]\n"
        "   add     r0, r0, #4\n"
        "   stm     r0, {r1-r11}\n"
        "   pop     {r1}\n"
        "   ldr     r0, [sp]\n"
        "   str     r1, [r0]\n"
        "   pop     {r0, r1, r4-r12, pc}\n"
        ".popsection\n");

static void jit_sync_and_run(uint32_t *buf, unsigned int words, uint32_t entry,
                             uint32_t regs[12]);

void jit_run(const uint32_t *insns, unsigned int n, uint32_t regs[12])
{
    uint32_t *buf = jit_buf[cpu_id() & 7];
    if (n > JIT_MAX)
        n = JIT_MAX;
    for (unsigned int i = 0; i < n; i++)
        buf[i] = insns[i];
    buf[n] = 0xe12fff1eu;                   /* bx lr */
    jit_sync_and_run(buf, n + 1, (uint32_t)buf, regs);
}

void jit_run_thumb(const uint16_t *hw, unsigned int n, uint32_t regs[12])
{
    uint16_t *buf = (uint16_t *)jit_buf[cpu_id() & 7];
    if (n > 2 * JIT_MAX)
        n = 2 * JIT_MAX;
    for (unsigned int i = 0; i < n; i++)
        buf[i] = hw[i];
    buf[n] = 0x4770;                        /* bx lr */
    buf[n + 1] = 0xbf00;                    /* nop */
    jit_sync_and_run((uint32_t *)buf, n / 2 + 1, (uint32_t)buf | 1, regs);
}

static void jit_sync_and_run(uint32_t *buf, unsigned int n, uint32_t entry, uint32_t regs[12])
{
    /*
     * New instructions: clean them from the data cache to the point of
     * unification, then invalidate the instruction cache and the branch
     * predictor (ARM ARM B2.2.9).  With the MMU and caches off QEMU would
     * run stale code without complaint, a Cortex-A15 would not.
     */
    for (uint32_t a = (uint32_t)buf; a < (uint32_t)&buf[n]; a += 32)
        __asm__ volatile("mcr p15, 0, %0, c7, c11, 1" : : "r"(a) : "memory");   /* DCCMVAU */
    __asm__ volatile("dsb\n"
                     "mcr p15, 0, %0, c7, c5, 0\n"      /* ICIALLU */
                     "mcr p15, 0, %0, c7, c5, 6\n"      /* BPIALL */
                     "dsb\n isb\n" : : "r"(0) : "memory");
    jit_enter(regs, (const uint32_t *)entry);
}

/* xorshift32: the tests' reproducible random numbers */
uint32_t rand_next(uint32_t *state)
{
    uint32_t x = *state ? *state : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* A random SMCCC function ID (PSCI, Partita, Arm architecture or anything),
 * never one that ends or suspends the caller (CPU_OFF, SYSTEM_OFF/RESET,
 * CPU_SUSPEND) or starts a vCPU somewhere random (CPU_ON) */
uint32_t rand_smccc_fn(uint32_t *state)
{
    for (;;) {
        uint32_t x = rand_next(state), fn;
        switch (x & 7) {
        case 0: fn = 0x84000000u | ((x >> 3) & 0x3f); break;       /* PSCI */
        case 1: fn = 0x86000000u | ((x >> 3) & 0x7); break;        /* Partita */
        case 2: fn = 0x8600ff00u | ((x >> 3) & 0x7); break;
        case 3: fn = 0x80000000u | ((x >> 3) & 0xffff); break;     /* Arm architecture */
        default: fn = rand_next(state); break;
        }
        uint32_t f32 = fn & ~0x40000000u;       /* SMC64 forms are refused anyway */
        if (f32 != PSCI_CPU_OFF && f32 != PSCI_SYSTEM_OFF && f32 != PSCI_SYSTEM_RESET &&
            f32 != PSCI_CPU_SUSPEND && f32 != PSCI_CPU_ON)
            return fn;
    }
}
