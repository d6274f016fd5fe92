/*
 * GIC virtualization regions that a board's DT leaves out, from the SoC's
 * documented GIC-400 layout.  An entry names the SoC by
 * the root compatible its DTs carry and checks that the DT's distributor
 * and CPU interface are where that layout puts them, so nothing is guessed
 * for a SoC that is not in the table, nor for a DT that moved the GIC.
 * Each entry cites its source.
 */
#include <stddef.h>
#include "gic_quirks.h"
#include "hyp/dt/dt_index.h"

static const struct gic_quirk quirks[] = {
    /* STM32MP151/153/157 (Cortex-A7): RM0436 Rev 7, memory map (section
     * 2.5.2, Table 8): GICD 0xA0021000, GICC 0xA0022000, GICH 0xA0024000
     * (8 KiB), GICV 0xA0026000 (8 KiB); the virtual maintenance interrupt
     * is PPI 9, INTID 25 (RM0436 Table 118); Linux 6.1's stm32mp151.dtsi
     * gives only the first two regions and no maintenance interrupt */
    { "st,stm32mp151", 0xa0021000u, 0xa0022000u, 0xa0024000u, 0x2000u, 0xa0026000u, 0x2000u, 25u,
      "STM32MP15 RM0436 memory map" },
    { "st,stm32mp153", 0xa0021000u, 0xa0022000u, 0xa0024000u, 0x2000u, 0xa0026000u, 0x2000u, 25u,
      "STM32MP15 RM0436 memory map" },
    { "st,stm32mp157", 0xa0021000u, 0xa0022000u, 0xa0024000u, 0x2000u, 0xa0026000u, 0x2000u, 25u,
      "STM32MP15 RM0436 memory map" },
    /* OMAP5430/5432 (Cortex-A15 MPCore): omap5.dtsi gives all four regions
     * but no maintenance interrupt; the A15's GIC raises it as PPI 9, INTID
     * 25 (Cortex-A15 MPCore TRM r2p0, 8.2 "Interrupts": ID25 virtual
     * maintenance interrupt), as dra7.dtsi names it for the same GIC at the
     * same addresses (<GIC_PPI 9 ...>) */
    { "ti,omap5", 0x48211000u, 0x48212000u, 0x48214000u, 0x2000u, 0x48216000u, 0x2000u, 25u,
      "Cortex-A15 MPCore TRM (PPI 9), OMAP5 memory map as dra7.dtsi" },
};

const struct gic_quirk *gic_quirk_find(const void *fdt, uint64_t gicd, uint64_t gicc)
{
    for (unsigned int i = 0u; i < sizeof(quirks) / sizeof(quirks[0]); i++) {
        if (dt_is_compatible(fdt, 0, quirks[i].soc) && quirks[i].gicd == gicd &&
            quirks[i].gicc == gicc) {
            return &quirks[i];
            }
    }
    return NULL;
}
