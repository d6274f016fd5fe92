/*
 * One vCPU against the trap handling: printing, the boot state, Partita's
 * and PSCI's calls over HVC and SMC (error paths included), conditional
 * SMC, ACTLR/MPIDR/MIDR/CBAR, undefined instructions (ARM, Thumb, injected
 * by the hypervisor), data and prefetch aborts outside the RAM window and
 * on unmapped devices (DFAR/IFAR, DFSR/IFSR in both formats, the mode and
 * state the handler sees), emulated MMIO of every size into banked
 * registers, Thumb MMIO and IT blocks, a stage-1 MMU whose VAs differ from
 * the IPAs, set/way cache maintenance, and (PARTITA_STATS) that the
 * accesses meant to trap do reach the hypervisor.
 *
 * bootargs: none needed.  Ends with PSCI SYSTEM_OFF.
 */
#include <string.h>
#include "guest.h"

#define UART_DR   (VUART_BASE + 0x000)
#define UART_FR   (VUART_BASE + 0x018)
#define FR_TXFE   (1u << 7)
#define FR_RXFE   (1u << 4)

#define MODE_USR  0x10
#define MODE_FIQ  0x11
#define MODE_IRQ  0x12
#define MODE_SVC  0x13
#define MODE_ABT  0x17
#define MODE_UND  0x1b
#define MODE_SYS  0x1f

#define FSR_EXT_ABORT       0x008u          /* short-descriptor: synchronous external */
#define FSR_LPAE_EXT_ABORT  0x210u          /* LPAE bit + status 0b010000 */
#define FSR_WNR             (1u << 11)

static uint32_t ram_end;                    /* first IPA after the RAM window */

/* ---- assembly helpers: ARM and Thumb code the tests call ---- */
__asm__(
    "   .pushsection .text.traps_asm, \"ax\", %progbits\n"
    "   .syntax unified\n"
    "   .arch_extension sec\n"
    "   .arch_extension virt\n"
    "   .arm\n"

    /* a_call_regs_{hvc,smc}(fn, out[13]): r4-r12, lr, sp set to known
     * values around the call; out = r0, r4..r12, lr, sp before, sp after */
    "   .macro CALL_REGS name, insn\n"
    "   .globl \\name\n"
    "   .type \\name, %function\n"
    "\\name:\n"
    "   push    {r4-r11, lr}\n"
    "   str     sp, [r1, #44]\n"
    "   push    {r1}\n"
    "   ldr     r4, =0x44444444\n"
    "   ldr     r5, =0x55555555\n"
    "   ldr     r6, =0x66666666\n"
    "   ldr     r7, =0x77777777\n"
    "   ldr     r8, =0x88888888\n"
    "   ldr     r9, =0x99999999\n"
    "   ldr     r10, =0xaaaaaaaa\n"
    "   ldr     r11, =0xbbbbbbbb\n"
    "   ldr     r12, =0xcccccccc\n"
    "   ldr     lr, =0xeeeeeeee\n"
    "   mov     r1, #0\n"
    "   mov     r2, #0\n"
    "   mov     r3, #0\n"
    "   \\insn  #0\n"
    "   ldr     r1, [sp]\n"
    "   str     r0, [r1]\n"
    "   add     r2, r1, #4\n"
    "   stm     r2, {r4-r12, lr}\n"
    "   add     r2, sp, #4\n"
    "   str     r2, [r1, #48]\n"
    "   pop     {r1}\n"
    "   pop     {r4-r11, pc}\n"
    "   .ltorg\n"
    "   .endm\n"
    "   CALL_REGS a_call_regs_hvc, hvc\n"
    "   CALL_REGS a_call_regs_smc, smc\n"

    /* a_smc_cond(regs[5], pass): regs[0..3] in r0..r3, a conditional SMC
     * that passes (pass != 0) or fails, then two counted instructions;
     * regs[0..3] = r0..r3 after, regs[4] = the count */
    "   .globl a_smc_cond\n"
    "   .type a_smc_cond, %function\n"
    "a_smc_cond:\n"
    "   push    {r4, r5, lr}\n"
    "   mov     r4, r0\n"
    "   mov     r5, #0\n"
    "   cmp     r1, #0\n"
    "   ldm     r4, {r0-r3}\n"
    "   smcne   #0\n"
    "   add     r5, r5, #1\n"
    "   add     r5, r5, #1\n"
    "   stm     r4, {r0-r3, r5}\n"
    "   pop     {r4, r5, pc}\n"

    /* a_mmio_lr(addr, mode) / a_mmio_sp(addr, mode): a trapped load into
     * LR or SP of another mode; returns what the register got */
    "   .globl a_mmio_lr\n"
    "   .type a_mmio_lr, %function\n"
    "a_mmio_lr:\n"
    "   push    {r4, lr}\n"
    "   mrs     r2, cpsr\n"
    "   bic     r3, r2, #0x1f\n"
    "   orr     r3, r3, r1\n"
    "   msr     cpsr_c, r3\n"
    "   mov     r4, lr\n"
    "   ldr     lr, [r0]\n"
    "   mov     r0, lr\n"
    "   mov     lr, r4\n"
    "   msr     cpsr_c, r2\n"
    "   pop     {r4, pc}\n"
    "   .globl a_mmio_sp\n"
    "   .type a_mmio_sp, %function\n"
    "a_mmio_sp:\n"
    "   push    {r4, lr}\n"
    "   mrs     r2, cpsr\n"
    "   bic     r3, r2, #0x1f\n"
    "   orr     r3, r3, r1\n"
    "   msr     cpsr_c, r3\n"
    "   mov     r4, sp\n"
    "   ldr     sp, [r0]\n"
    "   mov     r0, sp\n"
    "   mov     sp, r4\n"
    "   msr     cpsr_c, r2\n"
    "   pop     {r4, pc}\n"
    /* a_mmio_fiq(addr): loads into r8_fiq and r12_fiq; returns r8 + r12 */
    "   .globl a_mmio_fiq\n"
    "   .type a_mmio_fiq, %function\n"
    "a_mmio_fiq:\n"
    "   push    {r4, r5, lr}\n"
    "   mrs     r2, cpsr\n"
    "   cps     #0x11\n"
    "   mov     r4, r8\n"
    "   mov     r5, r12\n"
    "   ldr     r8, [r0]\n"
    "   ldr     r12, [r0]\n"
    "   add     r0, r8, r12\n"
    "   mov     r8, r4\n"
    "   mov     r12, r5\n"
    "   msr     cpsr_c, r2\n"
    "   pop     {r4, r5, pc}\n"

    /* ---- Thumb ---- */
    "   .thumb\n"
    /* t_mmio_steps(uart, ch): trapped 16- and 32-bit stores and loads,
     * each followed by one counted 16-bit instruction; returns the count */
    "   .thumb_func\n"
    "   .type t_mmio_steps, %function\n"
    "   .globl t_mmio_steps\n"
    "t_mmio_steps:\n"
    "   movs    r2, #0\n"
    "   strb    r1, [r0]\n"
    "   adds    r2, #1\n"
    "   strb.w  r1, [r0]\n"
    "   adds    r2, #1\n"
    "   ldr     r3, [r0, #0x18]\n"
    "   adds    r2, #1\n"
    "   ldr.w   r3, [r0, #0x18]\n"
    "   adds    r2, #1\n"
    "   ldrsb.w r3, [r0, #0x18]\n"
    "   adds    r2, #1\n"
    "   mov     r0, r2\n"
    "   bx      lr\n"
    /* t_it_mmio(uart, out[4]): trapped loads inside IT blocks; the
     * hypervisor must advance ITSTATE when it steps over them.  out[0..1]
     * FR or 0x55/0x66 if an 'else' slot wrongly ran; out[2] a trapped
     * load in a failing slot (never runs: keeps 0x77); out[3] the count */
    "   .thumb_func\n"
    "   .type t_it_mmio, %function\n"
    "   .globl t_it_mmio\n"
    "t_it_mmio:\n"
    "   push    {r4-r6, lr}\n"
    "   movs    r6, #0\n"
    "   movs    r2, #0x11\n"
    "   movs    r3, #0x22\n"
    "   movs    r4, #0x77\n"
    "   cmp     r0, r0\n"
    "   itete   eq\n"
    "   ldreq   r2, [r0, #0x18]\n"
    "   movne   r2, #0x55\n"
    "   ldreq.w r3, [r0, #0x18]\n"
    "   movne   r3, #0x66\n"
    "   adds    r6, #1\n"
    "   cmp     r0, r0\n"
    "   itt     ne\n"
    "   ldrne   r4, [r0, #0x18]\n"
    "   movne   r4, #0x33\n"
    "   adds    r6, #1\n"
    "   str     r2, [r1]\n"
    "   str     r3, [r1, #4]\n"
    "   str     r4, [r1, #8]\n"
    "   str     r6, [r1, #12]\n"
    "   pop     {r4-r6, pc}\n"
    /* t_it_cp15(out[2]): a trapped ACTLR read inside an IT block */
    "   .thumb_func\n"
    "   .type t_it_cp15, %function\n"
    "   .globl t_it_cp15\n"
    "t_it_cp15:\n"
    "   movs    r1, #0x11\n"
    "   movs    r2, #0\n"
    "   cmp     r0, r0\n"
    "   ite     eq\n"
    "   mrceq   p15, 0, r1, c1, c0, 1\n"
    "   movne   r1, #0x55\n"
    "   adds    r2, #1\n"
    "   str     r1, [r0]\n"
    "   str     r2, [r0, #4]\n"
    "   bx      lr\n"
    /* t_smc_it(regs[5], pass): the Thumb version of a_smc_cond, the SMC
     * alone in an IT block */
    "   .thumb_func\n"
    "   .type t_smc_it, %function\n"
    "   .globl t_smc_it\n"
    "t_smc_it:\n"
    "   push    {r4, r5, lr}\n"
    "   mov     r4, r0\n"
    "   movs    r5, #0\n"
    "   cmp     r1, #0\n"
    "   ldm     r4, {r0-r3}\n"
    "   it      ne\n"
    "   smcne   #0\n"
    "   adds    r5, #1\n"
    "   adds    r5, #1\n"
    "   stm     r4!, {r0-r3, r5}\n"
    "   pop     {r4, r5, pc}\n"
    /* t_hvc(fn): HVC from Thumb; returns r0, and r1 = the count after */
    "   .thumb_func\n"
    "   .type t_hvc, %function\n"
    "   .globl t_hvc\n"
    "t_hvc:\n"
    "   push    {r4, lr}\n"
    "   movs    r4, #0\n"
    "   hvc     #0\n"
    "   adds    r4, #1\n"
    "   adds    r4, #1\n"
    "   mov     r1, r4\n"
    "   pop     {r4, pc}\n"
    /* t_udf(): a 16-bit and a 32-bit UDF; returns the count of the
     * instructions after them (2) */
    "   .thumb_func\n"
    "   .type t_udf, %function\n"
    "   .globl t_udf\n"
    "   .globl t_udf16\n"
    "   .globl t_udf32\n"
    "t_udf:\n"
    "   movs    r0, #0\n"
    "t_udf16:\n"
    "   udf     #1\n"
    "   adds    r0, #1\n"
    "t_udf32:\n"
    "   udf.w   #2\n"
    "   adds    r0, #1\n"
    "   bx      lr\n"
    /* t_dabt(addr): 16- and 32-bit loads that abort; returns the count */
    "   .thumb_func\n"
    "   .type t_dabt, %function\n"
    "   .globl t_dabt\n"
    "   .globl t_dabt16\n"
    "   .globl t_dabt32\n"
    "t_dabt:\n"
    "   movs    r2, #0\n"
    "t_dabt16:\n"
    "   ldr     r1, [r0]\n"
    "   adds    r2, #1\n"
    "t_dabt32:\n"
    "   ldr.w   r1, [r0, #4]\n"
    "   adds    r2, #1\n"
    "   mov     r0, r2\n"
    "   bx      lr\n"
    "   .arm\n"
    "   .popsection\n");

