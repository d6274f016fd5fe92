/*
 * What the PSCI logic (hyp/trap/psci.c) acts on for one vCPU, embedded in
 * struct vcpu and filled in by its guest (hyp/guest/psci_env.c).
 */
#ifndef HYP_ARCH_PSCI_ENV_H
#define HYP_ARCH_PSCI_ENV_H

#include <stdint.h>
#include <stdbool.h>

enum vcpu_power_state { PSCI_STATE_OFF, PSCI_STATE_ON_PENDING, PSCI_STATE_ON };

/*
 * The environment the PSCI logic acts on, so that the state machine runs in
 * the host unit tests with a fake guest.
 */
struct psci_env {
    unsigned int ncpus;                                 /* vCPUs of the guest */
    unsigned int self;                                  /* calling vCPU */
    int (*vcpu_of_mpidr)(void *ctx, uint32_t mpidr);    /* index or -1 */
    enum vcpu_power_state (*state)(void *ctx, unsigned int vcpu);
    bool (*entry_valid)(void *ctx, uint32_t entry);
    void (*power_on)(void *ctx, unsigned int vcpu, uint32_t entry, uint32_t context);
    void (*power_off_self)(void *ctx);
    void (*suspend_self)(void *ctx);                    /* standby until an interrupt */
    void (*system_off)(void *ctx);
    void (*system_reset)(void *ctx);
    /* counter n of the calling vCPU (see PARTITA_STAT_*); false if none */
    bool (*stat)(void *ctx, uint32_t n, uint64_t *value);
    int (*watchdog_feed)(void *ctx);
    int (*doorbell)(void *ctx, uint32_t channel);       /* 0 or PSCI_INVALID_PARAMETERS */
    /* answers in the queue of the caller's disk-th disk: how many are left
     * unread, or PSCI_INVALID_PARAMETERS */
    int (*blk_done)(void *ctx, uint32_t disk);
    /* PARTITA_HC_DEADLINE_MISS: 0, or -1 if nobody acts on it */
    int (*deadline_miss)(void *ctx, uint32_t tag);
    /* a management call, r[0..4] in, r[0..3] out; NULL: none (NOT_SUPPORTED) */
    void (*manage)(void *ctx, uint32_t *r);
    uint32_t guest_id;
    void *ctx;
};

#endif
