/*
 * Hypervisor virtual memory layout (HYP stage 1, LPAE, 32-bit VA).
 * Shared by C, assembly and the linker script.  The constants are unsigned
 * for C (MISRA C:2012 rules 7.2, 10.1, 10.4) and written out rather than
 * shifted, since a shifted 1u is a rule 12.2 finding wherever it is used and
 * the linker script takes no cast (the Makefile takes the u off for it).
 *
 * The image is linked at HYP_VA_BASE and mapped there wherever it was loaded,
 * so only the few instructions before the MMU is on must be position
 * independent.  Host RAM is identity mapped (VA = PA) below HYP_VA_DEV so
 * that page tables and guest memory need no translation; devices get VAs in
 * the I/O window.
 */
#ifndef ARCH_LAYOUT_H
#define ARCH_LAYOUT_H

#define HYP_VA_BASE      0xF0000000u  /* image (text, data, bss, stacks)    */
#define HYP_IMAGE_MAX    0x00200000u  /* one L3 table maps it: 2 MiB       */
#define HYP_VA_DTB       0xEFC00000u  /* boot DTB window: two 2 MiB blocks */
#define HYP_VA_DEV       0xE0000000u  /* device window (ioremap)           */
#define HYP_VA_DEV_END   0xEFC00000u
#define HYP_VA_RAM_END   HYP_VA_DEV  /* RAM identity mapped below this    */

#define PAGE_SHIFT       12u
#define PAGE_SIZE        0x1000u       /* 1 << PAGE_SHIFT */
#define BLOCK_SHIFT      21u
#define BLOCK_SIZE       0x200000u     /* 1 << BLOCK_SHIFT */

#define MAX_CPUS         8u
/*
 * Each CPU's stack region: a guard page (never mapped) below the stack.
 * Regions are aligned to their size so the fatal-exception entry can tell
 * a guard-page hit from SP alone (see hyp/arch/vectors.S).
 */
#define STACK_REGION_SHIFT 14u
#define STACK_REGION     0x4000u     /* 1 << STACK_REGION_SHIFT: 16 KiB */
#define STACK_GUARD      PAGE_SIZE
#define STACK_TOP_PAD    16u          /* SP never equals the region end */

/* LPAE descriptor bits (ARM ARM B3.6.1, B3.6.2) */
#define PTE_VALID        (1u << 0)
#define PTE_TABLE        (1u << 1)    /* table (L1/L2) or page (L3) */
#define PTE_ATTR(i)      ((i) << 2)  /* AttrIndx into HMAIR/MAIR */
#define PTE_AP_RW        (1u << 6)    /* AP[1]: SBO in Hyp tables */
#define PTE_AP_RO        ((1u << 7) | (1u << 6))
#define PTE_SH_INNER     0x300u      /* SH[1:0] = 0b11, bits [9:8] */
#define PTE_AF           0x400u      /* bit 10 */
#define PTE_XN_HI        0x400000u   /* XN, bit 54 = bit 22 of the high word */

/* The assembler reads 0u as a radix prefix it does not know: 0x0u instead. */
#define MAIR_IDX_NORMAL  0x0u
#define MAIR_IDX_DEVICE  1u
#define MAIR_IDX_NC      2u
/* attr0 normal WB RW-allocate, attr1 device, attr2 normal non-cacheable */
#define HMAIR0_VALUE     0x004404FFu

#define PTE_LO_NORMAL    (PTE_ATTR(MAIR_IDX_NORMAL) | PTE_SH_INNER | PTE_AF)
#define PTE_LO_DEVICE    (PTE_ATTR(MAIR_IDX_DEVICE) | PTE_AF)

/* HTCR/TTBCR: T0SZ=0, walks inner/outer WB-WA, inner shareable (B4.1.76) */
#define HTCR_VALUE       0x80803500u
#define TTBCR_LPAE_VALUE 0x80003500u
/* HSCTLR RES1 bits plus CP15BEN (B4.1.67) */
#define HSCTLR_BASE      0x30C50838u
/* M, C, I; WXN comes once the final tables are in use (hyp_mmu_harden) */
#define HSCTLR_MMU_ON    (HSCTLR_BASE | 0x1u | 0x4u | 0x1000u)

#endif