void a_call_regs_hvc(uint32_t fn, uint32_t out[13]);
void a_call_regs_smc(uint32_t fn, uint32_t out[13]);
void a_smc_cond(uint32_t regs[5], uint32_t pass);
uint32_t a_mmio_lr(uint32_t addr, uint32_t mode);
uint32_t a_mmio_sp(uint32_t addr, uint32_t mode);
uint32_t a_mmio_fiq(uint32_t addr);
uint32_t t_mmio_steps(uint32_t uart, uint32_t ch);
void t_it_mmio(uint32_t uart, uint32_t out[4]);
void t_it_cp15(uint32_t out[2]);
void t_smc_it(uint32_t regs[5], uint32_t pass);
uint64_t t_hvc(uint32_t fn);
uint32_t t_udf(void);
uint32_t t_dabt(uint32_t addr);
extern char t_udf16[], t_udf32[], t_dabt16[], t_dabt32[];

#define THUMB(f) ((__typeof__(&f))((uint32_t)(f) | 1))
#define ADDR(l) ((uint32_t)(l) & ~1u)

/* ---- printing and the boot state ---- */

static void test_print(void)
{
    test_begin("print");
    /* the system test compares these lines with what it expects */
    gprintf("print: %d %u 0x%08lx %s %c%%\n", -42, 42u, 0xcafef00dul, "str", 'x');
    char line[121];
    for (int i = 0; i < 120; i++)
        line[i] = (char)(' ' + 1 + i % 94);
    line[120] = '\0';
    gprintf("print-long: %s\n", line);
    gputs("print-puts: ");
    gputs("two");
    gputs(" parts\n");
    CHECK(mmio_read32(UART_FR) & FR_TXFE, "UART FR 0x%08lx: TXFE clear",
          (unsigned long)mmio_read32(UART_FR));
    test_end();
}

static void test_boot_state(void)
{
    test_begin("boot_state");
    CHECK(boot_state.r0 == 0, "r0 = 0x%08lx, expected 0", (unsigned long)boot_state.r0);
    CHECK(boot_state.r1 == 0xffffffffu, "r1 = 0x%08lx, expected 0xffffffff",
          (unsigned long)boot_state.r1);
    CHECK(boot_state.dtb >= RAM_BASE && boot_state.dtb < ram_end && !(boot_state.dtb & 7),
          "r2 = 0x%08lx is no DTB in RAM", (unsigned long)boot_state.dtb);
    CHECK((boot_state.cpsr & 0x1f) == MODE_SVC, "started in mode 0x%02lx, not SVC",
          (unsigned long)(boot_state.cpsr & 0x1f));
    CHECK((boot_state.cpsr & 0x1c0) == 0x1c0, "CPSR 0x%08lx: A, I, F not all masked",
          (unsigned long)boot_state.cpsr);
    CHECK(!(boot_state.sctlr & 5), "SCTLR 0x%08lx: MMU or D-cache on at boot",
          (unsigned long)boot_state.sctlr);
    test_end();
}

static void test_device_tree(void)
{
    test_begin("device_tree");
    CHECK(guest_dt.valid, "no valid DTB at r2 0x%08lx", (unsigned long)boot_state.dtb);
    CHECK(guest_dt.mem_base == RAM_BASE, "/memory at 0x%08lx", (unsigned long)guest_dt.mem_base);
    CHECK(guest_dt.mem_size >= 0x100000, "/memory size 0x%lx", (unsigned long)guest_dt.mem_size);
    CHECK(guest_dt.ncpus == 1, "%u cpu nodes, expected 1", guest_dt.ncpus);
    CHECK(strcmp(guest_dt.psci_method, "hvc") == 0, "psci method '%s'", guest_dt.psci_method);
    CHECK(boot_state.dtb >= image_end(), "DTB 0x%08lx inside the image (ends 0x%08lx)",
          (unsigned long)boot_state.dtb, (unsigned long)image_end());
    gprintf("dt: memory 0x%08lx+0x%08lx cpus %u cpu '%s' bootargs '%s'\n",
            (unsigned long)guest_dt.mem_base, (unsigned long)guest_dt.mem_size, guest_dt.ncpus,
            guest_dt.cpu_compatible, guest_dt.bootargs);
    test_end();
}

/* ---- hypercalls ---- */

