/*
 * The host platform, as read from the boot device tree with libfdt.
 * Pure parsing: no hardware access, so the host unit tests run it too.
 */
#ifndef HYP_PLATFORM_H
#define HYP_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define PLAT_MAX_CPUS   8
#define PLAT_MAX_MEM    8
#define PLAT_MAX_RSV    16

/* struct plat_range, dt_node_reg, dt_node_irq */
#include "hyp/dt/translate.h"

/*
 * How a secondary CPU is started: PSCI CPU_ON; spin-table (the CPU waits
 * for its entry address at cpu-release-addr); the Versatile Express system
 * flags (the boot monitor, and QEMU's boot code, wait in WFI for an entry
 * address in SYS_FLAGS, as Linux's mach-vexpress platsmp.c starts them);
 * the SoC's own registers, as its Linux port starts them (soc_smp.h).
 */
enum cpu_method { CPU_METHOD_NONE, CPU_METHOD_PSCI, CPU_METHOD_SPIN_TABLE,
                  CPU_METHOD_SYSFLAGS, CPU_METHOD_SOC };
enum psci_conduit { PSCI_CONDUIT_NONE, PSCI_CONDUIT_SMC, PSCI_CONDUIT_HVC };

struct plat_cpu {
    uint32_t mpidr;             /* affinity fields of MPIDR (reg) */
    enum cpu_method method;
    uint64_t release_addr;      /* spin-table cpu-release-addr; SYS_FLAGSSET */
    uint32_t release_size;      /* spin-table: 4 or 8 bytes (1 or 2 cells) */
    uint64_t release_clear;     /* SYS_FLAGSCLR (sysflags only) */
    char enable_method[32];     /* as the DT says, or /cpus's ("" if none) */
    int32_t soc_reset;          /* CPU_METHOD_SOC: its reset line (resets), -1: none */
};

/* A SoC start method's registers, read from the DT (soc_smp.h) */
#define PLAT_SOC_REGS 3
struct soc_smp_method;
struct plat_soc_smp {
    const struct soc_smp_method *method;   /* NULL: none matched, or err says why */
    uint64_t reg[PLAT_SOC_REGS];            /* the method's register blocks */
    char err[112];                          /* a matched method the DT cannot feed */
};

struct plat_gic {
    char compatible[32];
    struct plat_range gicd, gicc, gich, gicv;
    uint32_t maint_irq;         /* INTID of the maintenance interrupt */
    const char *quirk;          /* GICH/GICV from this SoC document, not the DT */
};

struct plat_timer {
    uint32_t irq_sec_phys, irq_phys, irq_virt, irq_hyp;   /* INTIDs */
    uint32_t clock_frequency;   /* 0 when the DT leaves it to CNTFRQ */
};

enum uart_kind { UART_NONE, UART_PL011, UART_NS16550, UART_SAMSUNG, UART_IMX, UART_STM32 };

struct plat_uart {
    char path[96];
    char compatible[32];
    enum uart_kind kind;        /* UART_NONE: no driver for it */
    struct plat_range reg;
    uint32_t irq;               /* INTID, 0 if none */
    uint32_t reg_shift;         /* 16550: register n at n << reg_shift */
    uint32_t io_width;          /* bytes per register access: 1, 2 or 4 */
    const char *found_by;       /* "stdout-path", "/aliases/serial0", ... */
};

struct plat_psci {
    enum psci_conduit conduit;
    char compatible[24];
    uint32_t fn_cpu_on;         /* function ID of CPU_ON */
};

struct platform {
    char model[64];
    unsigned int nmem;
    struct plat_range mem[PLAT_MAX_MEM];
    unsigned int nrsv;
    struct plat_range rsv[PLAT_MAX_RSV];    /* /memreserve/ and reserved-memory */
    unsigned int ncpus;
    struct plat_cpu cpus[PLAT_MAX_CPUS];
    struct plat_gic gic;
    struct plat_timer timer;
    struct plat_uart uart;
    struct plat_uart debug_uart;    /* gdb's own line, UART_NONE: none (platform_uart.c) */
    struct plat_psci psci;
    struct plat_soc_smp soc_smp;
    uint32_t pmu_irq;           /* the PMU's PPI (INTID 16-31), 0: none known */
};

/*
 * Fill *p from the device tree.  Returns 0, or -1 with a one-line reason in
 * err naming the node and what is missing.
 */
int platform_probe(const void *fdt, struct platform *p, char *err, size_t errlen);

/* The parts of a probe, in the order platform_probe runs them. */
enum plat_part { PLAT_PART_DT, PLAT_PART_UART, PLAT_PART_MEMORY, PLAT_PART_CPUS,
                 PLAT_PART_GIC, PLAT_PART_TIMER, PLAT_PART_DEBUG_UART, PLAT_NPARTS };

/*
 * Probe every part even when some fail (the board readiness report, not
 * the hypervisor): report() gets each failing part's one-line reason.
 * Returns how many parts failed.
 */
unsigned int platform_probe_all(const void *fdt, struct platform *p,
                                void (*report)(void *ctx, enum plat_part part, const char *err),
                                void *ctx);

const char *platform_psci_conduit_name(enum psci_conduit c);
/* "psci", "spin-table", "vexpress-sysflags", "soc" or "none" */
const char *platform_cpu_method_name(enum cpu_method m);
/* "pl011", "ns16550", "samsung", "imx", "stm32" or "none" */
const char *platform_uart_kind_name(enum uart_kind k);

#endif
