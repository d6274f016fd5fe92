/*
 * The calls a guest makes with HVC (or SMC): PSCI 1.0 (ARM DEN 0022D),
 * SMCCC (ARM DEN 0028), and Partita's own in the vendor-specific
 * hypervisor service range - their IDs, arguments and return codes.  An
 * ABI: the hypervisor (hyp/trap/psci.c), the test guests and the Linux
 * tools all take them from here.
 */
#ifndef PARTITA_HVC_H
#define PARTITA_HVC_H

#define PSCI_VERSION            0x84000000u
#define PSCI_CPU_SUSPEND        0x84000001u
#define PSCI_CPU_OFF            0x84000002u
#define PSCI_CPU_ON             0x84000003u
#define PSCI_AFFINITY_INFO      0x84000004u
#define PSCI_MIGRATE            0x84000005u
#define PSCI_MIGRATE_INFO_TYPE  0x84000006u
#define PSCI_MIGRATE_INFO_UP_CPU 0x84000007u
#define PSCI_SYSTEM_OFF         0x84000008u
#define PSCI_SYSTEM_RESET       0x84000009u
#define PSCI_FEATURES           0x8400000au
#define PSCI_64BIT              0x40000000u  /* SMC64 variants: not for AArch32 */

#define PSCI_SUCCESS             0
#define PSCI_NOT_SUPPORTED      -1
#define PSCI_INVALID_PARAMETERS -2
#define PSCI_DENIED             -3
#define PSCI_ALREADY_ON         -4
#define PSCI_ON_PENDING         -5
#define PSCI_INTERNAL_FAILURE   -6
#define PSCI_NOT_PRESENT        -7
#define PSCI_DISABLED           -8
#define PSCI_INVALID_ADDRESS    -9

/* a function ID's fields (SMCCC 2.5): fast call, SMC64, owning entity, number */
#define SMCCC_FAST              0x80000000u
#define SMCCC_OEN_SMC64(fn)     (((fn) >> 24) & 0x7f)   /* OEN with bit 30 above it */
#define SMCCC_NUM(fn)           ((fn) & 0xffffu)
#define SMCCC_OEN_ARCH          0       /* Arm architecture calls */
#define SMCCC_OEN_STD           4       /* standard secure services: PSCI */
#define SMCCC_OEN_HYP           6       /* standard hypervisor services: Partita's */
#define SMCCC_NOT_SUPPORTED     0xffffffffu     /* -1 in r0 */

#define SMCCC_VERSION           0x80000000u
#define SMCCC_ARCH_FEATURES     0x80000001u

/* Partita's calls: SMC32 fast calls, owning entity 6 (hypervisor service) */
#define PARTITA_HC_VERSION      0x86000000u  /* r0 = major << 16 | minor */
#define PARTITA_HC_GUEST_INFO   0x86000001u  /* r0 = guest id, r1 = vCPUs, r2 = this vCPU */
#define PARTITA_HC_STATS        0x86000002u  /* r1 = counter: r0:r1 = its 64-bit value */
#define PARTITA_HC_WATCHDOG     0x86000003u  /* feed the watchdog: r0 = 0, or -1 if none */
#define PARTITA_HC_DOORBELL     0x86000004u  /* r1 = channel: ring its other members; r0 = 0 or -2 */
/* 0x86000005-0x8600000f: the management calls (include/partita/manage_abi.h) */
#define PARTITA_HC_MANAGE_FIRST 0x86000005u
#define PARTITA_HC_MANAGE_LAST  0x8600000fu
/* r1 = a disk the caller drives: take its answers (include/partita/blk_queue.h) */
#define PARTITA_HC_BLK_DONE     0x86000010u
/* r1 = a number of the caller's choosing (which deadline): report a
 * deadline it missed to the health monitor (docs/temporal-isolation.md,
 * "Health monitor"); r0 = 0, or -1 if its health table has no
 * deadline-miss entry (the miss is counted all the same) */
#define PARTITA_HC_DEADLINE_MISS 0x86000011u
/* the management call of the health log (PARTITA_MG_HEALTH), past the
 * management range, which is full */
#define PARTITA_HC_MANAGE_HEALTH 0x86000012u
/* 0x86000013-0x86000014: more management calls (the cyclic schedules) */
#define PARTITA_HC_MANAGE2_FIRST 0x86000013u
#define PARTITA_HC_MANAGE2_LAST  0x86000014u
#define PARTITA_HC_LAST         0x86000014u  /* the highest call number but the 0xff00 ones */
#define PARTITA_HC_CALL_COUNT   0x8600ff00u
#define PARTITA_HC_CALL_UID     0x8600ff01u
#define PARTITA_HC_REVISION     0x8600ff03u
#define PARTITA_VERSION_MAJOR   0
#define PARTITA_VERSION_MINOR   1

/* PARTITA_HC_STATS counters */
#define PARTITA_STAT_EXITS      0   /* exits of this vCPU */
#define PARTITA_STAT_IDLE       1   /* counter ticks its physical CPU slept */
#define PARTITA_STAT_TRAP0      16  /* where PARTITA_STAT_TRAP(n) counts from */
#define PARTITA_STAT_TRAP(n)    (PARTITA_STAT_TRAP0 + (n))  /* traps by cause (enum trap_cause) */
#define PARTITA_STAT_INJECTED   32  /* virtual interrupts put in list registers */
#define PARTITA_STAT_MAINT      33  /* maintenance interrupts */

#endif