static void test_partita_calls(void)
{
    test_begin("partita_calls");
    struct smc_ret v = hvc_call(PARTITA_VERSION, 0, 0, 0);
    CHECK(v.r0 != 0xffffffffu && (v.r0 >> 16) < 0x100, "VERSION returned 0x%08lx",
          (unsigned long)v.r0);
    struct smc_ret i = hvc_call(PARTITA_GUEST_INFO, 0, 0, 0);
    CHECK(i.r0 < 8, "GUEST_INFO: guest id %lu", (unsigned long)i.r0);
    CHECK(i.r1 == 1 && i.r2 == 0, "GUEST_INFO: %lu vCPUs, this is %lu (expected 1, 0)",
          (unsigned long)i.r1, (unsigned long)i.r2);
    struct smc_ret u = hvc_call(0x86000077u, 1, 2, 3);
    CHECK(u.r0 == 0xffffffffu, "unknown vendor call 0x86000077 returned 0x%08lx",
          (unsigned long)u.r0);
    gprintf("partita: version %lu.%lu guest %lu\n", (unsigned long)(v.r0 >> 16),
            (unsigned long)(v.r0 & 0xffff), (unsigned long)i.r0);
    test_end();
}

static void test_psci_version(void)
{
    test_begin("psci_version");
    struct smc_ret r = hvc_call(PSCI_VERSION, 0, 0, 0);
    CHECK(r.r0 == 0x00010000u, "PSCI_VERSION 0x%08lx, expected 1.0", (unsigned long)r.r0);
    r = hvc_call(SMCCC_VERSION_FN, 0, 0, 0);
    CHECK((int32_t)r.r0 >= 0x10000, "SMCCC_VERSION 0x%08lx, expected >= 1.0",
          (unsigned long)r.r0);
    r = hvc_call(PSCI_MIGRATE_INFO_TYPE, 0, 0, 0);
    CHECK(r.r0 == 2, "MIGRATE_INFO_TYPE %ld, expected 2 (no trusted OS)", (long)(int32_t)r.r0);
    test_end();
}

static void test_psci_features(void)
{
    static const uint32_t present[] = {
        PSCI_VERSION, PSCI_CPU_OFF, PSCI_CPU_ON, PSCI_AFFINITY_INFO,
        PSCI_MIGRATE_INFO_TYPE, PSCI_SYSTEM_OFF, PSCI_SYSTEM_RESET, PSCI_FEATURES,
    };
    static const uint32_t absent[] = {
        PSCI_MIGRATE, 0x84000007u /* MIGRATE_INFO_UP_CPU */, 0x8400000bu, 0x8400001fu,
        0xc4000003u /* CPU_ON, SMC64 */, 0xc4000001u, 0x86000077u, 0x12345678u,
    };
    test_begin("psci_features");
    for (unsigned int i = 0; i < sizeof(present) / 4; i++) {
        struct smc_ret r = hvc_call(PSCI_FEATURES, present[i], 0, 0);
        CHECK(r.r0 == 0, "FEATURES(0x%08lx) = %ld, expected 0", (unsigned long)present[i],
              (long)(int32_t)r.r0);
    }
    /* CPU_SUSPEND answers with its flags: any non-negative value */
    struct smc_ret r = hvc_call(PSCI_FEATURES, PSCI_CPU_SUSPEND, 0, 0);
    CHECK((int32_t)r.r0 >= 0, "FEATURES(CPU_SUSPEND) = %ld", (long)(int32_t)r.r0);
    for (unsigned int i = 0; i < sizeof(absent) / 4; i++) {
        r = hvc_call(PSCI_FEATURES, absent[i], 0, 0);
        CHECK((int32_t)r.r0 == PSCI_NOT_SUPPORTED, "FEATURES(0x%08lx) = %ld, expected -1",
              (unsigned long)absent[i], (long)(int32_t)r.r0);
    }
    test_end();
}

static void test_psci_not_supported(void)
{
    static const uint32_t ids[] = {
        PSCI_MIGRATE, 0x84000007u, 0x8400001fu, 0x840000ffu, 0xc4000003u, 0xc4000005u,
        0x86000077u, 0x8600ff77u, 0x12345678u, 0x00000000u, 0xffffffffu,
    };
    test_begin("psci_not_supported");
    for (unsigned int i = 0; i < sizeof(ids) / 4; i++) {
        struct smc_ret r = hvc_call(ids[i], 0, 0, 0);
        CHECK((int32_t)r.r0 == PSCI_NOT_SUPPORTED, "HVC 0x%08lx returned %ld, expected -1",
              (unsigned long)ids[i], (long)(int32_t)r.r0);
        r = smc_call(ids[i], 0, 0, 0);
        CHECK((int32_t)r.r0 == PSCI_NOT_SUPPORTED, "SMC 0x%08lx returned %ld, expected -1",
              (unsigned long)ids[i], (long)(int32_t)r.r0);
    }
    test_end();
}

static void test_psci_cpu_errors(void)
{
    test_begin("psci_cpu_errors");
    uint32_t entry = (uint32_t)secondary_start;
    struct smc_ret r = hvc_call(PSCI_CPU_ON, 0, entry, 0);
    CHECK((int32_t)r.r0 == PSCI_ALREADY_ON, "CPU_ON(self) = %ld, expected ALREADY_ON",
          (long)(int32_t)r.r0);
    static const uint32_t bad[] = { 1, 7, 0x100, 0x10000, 0xff };
    for (unsigned int i = 0; i < sizeof(bad) / 4; i++) {
        r = hvc_call(PSCI_CPU_ON, bad[i], entry, 1);
        CHECK((int32_t)r.r0 == PSCI_INVALID_PARAMETERS,
              "CPU_ON(MPIDR 0x%lx) of a 1-vCPU guest = %ld, expected INVALID_PARAMETERS",
              (unsigned long)bad[i], (long)(int32_t)r.r0);
        r = hvc_call(PSCI_AFFINITY_INFO, bad[i], 0, 0);
        CHECK((int32_t)r.r0 == PSCI_INVALID_PARAMETERS,
              "AFFINITY_INFO(0x%lx) = %ld, expected INVALID_PARAMETERS",
              (unsigned long)bad[i], (long)(int32_t)r.r0);
    }
    r = hvc_call(PSCI_AFFINITY_INFO, 0, 0, 0);
    CHECK(r.r0 == 0, "AFFINITY_INFO(self) = %ld, expected 0 (ON)", (long)(int32_t)r.r0);
    test_end();
}

static void test_smc_like_hvc(void)
{
    test_begin("smc_like_hvc");
    static const uint32_t fns[] = { PSCI_VERSION, PARTITA_VERSION, PARTITA_GUEST_INFO,
                                    PSCI_MIGRATE_INFO_TYPE, SMCCC_VERSION_FN };
    for (unsigned int i = 0; i < sizeof(fns) / 4; i++) {
        struct smc_ret h = hvc_call(fns[i], 0, 0, 0), s = smc_call(fns[i], 0, 0, 0);
        CHECK(h.r0 == s.r0, "0x%08lx: HVC r0 0x%08lx, SMC r0 0x%08lx", (unsigned long)fns[i],
              (unsigned long)h.r0, (unsigned long)s.r0);
    }
    struct smc_ret h = hvc_call(PARTITA_GUEST_INFO, 0, 0, 0), s = smc_call(PARTITA_GUEST_INFO, 0, 0, 0);
    CHECK(h.r1 == s.r1 && h.r2 == s.r2, "GUEST_INFO r1/r2 differ: HVC %lu/%lu SMC %lu/%lu",
          (unsigned long)h.r1, (unsigned long)h.r2, (unsigned long)s.r1, (unsigned long)s.r2);
    s = smc_call(PSCI_FEATURES, PSCI_CPU_ON, 0, 0);
    CHECK(s.r0 == 0, "SMC FEATURES(CPU_ON) = %ld", (long)(int32_t)s.r0);
    s = smc_call(PSCI_CPU_ON, 0, (uint32_t)secondary_start, 0);
    CHECK((int32_t)s.r0 == PSCI_ALREADY_ON, "SMC CPU_ON(self) = %ld", (long)(int32_t)s.r0);
    test_end();
}

