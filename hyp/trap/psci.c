/*
 * PSCI 1.0 and SMCCC call handling for guests: a pure state machine over a
 * psci_env, used by the trap handler and by the host unit tests.
 */
#include <stddef.h>
#include "psci.h"

static int32_t psci_features(uint32_t fn)
{
    switch (fn) {
    case PSCI_VERSION: case PSCI_CPU_SUSPEND: case PSCI_CPU_OFF: case PSCI_CPU_ON:
    case PSCI_AFFINITY_INFO: case PSCI_MIGRATE_INFO_TYPE: case PSCI_SYSTEM_OFF:
    case PSCI_SYSTEM_RESET: case PSCI_FEATURES: case SMCCC_VERSION:
        return PSCI_SUCCESS;    /* CPU_SUSPEND: original power-state format */
    default:
        return PSCI_NOT_SUPPORTED;
    }
}

static int32_t psci_cpu_on(const struct psci_env *e, uint32_t mpidr, uint32_t entry,
                           uint32_t context)
{
    int t = e->vcpu_of_mpidr(e->ctx, mpidr);
    if (t < 0) {
        return PSCI_INVALID_PARAMETERS;
    }
    switch (e->state(e->ctx, (unsigned int)t)) {
    case PSCI_STATE_ON: return PSCI_ALREADY_ON;
    case PSCI_STATE_ON_PENDING: return PSCI_ON_PENDING;
    case PSCI_STATE_OFF: break;
    default:
        break;
    }
    if (!e->entry_valid(e->ctx, entry)) {
        return PSCI_INVALID_ADDRESS;
    }
    e->power_on(e->ctx, (unsigned int)t, entry, context);
    return PSCI_SUCCESS;
}

static int32_t psci_affinity_info(const struct psci_env *e, uint32_t mpidr, uint32_t level)
{
    /* only level 0 exists: one vCPU per affinity-0 value (DEN 0022D 5.7) */
    if (level != 0u) {
        return PSCI_INVALID_PARAMETERS;
    }
    int t = e->vcpu_of_mpidr(e->ctx, mpidr);
    if (t < 0) {
        return PSCI_INVALID_PARAMETERS;
    }
    switch (e->state(e->ctx, (unsigned int)t)) {
    case PSCI_STATE_ON: return 0;
    case PSCI_STATE_OFF: return 1;
    default: return 2;
    }
}

bool psci_partita_call(const struct psci_env *e, uint32_t r[4])
{
    /* the version call is the null hypercall guests time: answer it first */
    if (r[0] == PARTITA_HC_VERSION) {
        r[0] = ((unsigned int)PARTITA_VERSION_MAJOR << 16) | (unsigned int)PARTITA_VERSION_MINOR;
        return true;
    }
    switch (r[0]) {
    case PARTITA_HC_GUEST_INFO:
        r[0] = e->guest_id;
        r[1] = e->ncpus;
        r[2] = e->self;
        return true;
    case PARTITA_HC_STATS: {
        uint64_t v;
        if (!e->stat || !e->stat(e->ctx, r[1], &v)) {
            return false;
        }
        r[0] = (uint32_t)v;
        r[1] = (uint32_t)(v >> 32);
        return true;
    }
    case PARTITA_HC_WATCHDOG:
        r[0] = (e->watchdog_feed != NULL) ? (uint32_t)e->watchdog_feed(e->ctx) : 0xffffffffu;
        return true;
    case PARTITA_HC_DOORBELL:
        r[0] = (e->doorbell != NULL) ? (uint32_t)e->doorbell(e->ctx, r[1])
                                   : (uint32_t)PSCI_INVALID_PARAMETERS;
        return true;
    case PARTITA_HC_BLK_DONE:
        r[0] = (e->blk_done != NULL) ? (uint32_t)e->blk_done(e->ctx, r[1])
                                   : (uint32_t)PSCI_INVALID_PARAMETERS;
        return true;
    case PARTITA_HC_DEADLINE_MISS:
        r[0] = (e->deadline_miss != NULL) ? (uint32_t)e->deadline_miss(e->ctx, r[1]) : 0xffffffffu;
        return true;
    case PARTITA_HC_CALL_COUNT:
        r[0] = (PARTITA_HC_LAST & 0xffu) + 1u;
        return true;
    case PARTITA_HC_CALL_UID:
        /* UUID 5061726b-6974-6100-8000-000000000001 ("Partita") */
        r[0] = 0x5061726bu; r[1] = 0x69746100u; r[2] = 0x80000000u; r[3] = 0x00000001u;
        return true;
    case PARTITA_HC_REVISION:
        r[0] = PARTITA_VERSION_MAJOR;
        r[1] = PARTITA_VERSION_MINOR;
        return true;
    default:
        if ((((r[0] < PARTITA_HC_MANAGE_FIRST) || (r[0] > PARTITA_HC_MANAGE_LAST)) &&
             ((r[0] < PARTITA_HC_MANAGE2_FIRST) || (r[0] > PARTITA_HC_MANAGE2_LAST)) &&
             (r[0] != PARTITA_HC_MANAGE_HEALTH)) || !e->manage) {
            return false;
        }
        e->manage(e->ctx, r);
        return true;
    }
}

bool psci_handle(const struct psci_env *e, uint32_t r[4])
{
    uint32_t fn = r[0];
    int32_t ret;
    switch (fn) {
    case PSCI_VERSION:
        ret = 0x00010000;   /* 1.0 */
        break;
    case PSCI_CPU_SUSPEND:
        /* standby and power-down both return here once an interrupt is
         * pending; a power-down state may return like standby (5.4.2) */
        e->suspend_self(e->ctx);
        ret = PSCI_SUCCESS;
        break;
    case PSCI_CPU_OFF:
        e->power_off_self(e->ctx);
        return false;
    case PSCI_CPU_ON:
        ret = psci_cpu_on(e, r[1], r[2], r[3]);
        break;
    case PSCI_AFFINITY_INFO:
        ret = psci_affinity_info(e, r[1], r[2]);
        break;
    case PSCI_MIGRATE_INFO_TYPE:
        ret = 2;            /* no Trusted OS: nothing to migrate */
        break;
    case PSCI_SYSTEM_OFF:
        e->system_off(e->ctx);
        return false;
    case PSCI_SYSTEM_RESET:
        e->system_reset(e->ctx);
        return false;
    case PSCI_FEATURES:
        ret = psci_features(r[1]);
        break;
    case SMCCC_VERSION:
        ret = 0x10001;      /* SMCCC 1.1 */
        break;
    default:
        if (psci_partita_call(e, r)) {
            return true;
        }
        ret = PSCI_NOT_SUPPORTED;   /* also MIGRATE, SMC64 IDs, unknown calls */
        break;
    }
    r[0] = (uint32_t)ret;
    return true;
}
