/*
 * A guest as the world switch, the traps and the scheduler see it: its
 * configuration and state, Stage-2, vCPUs, distributor and MMIO bus.
 * struct guest (hyp/guest/guest.h) begins with it and adds what only the
 * guest layer and the rooms after it use; a vCPU points at it (v->vm).
 */
#ifndef HYP_ARCH_VM_H
#define HYP_ARCH_VM_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/config/guest_config.h"
#include "hyp/vdev/mmio.h"
#include "hyp/vdev/vuart.h"
#include "hyp/vdev/virtio_console.h"
#include "mm/stage2.h"
#include "vgic/vgic.h"
#include "vcpu.h"

enum guest_state { GUEST_STOPPED, GUEST_RUNNING, GUEST_HALTED, GUEST_CRASHED };

struct vm {
    /* first: the MMIO path reaches its regions at the guest's address */
    struct mmio_bus mmio;
    const struct guest_config *cfg;    /* the configuration it boots with */
    const struct guest_config *configured; /* the system configuration's */
    unsigned int id;
    uint8_t vmid;
    volatile enum guest_state state;
    volatile bool restart_pending;     /* SYSTEM_RESET or on-crash restart */
    /* the boot CPU waits for the vCPUs to leave their CPUs (a restart, the
     * devices' detach): a CPU that let one go after a look wakes it
     * (hyp/sched/sched_internal.h vcpu_claim) */
    bool leave_watch;
    struct stage2 s2;
    struct vcpu vcpu[GUEST_MAX_VCPUS];
    /* the emulated devices every guest has beside the distributor, on its
     * bus: the UART and (configured or not) the virtio console */
    struct vuart uart;
    struct vcon vcon;
    struct vgic vgic;
    uint32_t aborts;                   /* aborts injected (bad accesses) */
    uint64_t cntvoff;                  /* CNTVOFF: its virtual time's start */
};

#endif