static void check_preserved(const char *how, const uint32_t *o)
{
    static const uint32_t want[10] = { 0x44444444, 0x55555555, 0x66666666, 0x77777777,
                                       0x88888888, 0x99999999, 0xaaaaaaaa, 0xbbbbbbbb,
                                       0xcccccccc, 0xeeeeeeee };
    CHECK(o[0] == 0x00010000u, "%s PSCI_VERSION returned 0x%08lx", how, (unsigned long)o[0]);
    for (int i = 0; i < 10; i++)
        CHECK(o[1 + i] == want[i], "%s: %s was 0x%08lx, is 0x%08lx after the call", how,
              i < 9 ? (const char *[]){ "r4", "r5", "r6", "r7", "r8", "r9", "r10", "r11",
                                        "r12" }[i] : "lr",
              (unsigned long)want[i], (unsigned long)o[1 + i]);
    CHECK(o[11] == o[12], "%s: SP 0x%08lx before, 0x%08lx after", how, (unsigned long)o[11],
          (unsigned long)o[12]);
}

static void test_call_preserves_registers(void)
{
    uint32_t out[13];
    test_begin("call_preserves_registers");
    memset(out, 0, sizeof(out));
    a_call_regs_hvc(PSCI_VERSION, out);
    check_preserved("HVC", out);
    memset(out, 0, sizeof(out));
    a_call_regs_smc(PSCI_VERSION, out);
    check_preserved("SMC", out);
    test_end();
}

static void test_smc_conditional(void)
{
    test_begin("smc_conditional");
    /* ARM: SMCNE with Z set fails its condition: no call, r0-r3 untouched */
    uint32_t r[5] = { PSCI_VERSION, 0x11111111, 0x22222222, 0x33333333, 0 };
    a_smc_cond(r, 0);
    CHECK(r[0] == PSCI_VERSION && r[1] == 0x11111111 && r[2] == 0x22222222 &&
          r[3] == 0x33333333, "ARM SMCNE (failing) changed r0-r3 to %08lx %08lx %08lx %08lx",
          (unsigned long)r[0], (unsigned long)r[1], (unsigned long)r[2], (unsigned long)r[3]);
    CHECK(r[4] == 2, "ARM SMCNE (failing): %lu of the 2 instructions after it ran",
          (unsigned long)r[4]);
    uint32_t p[5] = { PSCI_VERSION, 0x11111111, 0x22222222, 0x33333333, 0 };
    a_smc_cond(p, 1);
    CHECK(p[0] == 0x00010000u, "ARM SMCNE (passing) returned 0x%08lx", (unsigned long)p[0]);
    CHECK(p[4] == 2, "ARM SMCNE (passing): %lu of the 2 instructions after it ran",
          (unsigned long)p[4]);
    /* Thumb: the SMC alone in an IT block */
    uint32_t t[5] = { PSCI_VERSION, 0x11111111, 0x22222222, 0x33333333, 0 };
    THUMB(t_smc_it)(t, 0);
    CHECK(t[0] == PSCI_VERSION && t[1] == 0x11111111 && t[2] == 0x22222222 &&
          t[3] == 0x33333333, "Thumb IT NE; SMCNE (failing) changed r0-r3 to %08lx %08lx "
          "%08lx %08lx", (unsigned long)t[0], (unsigned long)t[1], (unsigned long)t[2],
          (unsigned long)t[3]);
    CHECK(t[4] == 2, "Thumb SMCNE (failing): %lu of 2 instructions after it ran",
          (unsigned long)t[4]);
    uint32_t u[5] = { PSCI_VERSION, 0x11111111, 0x22222222, 0x33333333, 0 };
    THUMB(t_smc_it)(u, 1);
    CHECK(u[0] == 0x00010000u, "Thumb SMCNE (passing) returned 0x%08lx", (unsigned long)u[0]);
    CHECK(u[4] == 2, "Thumb SMCNE (passing): %lu of 2 instructions after it ran",
          (unsigned long)u[4]);
    test_end();
}

static void test_hvc_thumb(void)
{
    test_begin("hvc_thumb");
    uint64_t r = THUMB(t_hvc)(PSCI_VERSION);
    CHECK((uint32_t)r == 0x00010000u, "Thumb HVC PSCI_VERSION returned 0x%08lx",
          (unsigned long)(uint32_t)r);
    CHECK((uint32_t)(r >> 32) == 2, "Thumb HVC: %lu of the 2 instructions after it ran",
          (unsigned long)(uint32_t)(r >> 32));
    test_end();
}

/* ---- what traps: Partita's counters (PARTITA_STATS) ---- */

static uint32_t stat(uint32_t n)
{
    struct smc_ret r = hvc_call(PARTITA_STATS, n, 0, 0);
    return r.r0;
}

#define STAT_DELTA(cause, expr) ({                                  \
    uint32_t _b = stat(PARTITA_STAT_TRAP(cause));                   \
    expr;                                                           \
    stat(PARTITA_STAT_TRAP(cause)) - _b; })

static void test_traps_taken(void)
{
    /* the emulation tests elsewhere would pass vacuously if these did not
     * reach the hypervisor (QEMU's own ACTLR ignores writes too) */
    test_begin("traps_taken");
    uint32_t e0 = stat(PARTITA_STAT_EXITS), e1 = stat(PARTITA_STAT_EXITS);
    CHECK(e0 != 0xffffffffu && e1 > e0, "PARTITA_STATS(exits): %lu then %lu",
          (unsigned long)e0, (unsigned long)e1);
    uint32_t v, d;
    d = STAT_DELTA(TRAP_CAUSE_CP15, __asm__ volatile("mrc p15, 0, %0, c1, c0, 1" : "=r"(v)));
    CHECK(d == 1, "an ACTLR read counted %lu CP15 traps (HCR.TAC)", (unsigned long)d);
    d = STAT_DELTA(TRAP_CAUSE_CP15, __asm__ volatile("mcr p15, 0, %0, c1, c0, 1" : : "r"(v)));
    CHECK(d == 1, "an ACTLR write counted %lu CP15 traps (HCR.TAC)", (unsigned long)d);
    /* (set/way operations are not counted: QEMU 7.2 and 10.0 apply
     * HCR.TSW to ARMv8 CPUs only, so on cortex-a15/a7 they never reach
     * Partita; see docs/qemu-versions.md) */
    d = STAT_DELTA(TRAP_CAUSE_CP15, __asm__ volatile("mrc p15, 4, %0, c15, c0, 0" : "=r"(v)));
    CHECK(d == 1, "a CBAR read counted %lu CP15 traps (HSTR.T15)", (unsigned long)d);
    d = STAT_DELTA(TRAP_CAUSE_SMC, smc_call(PSCI_VERSION, 0, 0, 0));
    CHECK(d == 1, "an SMC counted %lu SMC traps (HCR.TSC)", (unsigned long)d);
    d = STAT_DELTA(TRAP_CAUSE_MMIO, v = mmio_read32(UART_FR));
    CHECK(d == 1, "a UART read counted %lu MMIO traps", (unsigned long)d);
    d = STAT_DELTA(TRAP_CAUSE_DABT, try_read32(ram_end, &v));
    CHECK(d == 1, "an access outside RAM counted %lu aborts", (unsigned long)d);
    d = STAT_DELTA(TRAP_CAUSE_PABT, try_exec(ram_end));
    CHECK(d == 1, "a branch outside RAM counted %lu prefetch aborts", (unsigned long)d);
    test_end();
}

/* ---- ID and control registers ---- */

static uint32_t read_actlr(void)
{
    uint32_t v;
    __asm__ volatile("mrc p15, 0, %0, c1, c0, 1" : "=r"(v));
    return v;
}

