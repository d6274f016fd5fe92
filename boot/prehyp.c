/*
 * C before HYP, with the PL1 MMU on and the caches off (boot/early_mmu.S):
 *  - non-secure SVC start: say why Partita cannot run, and stop;
 *  - secure start, primary CPU: give the GIC to the non-secure world (only
 *    the secure side can write GICD_IGROUPRn, GICv2 4.3.4) and set CNTFRQ,
 *    then return to the drop into non-secure HYP.
 * This runs on the early tables, which map no devices: a 2 MiB device
 * block per device is added at the top of the I/O window.
 */
#include <string.h>
#include <libfdt.h>
#include <arch/boot.h>
#include <arch/layout.h>
#include <arch/sysregs.h>
#include "hyp/lib/console.h"
#include "hyp/dt/hostdt.h"
#include "hyp/drivers/uart/host_uart.h"
#include "hyp/platform/platform.h"
#include "hyp/platform/cpu_release.h"
#include "vgic/gicd_regs.h"

static struct platform pre;
static struct host_uart pre_uart;
static struct console_ops pre_ops;
static unsigned int pre_slot;

/* Map the 2 MiB block holding pa as device memory; returns pa's VA. */
static volatile uint8_t *prehyp_map_device(uint64_t pa)
{
    uint64_t *l2 = (uint64_t *)((uint32_t)boot_pt_l1 + PAGE_SIZE);   /* boot_pt_l2_va */
    uint32_t va = HYP_VA_DEV + pre_slot++ * BLOCK_SIZE;
    uint64_t block = pa & ~((uint64_t)BLOCK_SIZE - 1u);
    l2[(va >> BLOCK_SHIFT) & 511u] = block | PTE_LO_DEVICE | PTE_AP_RW | PTE_VALID |
                                     ((uint64_t)PTE_XN_HI << 32);
    dsb();      /* caches are off: the store is in memory for the walker */
    sysreg_op_tlbiallis(0);
    dsb();
    isb();
    return (volatile uint8_t *)(va + (uint32_t)(pa & (BLOCK_SIZE - 1u)));
}

static int prehyp_console(uint32_t dtb_pa)
{
    char err[160];
    const void *fdt = hostdt_copy(dtb_pa, err, sizeof(err));
    if (!fdt) {
        return -1;
    }
    /* what it found of the UART is enough: host_uart_init checks it */
    (void)platform_probe(fdt, &pre, err, sizeof(err));
    if (host_uart_init(&pre_uart, &pre.uart, prehyp_map_device(pre.uart.reg.base)) != 0) {
        return -1;
    }
    pre_ops = host_uart_console_ops(&pre_uart);
    console_attach(&pre_ops);
    return 0;
}

static void prehyp_stop(void)
{
    for (;;) {
        wfi();
    }
}

static volatile uint8_t *pre_gicd;

static void secure_gic_setup(void)
{
    volatile uint8_t *d = pre_gicd = prehyp_map_device(pre.gic.gicd.base);
    volatile uint8_t *c = prehyp_map_device(pre.gic.gicc.base);
    unsigned int lines = (*(volatile uint32_t *)(d + GICD_TYPER) & 0x1fu) + 1u;
    /* every interrupt Group 1 (non-secure); banked word 0 is this CPU's */
    for (unsigned int i = 0u; i < lines; i++) {
        *(volatile uint32_t *)(d + GICD_IGROUPR + 4u * i) = 0xffffffffu;
    }
    *(volatile uint32_t *)(d + GICD_CTLR) = GICD_CTLR_ENABLE | GICD_CTLR_ENABLE_G1;
    *(volatile uint32_t *)(c + GICC_PMR) = 0xffu;     /* every priority */
    *(volatile uint32_t *)(c + GICC_CTLR) = GICC_CTLR_ENABLE_G0 | GICC_CTLR_ENABLE_G1;
    boot_pen.gicd_pa = (uint32_t)pre.gic.gicd.base;
    boot_pen.gicc_pa = (uint32_t)pre.gic.gicc.base;
}

/*
 * Secondaries that a secure boot parks in a firmware pen of the board's
 * own (QEMU's vexpress boot code and the vexpress boot monitor wait in WFI
 * on SYS_FLAGS) are sent to secondary_soc_entry (boot/entry.S), the entry
 * of CPUs a SoC's boot ROM releases in whatever mode it runs them: in the
 * secure world it holds them in Partita's pen (boot/secure.S
 * secure_secondary), as every SoC start method whose ROM releases its CPUs
 * secure relies on - so the vexpress secure tests run that path.  Woken
 * by a Group 0 SGI: their GIC CPU interfaces are still secure-configured.
 * A spin-table CPU is left alone: a secure start is taken to start every
 * CPU at the entry, as QEMU virt does (see boot/smp.c start_secure).
 */
static void secure_park_secondaries(uint32_t image_pa)
{
    uint32_t entry = image_pa + ((uint32_t)secondary_soc_entry - (uint32_t)_start);
    bool woken = false;
    for (unsigned int i = 0u; i < pre.ncpus; i++) {
        struct release_write w[RELEASE_MAX_WRITES];
        if (pre.cpus[i].method != CPU_METHOD_SYSFLAGS) {
            continue;
        }
        unsigned int n = cpu_release_plan(&pre.cpus[i], entry, w);
        for (unsigned int k = 0u; k < n; k++) {
            *(volatile uint32_t *)prehyp_map_device(w[k].pa) = (uint32_t)w[k].value;
        }
        woken = true;
    }
    if (!woken) {
        return;
    }
    dsb();
    sev();
    /* GICD_SGIR: every other CPU, SGI 0, Group 0 (NSATT = 0) */
    *(volatile uint32_t *)(pre_gicd + GICD_SGIR) = 1u << 24;
}

/* the C entry of the boot assembly (early_mmu.S): no C code calls it */
void boot_prehyp_main(uint32_t dtb_pa, uint32_t start_mode, uint32_t image_pa);

void boot_prehyp_main(uint32_t dtb_pa, uint32_t start_mode, uint32_t image_pa)
{
    bool have_console = prehyp_console(dtb_pa) == 0;

    if (start_mode == START_MODE_NS_SVC) {
        if (have_console) {
            pr_err("Partita started in non-secure SVC mode: the bootloader did not "
                   "enter it in HYP mode, so it cannot run guests.\n");
            pr_err("Fix: boot it in HYP mode (QEMU: -M virt,virtualization=on; "
                   "U-Boot: CONFIG_ARMV7_NONSEC/CONFIG_ARMV7_VIRT, "
                   "bootm_boot_mode=nonsec). Stopping.\n");
        }
        prehyp_stop();
    }
    if (!have_console || pre.gic.gicd.base == 0u) {
        prehyp_stop();      /* no DT, no GIC: nothing sane to hand over */
    }
    secure_gic_setup();
    if (pre.timer.clock_frequency != 0u) {
        sysreg_write_cntfrq(pre.timer.clock_frequency);
        boot_pen.cntfrq = pre.timer.clock_frequency;
    }
    secure_park_secondaries(image_pa);
    pr_info("partita: secure start: GIC handed to the non-secure world, "
            "dropping to non-secure HYP\n");
}
