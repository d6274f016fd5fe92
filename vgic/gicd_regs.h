/*
 * GICv2 register offsets (ARM IHI 0048B, 4.1.2 Table 4-1 for the
 * distributor, 4.1.3 Table 4-2 for the CPU interface): the host driver, the
 * virtual distributor model and the secure start's assembly use these names.
 */
#ifndef VGIC_GICD_REGS_H
#define VGIC_GICD_REGS_H

#define GICD_CTLR        0x000
#define GICD_TYPER       0x004
#define GICD_IIDR        0x008
#define GICD_IGROUPR     0x080
#define GICD_ISENABLER   0x100
#define GICD_ICENABLER   0x180
#define GICD_ISPENDR     0x200
#define GICD_ICPENDR     0x280
#define GICD_ISACTIVER   0x300
#define GICD_ICACTIVER   0x380
#define GICD_IPRIORITYR  0x400
#define GICD_ITARGETSR   0x800
#define GICD_ICFGR       0xc00
#define GICD_ICFGR_END   0xd00  /* the last per-interrupt register bank ends */
#define GICD_SGIR        0xf00
#define GICD_CPENDSGIR   0xf10
#define GICD_SPENDSGIR   0xf20
#define GICD_PIDR4       0xfd0  /* the ID registers, PIDR4..7, PIDR0..3, CIDR0..3 */
#define GICD_SIZE        0x1000

#define GICC_CTLR        0x000
#define GICC_PMR         0x004
#define GICC_BPR         0x008
#define GICC_IAR         0x00c
#define GICC_EOIR        0x010
#define GICC_RPR         0x014
#define GICC_HPPIR       0x018
#define GICC_IIDR        0x0fc
#define GICC_DIR         0x1000

#define GICD_CTLR_ENABLE    (1u << 0)
#define GICD_CTLR_ENABLE_G1 (1u << 1)   /* secure view: Group 1 too */
#define GICC_CTLR_ENABLE_G0 (1u << 0)
#define GICC_CTLR_ENABLE_G1 (1u << 1)
#define GICC_CTLR_FIQEN     (1u << 3)   /* secure view: Group 0 signalled as FIQ */

#endif