static void test_actlr(void)
{
    test_begin("actlr");
    uint32_t a = read_actlr();
    CHECK(a & (1u << 6), "ACTLR 0x%08lx: SMP bit (6) clear", (unsigned long)a);
    __asm__ volatile("mcr p15, 0, %0, c1, c0, 1\n isb" : : "r"(a ^ 0x41u));
    uint32_t b = read_actlr();
    CHECK(b == a, "ACTLR 0x%08lx after writing 0x%08lx (was 0x%08lx): writes must be ignored",
          (unsigned long)b, (unsigned long)(a ^ 0x41u), (unsigned long)a);
    __asm__ volatile("mcr p15, 0, %0, c1, c0, 1\n isb" : : "r"(0));
    b = read_actlr();
    CHECK(b == a, "ACTLR 0x%08lx after writing 0", (unsigned long)b);
    /* a conditional read that fails its condition leaves the register */
    uint32_t c = 0x12345678;
    __asm__ volatile("cmp %0, %0\n mrcne p15, 0, %0, c1, c0, 1" : "+r"(c) : : "cc");
    CHECK(c == 0x12345678, "MRCNE ACTLR (failing) wrote 0x%08lx", (unsigned long)c);
    uint32_t t[2] = { 0, 0 };
    THUMB(t_it_cp15)(t);
    CHECK(t[0] == a && t[1] == 1, "Thumb ITE EQ; MRCEQ ACTLR: got 0x%08lx (want 0x%08lx), "
          "%lu of 1 instruction after the block ran", (unsigned long)t[0], (unsigned long)a,
          (unsigned long)t[1]);
    test_end();
}

static void test_mpidr(void)
{
    test_begin("mpidr");
    uint32_t m = read_mpidr();
    CHECK((m & 0x00ffffffu) == 0, "MPIDR 0x%08lx: affinity not 0 for vCPU 0", (unsigned long)m);
    CHECK(m & 0x80000000u, "MPIDR 0x%08lx: bit 31 (multiprocessing format) clear",
          (unsigned long)m);
    test_end();
}

static void test_midr(void)
{
    test_begin("midr");
    uint32_t midr;
    __asm__ volatile("mrc p15, 0, %0, c0, c0, 0" : "=r"(midr));
    uint32_t part = (midr >> 4) & 0xfff;
    const char *want = part == 0xc07 ? "arm,cortex-a7" : part == 0xc0f ? "arm,cortex-a15"
                     : part == 0xc0e ? "arm,cortex-a17" : "?";
    CHECK((midr >> 24) == 0x41, "MIDR 0x%08lx: implementer not ARM", (unsigned long)midr);
    CHECK(strcmp(want, guest_dt.cpu_compatible) == 0,
          "MIDR 0x%08lx (%s) but the DT's cpu@0 says '%s'", (unsigned long)midr, want,
          guest_dt.cpu_compatible);
    gprintf("midr: 0x%08lx %s\n", (unsigned long)midr, want);
    test_end();
}

static void test_cbar_hidden(void)
{
    test_begin("cbar_hidden");
    uint32_t cbar = 0xdeadbeef;
    __asm__ volatile("mrc p15, 4, %0, c15, c0, 0" : "+r"(cbar));
    CHECK(cbar == 0, "CBAR reads 0x%08lx: the host's peripheral base leaks",
          (unsigned long)cbar);
    CHECK(fault_count() == 0 || my_fault()->kind != FAULT_UNDEF, "CBAR read was undefined");
    test_end();
}

/* ---- undefined instructions ---- */

static void test_undef_arm(void)
{
    test_begin("undef_arm");
    struct fault_record *f = my_fault();
    unsigned int n0 = f->count;
    uint32_t pc, after = 0;
    __asm__ volatile("adr %0, 1f\n"
                     "1: udf #0x1234\n"
                     "add %1, %1, #1\n"
                     : "=&r"(pc), "+r"(after) : : "memory");
    CHECK(f->count == n0 + 1, "%u undefined-instruction exceptions, expected 1",
          f->count - n0);
    CHECK(f->kind == FAULT_UNDEF, "exception kind %lu", (unsigned long)f->kind);
    CHECK(f->pc == pc, "handler saw PC 0x%08lx, the UDF is at 0x%08lx", (unsigned long)f->pc,
          (unsigned long)pc);
    CHECK(f->insn == 0xe7f123f4u, "handler saw instruction 0x%08lx", (unsigned long)f->insn);
    CHECK(f->mode == MODE_UND, "handler ran in mode 0x%02lx", (unsigned long)f->mode);
    CHECK((f->spsr & 0x3f) == MODE_SVC, "SPSR 0x%08lx: not SVC, ARM", (unsigned long)f->spsr);
    CHECK(after == 1, "the instruction after the UDF ran %lu times", (unsigned long)after);
    test_end();
}

static void test_undef_thumb(void)
{
    test_begin("undef_thumb");
    struct fault_record *f = my_fault();
    unsigned int n0 = f->count;
    /* the record of the first (16-bit) exception is overwritten by the
     * second: the count of instructions run after each shows both steps */
    uint32_t after = THUMB(t_udf)();
    CHECK(f->count == n0 + 2, "%u exceptions, expected 2", f->count - n0);
    CHECK(after == 2, "%lu of the 2 instructions after the UDFs ran", (unsigned long)after);
    CHECK(f->pc == ADDR(t_udf32), "32-bit UDF: handler saw PC 0x%08lx, it is at 0x%08lx",
          (unsigned long)f->pc, (unsigned long)ADDR(t_udf32));
    CHECK(f->insn == 0xf7f0a002u, "32-bit UDF: instruction 0x%08lx", (unsigned long)f->insn);
    CHECK(f->spsr & (1u << 5), "SPSR 0x%08lx: T clear", (unsigned long)f->spsr);
    CHECK(f->mode == MODE_UND, "handler ran in mode 0x%02lx", (unsigned long)f->mode);
    test_end();
}

static void test_undef_trapped(void)
{
    /* trace registers (CP14, opc1 = 1) trap to the hypervisor (HCPTR.TTA),
     * which has no trace for guests: undefined, like on a CPU without it.
     * An injected undef must enter the handler like one the CPU takes
     * itself: I set, A and F unchanged (B1.9.6); A is clear here. */
    test_begin("undef_trapped");
    struct fault_record *f = my_fault();
    __asm__ volatile("cpsie a\n udf #7\n cpsid a" ::: "memory");
    uint32_t real = f->cpsr;
    CHECK((real & 0x19f) == (0x80 | MODE_UND), "the CPU's own undef entered with CPSR 0x%08lx",
          (unsigned long)real);
    unsigned int n0 = f->count;
    uint32_t pc, v = 0x5a5a5a5a;
    uint32_t t0 = stat(PARTITA_STAT_TRAP(TRAP_CAUSE_CP14));
    __asm__ volatile("adr %0, 1f\n"
                     "cpsie a\n"
                     "1: mrc p14, 1, %1, c0, c0, 0\n"
                     "cpsid a\n"
                     : "=&r"(pc), "+r"(v) : : "memory");
    uint32_t trapped = stat(PARTITA_STAT_TRAP(TRAP_CAUSE_CP14)) - t0;
    CHECK(f->count == n0 + 1, "%u exceptions from a trace register read, expected 1",
          f->count - n0);
    CHECK(f->kind == FAULT_UNDEF && f->pc == pc && f->mode == MODE_UND,
          "kind %lu at 0x%08lx (want undef at 0x%08lx) in mode 0x%02lx",
          (unsigned long)f->kind, (unsigned long)f->pc, (unsigned long)pc,
          (unsigned long)f->mode);
    CHECK(v == 0x5a5a5a5a, "the undefined MRC wrote 0x%08lx", (unsigned long)v);
    CHECK(!trapped || (f->cpsr & 0x3ff) == (real & 0x3ff),
          "the injected undef entered with CPSR 0x%08lx, the CPU's own with 0x%08lx",
          (unsigned long)f->cpsr, (unsigned long)real);
    gprintf("undef: the trace register read %s\n",
            trapped ? "trapped to Partita, which injected the exception"
                    : "was undefined without reaching Partita");
    test_end();
}

/* ---- aborts ---- */

static bool dabt_ok(const char *what, uint32_t addr, bool write, bool lpae)
{
    struct fault_record *f = my_fault();
    uint32_t want = (lpae ? FSR_LPAE_EXT_ABORT : FSR_EXT_ABORT) | (write ? FSR_WNR : 0);
    uint32_t mask = lpae ? 0xa3fu : 0xc0fu | (1u << 10);   /* FS, LPAE/WnR, not ExT/CM */
    bool ok = f->kind == FAULT_DABT && f->far == addr && (f->fsr & mask) == (want & mask) &&
              f->mode == MODE_ABT;
    CHECK(ok, "%s 0x%08lx: kind %lu DFAR 0x%08lx DFSR 0x%03lx mode 0x%02lx (want data abort, "
          "DFAR = the address, DFSR 0x%03lx, abort mode)", what, (unsigned long)addr,
          (unsigned long)f->kind, (unsigned long)f->far, (unsigned long)f->fsr,
          (unsigned long)f->mode, (unsigned long)want);
    return ok;
}

