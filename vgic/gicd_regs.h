/*
 * GICv2 register offsets (ARM IHI 0048B, 4.1.2 Table 4-1 for the
 * distributor, 4.1.3 Table 4-2 for the CPU interface): the host driver, the
 * virtual distributor model and the secure start's assembly use these names.
 */
#ifndef VGIC_GICD_REGS_H
#define VGIC_GICD_REGS_H

#define GICD_CTLR        0x000u
#define GICD_TYPER       0x004u
#define GICD_IIDR        0x008u
#define GICD_IGROUPR     0x080u
#define GICD_ISENABLER   0x100u
#define GICD_ICENABLER   0x180u
#define GICD_ISPENDR     0x200u
#define GICD_ICPENDR     0x280u
#define GICD_ISACTIVER   0x300u
#define GICD_ICACTIVER   0x380u
#define GICD_IPRIORITYR  0x400u
#define GICD_ITARGETSR   0x800u
#define GICD_ICFGR       0xc00u
#define GICD_ICFGR_END   0xd00u  /* the last per-interrupt register bank ends */
#define GICD_SGIR        0xf00u
#define GICD_CPENDSGIR   0xf10u
#define GICD_SPENDSGIR   0xf20u
#define GICD_PIDR4       0xfd0u  /* the ID registers, PIDR4..7, PIDR0..3, CIDR0..3 */
#define GICD_SIZE        0x1000u

#define GICC_CTLR        0x000u
#define GICC_PMR         0x004u
#define GICC_BPR         0x008u
#define GICC_IAR         0x00cu
#define GICC_EOIR        0x010u
#define GICC_RPR         0x014u
#define GICC_HPPIR       0x018u
#define GICC_IIDR        0x0fcu
#define GICC_DIR         0x1000u

#define GICD_CTLR_ENABLE    (1u << 0)
#define GICD_CTLR_ENABLE_G1 (1u << 1)   /* secure view: Group 1 too */
#define GICC_CTLR_ENABLE_G0 (1u << 0)
#define GICC_CTLR_ENABLE_G1 (1u << 1)
#define GICC_CTLR_FIQEN     (1u << 3)   /* secure view: Group 0 signalled as FIQ */

#endif