static void expect_no_access(const char *what, uint32_t addr)
{
    uint32_t v;
    CHECK(try_read32(addr, &v), "%s: read of 0x%08lx did not abort (read 0x%08lx)", what,
          (unsigned long)addr, (unsigned long)v);
    dabt_ok(what, addr, false, false);
    CHECK(v == 0xdeadbeef, "%s: the aborted load wrote 0x%08lx", what, (unsigned long)v);
    CHECK(try_write32(addr, 0x0badf00d), "%s: write to 0x%08lx did not abort", what,
          (unsigned long)addr);
    dabt_ok(what, addr, true, false);
}

static void test_abort_outside_ram(void)
{
    test_begin("abort_outside_ram");
    uint32_t v;
    CHECK(!try_read32(ram_end - 4, &v), "the last word of RAM 0x%08lx aborts",
          (unsigned long)(ram_end - 4));
    CHECK(!try_write32(ram_end - 4, 0x600df00d) && mmio_read32(ram_end - 4) == 0x600df00d,
          "the last word of RAM 0x%08lx is not writable", (unsigned long)(ram_end - 4));
    const uint32_t addrs[] = { ram_end, ram_end + 0xffc, ram_end + 0x200000, 0x3ffffffc,
                               0x00000000, 0x00001000, 0x7ffffffc, 0x80000000, 0xc0000000,
                               0xfffffffc };
    for (unsigned int i = 0; i < sizeof(addrs) / 4; i++)
        expect_no_access("outside RAM", addrs[i]);
    /* the abort comes back with the interrupted state in SPSR */
    CHECK((my_fault()->spsr & 0x3f) == MODE_SVC, "SPSR 0x%08lx: not SVC, ARM",
          (unsigned long)my_fault()->spsr);
    test_end();
}

static void test_abort_pc(void)
{
    /* the handler's LR - 8 is the faulting instruction; an abort from
     * another mode returns to it */
    test_begin("abort_pc_and_modes");
    struct fault_record *f = my_fault();
    uint32_t pc, v = 0;
    __asm__ volatile("adr %0, 1f\n"
                     "1: ldr %1, [%2]\n"
                     : "=&r"(pc), "+r"(v) : "r"(ram_end) : "memory");
    CHECK(f->pc == pc, "abort PC 0x%08lx, the load is at 0x%08lx", (unsigned long)f->pc,
          (unsigned long)pc);
    static const uint32_t modes[] = { MODE_SYS, MODE_IRQ, MODE_UND, MODE_FIQ };
    for (unsigned int i = 0; i < 4; i++) {
        uint32_t n0 = f->count;
        /* low registers only: r8-r12 are banked in FIQ mode */
        register uint32_t saved __asm__("r0");
        register uint32_t mode __asm__("r1") = modes[i], addr __asm__("r2") = ram_end + 0x40;
        __asm__ volatile("mrs %0, cpsr\n"
                         "bic r3, %0, #0x1f\n"
                         "orr r3, r3, %1\n"
                         "msr cpsr_c, r3\n"
                         "ldr r3, [%2]\n"
                         "msr cpsr_c, %0\n"
                         : "=&r"(saved) : "r"(mode), "r"(addr) : "r3", "memory");
        CHECK(f->count == n0 + 1 && (f->spsr & 0x1f) == modes[i] && f->far == ram_end + 0x40,
              "abort from mode 0x%02lx: %lu exceptions, SPSR 0x%08lx, DFAR 0x%08lx",
              (unsigned long)modes[i], (unsigned long)(f->count - n0), (unsigned long)f->spsr,
              (unsigned long)f->far);
    }
    test_end();
}

static void test_abort_thumb(void)
{
    test_begin("abort_thumb");
    struct fault_record *f = my_fault();
    unsigned int n0 = f->count;
    uint32_t after = THUMB(t_dabt)(ram_end + 0x100);
    CHECK(f->count == n0 + 2, "%u aborts from two Thumb loads", f->count - n0);
    CHECK(after == 2, "%lu of the 2 instructions after the aborted loads ran",
          (unsigned long)after);
    CHECK(f->pc == ADDR(t_dabt32) && f->far == ram_end + 0x104,
          "32-bit load: PC 0x%08lx DFAR 0x%08lx (want 0x%08lx, 0x%08lx)",
          (unsigned long)f->pc, (unsigned long)f->far, (unsigned long)ADDR(t_dabt32),
          (unsigned long)(ram_end + 0x104));
    CHECK(f->spsr & (1u << 5), "SPSR 0x%08lx: T clear", (unsigned long)f->spsr);
    test_end();
}

static void test_abort_no_syndrome(void)
{
    /* loads with no instruction syndrome (LDM, LDRD) to an unmapped IPA, and
     * to the emulated UART: an external abort, never a hang */
    test_begin("abort_no_syndrome");
    struct fault_record *f = my_fault();
    uint32_t addr[] = { ram_end + 0x800, UART_FR };
    for (unsigned int i = 0; i < 2; i++) {
        unsigned int n0 = f->count;
        uint32_t x = 0x1111, y = 0x2222;
        __asm__ volatile("mov r0, %2\n ldm r0, {r2, r3}\n mov %0, r2\n mov %1, r3"
                         : "=r"(x), "=r"(y) : "r"(addr[i]) : "r0", "r2", "r3", "memory");
        CHECK(f->count == n0 + 1, "LDM from 0x%08lx: %u aborts", (unsigned long)addr[i],
              f->count - n0);
        dabt_ok("LDM", addr[i], false, false);
        n0 = f->count;
        __asm__ volatile("mov r0, %2\n ldrd r2, r3, [r0]\n mov %0, r2\n mov %1, r3"
                         : "=r"(x), "=r"(y) : "r"(addr[i]) : "r0", "r2", "r3", "memory");
        CHECK(f->count == n0 + 1, "LDRD from 0x%08lx: %u aborts", (unsigned long)addr[i],
              f->count - n0);
        dabt_ok("LDRD", addr[i], false, false);
        n0 = f->count;
        __asm__ volatile("mov r0, %0\n mov r2, #0x11\n mov r3, #0x22\n stm r0, {r2, r3}"
                         : : "r"(addr[i]) : "r0", "r2", "r3", "memory");
        CHECK(f->count == n0 + 1, "STM to 0x%08lx: %u aborts", (unsigned long)addr[i],
              f->count - n0);
        dabt_ok("STM", addr[i], true, false);
    }
    test_end();
}

static void test_abort_lpae_format(void)
{
    /* with TTBCR.EAE set the guest expects long-descriptor fault status
     * codes, MMU on or off (B3.13.3) */
    test_begin("abort_lpae_format");
    __asm__ volatile("mcr p15, 0, %0, c2, c0, 2\n isb" : : "r"(0x80000000u));
    uint32_t v;
    bool r = try_read32(ram_end + 8, &v);
    bool ok_r = dabt_ok("LPAE read", ram_end + 8, false, true);
    bool w = try_write32(ram_end + 8, 1);
    bool ok_w = dabt_ok("LPAE write", ram_end + 8, true, true);
    bool p = try_exec(ram_end + 0x10);
    uint32_t ifsr = my_fault()->fsr;
    __asm__ volatile("mcr p15, 0, %0, c2, c0, 2\n isb" : : "r"(0));
    CHECK(r && w && ok_r && ok_w, "aborts in the LPAE format");
    CHECK(p && (ifsr & 0x23fu) == FSR_LPAE_EXT_ABORT, "prefetch abort IFSR 0x%03lx, want 0x%03lx",
          (unsigned long)ifsr, (unsigned long)FSR_LPAE_EXT_ABORT);
    test_end();
}

static void test_mmio_unmapped(void)
{
    test_begin("mmio_unmapped_device");
    /* devices of the host's virt board that are not the guest's: RTC,
     * fw_cfg, GPIO, virtio, the GIC's v2m frame, its hypervisor interface
     * (GICH) and the physical address of GICV, PCIe ECAM and MMIO */
    static const uint32_t devs[] = { 0x09010000, 0x09020000, 0x09030000, 0x0a000000,
                                     0x0a003e00, 0x08020000, 0x08030000, 0x08040000,
                                     0x3f000000, 0x10000000, 0x04000000, 0x09001000,
                                     GICC_BASE + 0x2000 };
    for (unsigned int i = 0; i < sizeof(devs) / 4; i++)
        expect_no_access("device", devs[i]);
    uint32_t v;
    CHECK(try_read8(0x0a000000 + 3, &v) == true, "LDRB of virtio did not abort");
    dabt_ok("LDRB", 0x0a000003, false, false);
    /* the guest's own GIC CPU interface is there */
    CHECK(!try_read32(GICC_BASE + 0xfc, &v), "reading GICC_IIDR at 0x%08lx aborts",
          (unsigned long)(GICC_BASE + 0xfc));
    test_end();
}

static void test_prefetch_abort(void)
{
    test_begin("prefetch_abort");
    static const uint32_t targets[] = { 0, 0x1000, 0x0a000000, 0x3ffff000, 0x7ffff000,
                                        0xfffff000 };
    uint32_t all[sizeof(targets) / 4 + 1];
    memcpy(all, targets, sizeof(targets));
    all[sizeof(targets) / 4] = ram_end;
    struct fault_record *f = my_fault();
    for (unsigned int i = 0; i < sizeof(all) / 4; i++) {
        bool hit = try_exec(all[i]);
        CHECK(hit && f->kind == FAULT_PABT && f->far == all[i] && f->pc == all[i] &&
              (f->fsr & 0x40fu) == FSR_EXT_ABORT && f->mode == MODE_ABT,
              "branch to 0x%08lx: abort %d kind %lu IFAR 0x%08lx PC 0x%08lx IFSR 0x%03lx "
              "mode 0x%02lx", (unsigned long)all[i], hit, (unsigned long)f->kind,
              (unsigned long)f->far, (unsigned long)f->pc, (unsigned long)f->fsr,
              (unsigned long)f->mode);
    }
    /* to a Thumb address */
    bool hit = try_exec(ram_end | 1);
    CHECK(hit && f->kind == FAULT_PABT && f->far == ram_end,
          "BX to 0x%08lx (Thumb): abort %d IFAR 0x%08lx", (unsigned long)(ram_end | 1), hit,
          (unsigned long)f->far);
    test_end();
}

/* ---- emulated MMIO: sizes, sign extension, registers, Thumb ---- */

static void test_mmio_sizes(void)
{
    test_begin("mmio_sizes");
    /* PL011 identification: PeriphID 0x11 0x10 0x34 0x00, CellID 0x0d 0xf0 0x05 0xb1 */
    uint32_t v;
    uint32_t base = VUART_BASE;
    v = mmio_read32(base + 0xfe0);
    CHECK(v == 0x11, "LDR PeriphID0 = 0x%08lx", (unsigned long)v);
    __asm__ volatile("ldrb %0, [%1]" : "=r"(v) : "r"(base + 0xffc));
    CHECK(v == 0xb1, "LDRB CellID3 = 0x%08lx", (unsigned long)v);
    __asm__ volatile("ldrsb %0, [%1]" : "=r"(v) : "r"(base + 0xffc));
    CHECK(v == 0xffffffb1u, "LDRSB CellID3 = 0x%08lx, want 0xffffffb1", (unsigned long)v);
    __asm__ volatile("ldrsb %0, [%1]" : "=r"(v) : "r"(base + 0xff0));
    CHECK(v == 0x0d, "LDRSB CellID0 = 0x%08lx, want 0x0000000d", (unsigned long)v);
    __asm__ volatile("ldrsb %0, [%1]" : "=r"(v) : "r"(base + 0xff4));
    CHECK(v == 0xfffffff0u, "LDRSB CellID1 = 0x%08lx, want 0xfffffff0", (unsigned long)v);
    __asm__ volatile("ldrh %0, [%1]" : "=r"(v) : "r"(base + 0xffc));
    CHECK(v == 0xb1, "LDRH CellID3 = 0x%08lx", (unsigned long)v);
    __asm__ volatile("ldrsh %0, [%1]" : "=r"(v) : "r"(base + 0xffc));
    CHECK(v == 0xb1, "LDRSH CellID3 = 0x%08lx, want 0x000000b1", (unsigned long)v);
    v = 0;
    __asm__ volatile("ldrb %0, [%1]" : "=r"(v) : "r"(UART_FR));
    CHECK(v & FR_TXFE, "LDRB FR = 0x%08lx", (unsigned long)v);
    /* into r12, and the banked LR/SP/r8/r12 of other modes */
    register uint32_t r12 __asm__("r12");
    __asm__ volatile("ldr r12, [%1]" : "=r"(r12) : "r"(base + 0xfe8));
    CHECK(r12 == 0x34, "LDR r12 = 0x%08lx", (unsigned long)r12);
    static const uint32_t modes[] = { MODE_SVC, MODE_SYS, MODE_IRQ, MODE_UND, MODE_ABT,
                                      MODE_FIQ };
    for (unsigned int i = 0; i < 6; i++) {
        v = a_mmio_lr(base + 0xfe4, modes[i]);
        CHECK(v == 0x10, "LDR LR in mode 0x%02lx = 0x%08lx, want 0x10",
              (unsigned long)modes[i], (unsigned long)v);
        v = a_mmio_sp(base + 0xff0, modes[i]);
        CHECK(v == 0x0d, "LDR SP in mode 0x%02lx = 0x%08lx, want 0x0d",
              (unsigned long)modes[i], (unsigned long)v);
    }
    v = a_mmio_fiq(base + 0xff8);
    CHECK(v == 2 * 0x05, "LDR r8_fiq, r12_fiq = 0x%08lx in total, want 0x0a", (unsigned long)v);
    /* a store of a banked register: SP_irq's low byte */
    test_end();
}

static void test_mmio_odd(void)
{
    /* accesses the emulation cannot or should not perform: a load into the
     * PC and exclusives.  Any outcome but a hang or a jump is fine: the
     * load ignored, or an abort back to the guest */
    test_begin("mmio_odd_accesses");
    struct fault_record *f = my_fault();
    unsigned int n0 = f->count;
    uint32_t after = 0;
    __asm__ volatile("mov r0, %1\n"
                     "adr r12, 1f\n"           /* a prefetch abort returns here */
                     "ldr pc, [r0]\n"
                     "add %0, %0, #1\n"
                     "1:\n"
                     : "+r"(after) : "r"(UART_FR) : "r0", "r12", "memory");
    CHECK(after == 1 && (f->count == n0 || (f->kind == FAULT_DABT && f->far == UART_FR)),
          "LDR PC from the UART: %u exceptions (kind %lu, FAR 0x%08lx), %lu instructions after",
          f->count - n0, (unsigned long)f->kind, (unsigned long)f->far, (unsigned long)after);
    n0 = f->count;
    uint32_t v = 0x5a5a5a5a;
    __asm__ volatile("ldrex %0, [%1]\n clrex" : "+r"(v) : "r"(UART_FR) : "memory");
    CHECK((f->count == n0 + 1 && f->far == UART_FR && v == 0x5a5a5a5a) ||
          (f->count == n0 && (v & FR_TXFE)),
          "LDREX from the UART: %u exceptions, FAR 0x%08lx, value 0x%08lx", f->count - n0,
          (unsigned long)f->far, (unsigned long)v);
    n0 = f->count;
    uint32_t fail = 7;
    __asm__ volatile("strex %0, %1, [%2]" : "=&r"(fail) : "r"('!'), "r"(UART_DR) : "memory");
    CHECK(f->count == n0 + 1 ? f->far == UART_DR : fail <= 1,
          "STREX to the UART: %u exceptions, FAR 0x%08lx, status %lu", f->count - n0,
          (unsigned long)f->far, (unsigned long)fail);
    test_end();
}

static void test_mmio_thumb(void)
{
    test_begin("mmio_thumb");
    gprintf("thumb-mmio: ");
    uint32_t n = THUMB(t_mmio_steps)(VUART_BASE, '#');
    gprintf("\n");
    CHECK(n == 5, "%lu of the 5 instructions after trapped Thumb accesses ran "
          "(16/32-bit stepping)", (unsigned long)n);
    uint32_t out[4] = { 0, 0, 0, 0 };
    uint32_t fr = mmio_read32(UART_FR);
    THUMB(t_it_mmio)(VUART_BASE, out);
    CHECK(out[0] == fr && out[1] == fr,
          "ITETE EQ with trapped loads: got 0x%02lx 0x%02lx, want FR 0x%02lx twice "
          "(0x55/0x66: an else slot ran: ITSTATE not advanced)", (unsigned long)out[0],
          (unsigned long)out[1], (unsigned long)fr);
    CHECK(out[2] == 0x77, "ITT NE (failing) ran a load: 0x%02lx", (unsigned long)out[2]);
    CHECK(out[3] == 2, "%lu of 2 instructions after the IT blocks ran", (unsigned long)out[3]);
    test_end();
}

/* ---- stage 1 on: VA != IPA ---- */

#define VA_UART   0xa0000000u     /* -> the UART, device */
#define VA_HOLE   0xa0100000u     /* -> an IPA outside RAM */
#define VA_RAM    0xa0200000u     /* -> RAM at the 2nd MiB, normal */
#define VA_WALK   0xa0300000u     /* -> a second-level table outside RAM */

static void test_mmu_va_ipa(void)
{
    test_begin("mmu_va_not_ipa");
    mmu_enable();
    CHECK(mmu_enabled(), "SCTLR.M did not stick: 0x%08lx", (unsigned long)read_sctlr());
    mmu_map_section(VA_UART, (VUART_BASE & 0xfff00000u) | SECT_DEVICE);
    mmu_map_section(VA_HOLE, (ram_end + 0x100000) | (SECT_NORMAL & ~0x10u));
    mmu_map_section(VA_RAM, (RAM_BASE + 0x200000) | SECT_NORMAL);
    /* a page table (coarse, domain 0) at an IPA outside RAM */
    mmu_map_section(VA_WALK, (ram_end + 0x400) | 0x1);
    /* the emulated UART through an alias: the hypervisor must route by the
     * IPA (HPFAR), not the VA */
    uint32_t v = 0;
    CHECK(!try_read32(VA_UART + 0xfe0, &v) && v == 0x11,
          "PeriphID0 through VA 0x%08lx: %s 0x%08lx", (unsigned long)(VA_UART + 0xfe0),
          my_fault()->far == VA_UART + 0xfe0 ? "abort," : "read", (unsigned long)v);
    gprintf("alias-mmio: ");
    for (const char *s = "via-va"; *s; s++)
        mmio_write32(VA_UART, (uint8_t)*s);
    gprintf("\n");
    /* aborts report the VA */
    CHECK(try_read32(VA_HOLE + 0x124, &v), "VA 0x%08lx -> IPA 0x%08lx did not abort",
          (unsigned long)(VA_HOLE + 0x124), (unsigned long)(ram_end + 0x100124));
    dabt_ok("VA outside RAM", VA_HOLE + 0x124, false, false);
    CHECK(try_write32(VA_HOLE + 0x128, 1), "write through VA 0x%08lx did not abort",
          (unsigned long)(VA_HOLE + 0x128));
    dabt_ok("VA outside RAM", VA_HOLE + 0x128, true, false);
    CHECK(try_exec(VA_HOLE + 0x200) && my_fault()->kind == FAULT_PABT &&
          my_fault()->far == VA_HOLE + 0x200, "prefetch through VA 0x%08lx: IFAR 0x%08lx",
          (unsigned long)(VA_HOLE + 0x200), (unsigned long)my_fault()->far);
    /* a stage-1 walk that leaves RAM aborts too */
    CHECK(try_read32(VA_WALK + 0x10, &v), "access needing a table walk outside RAM did not "
          "abort");
    CHECK(my_fault()->far == VA_WALK + 0x10, "walk abort DFAR 0x%08lx, want 0x%08lx",
          (unsigned long)my_fault()->far, (unsigned long)(VA_WALK + 0x10));
    /* RAM through an alias is the same RAM */
    volatile uint32_t *alias = (volatile uint32_t *)(VA_RAM + 0x1230);
    volatile uint32_t *flat = (volatile uint32_t *)(RAM_BASE + 0x200000 + 0x1230);
    *alias = 0x1a2b3c4d;
    CHECK(*flat == 0x1a2b3c4d, "RAM alias: wrote 0x1a2b3c4d, read 0x%08lx", (unsigned long)*flat);
    mmu_disable();
    CHECK(!mmu_enabled(), "MMU still on");
    CHECK(*flat == 0x1a2b3c4d, "after the MMU went off: 0x%08lx", (unsigned long)*flat);
    test_end();
}

/* ---- set/way cache maintenance ---- */

static void fill(volatile uint32_t *p, uint32_t words, uint32_t seed)
{
    for (uint32_t i = 0; i < words; i++)
        p[i] = seed ^ (i * 0x9e3779b9u);
}

static uint32_t verify(volatile uint32_t *p, uint32_t words, uint32_t seed)
{
    uint32_t bad = 0;
    for (uint32_t i = 0; i < words; i++)
        if (p[i] != (seed ^ (i * 0x9e3779b9u)))
            bad++;
    return bad;
}

static void test_cache_setway(void)
{
    test_begin("cache_setway");
    uint32_t clidr;
    __asm__ volatile("mrc p15, 1, %0, c0, c0, 1" : "=r"(clidr));
    CHECK(((clidr >> 24) & 7) != 0, "CLIDR 0x%08lx: no level of coherency",
          (unsigned long)clidr);
    volatile uint32_t *buf = (volatile uint32_t *)(RAM_BASE + 0x300000);
    const uint32_t words = 0x40000 / 4;    /* 256 KiB */
    static const char *names[] = { "DCISW", "DCCSW", "DCCISW" };
    unsigned int ops = 0;
    for (int cached = 0; cached < 2; cached++) {
        if (cached)
            mmu_enable();
        for (int op = 0; op < 3; op++) {
            uint32_t seed = 0x5eed0000u + (uint32_t)(cached * 3 + op);
            fill(buf, words, seed);
            ops = dcache_setway_all((enum setway_op)op);
            uint32_t bad = verify(buf, words, seed);
            CHECK(bad == 0, "%s over all sets/ways (caches %s): %lu of %lu words changed",
                  names[op], cached ? "on" : "off", (unsigned long)bad, (unsigned long)words);
        }
        if (cached) {
            uint32_t seed = 0xc0ffee00u;
            fill(buf, words, seed);
            mmu_disable();      /* DCCISW all, caches off: memory must hold it */
            uint32_t bad = verify(buf, words, seed);
            CHECK(bad == 0, "after clean+invalidate and caches off: %lu words differ",
                  (unsigned long)bad);
        }
    }
    CHECK(ops >= 64, "only %u set/way operations for CLIDR 0x%08lx", ops, (unsigned long)clidr);
    gprintf("cache: CLIDR 0x%08lx, %u set/way operations per pass\n", (unsigned long)clidr, ops);
    test_end();
}

void guest_main(uint32_t dtb)
{
    ram_end = RAM_BASE + (guest_dt.valid ? guest_dt.mem_size : 0x100000);
    gprintf("traps: guest up, RAM 0x%08lx-0x%08lx, image ends 0x%08lx\n",
            (unsigned long)RAM_BASE, (unsigned long)ram_end, (unsigned long)image_end());
    test_print();
    test_boot_state();
    test_device_tree();
    test_partita_calls();
    test_psci_version();
    test_psci_features();
    test_psci_not_supported();
    test_psci_cpu_errors();
    test_smc_like_hvc();
    test_call_preserves_registers();
    test_smc_conditional();
    test_hvc_thumb();
    test_traps_taken();
    test_actlr();
    test_mpidr();
    test_midr();
    test_cbar_hidden();
    test_undef_arm();
    test_undef_thumb();
    test_undef_trapped();
    test_abort_outside_ram();
    test_abort_pc();
    test_abort_thumb();
    test_abort_no_syndrome();
    test_abort_lpae_format();
    test_mmio_unmapped();
    test_prefetch_abort();
    test_mmio_sizes();
    test_mmio_thumb();
    test_mmio_odd();
    test_mmu_va_ipa();
    test_cache_setway();
    tests_finish();
}
