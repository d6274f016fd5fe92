/*
 * What a guest may have beyond its vCPUs, RAM, distributor and UART: one
 * table of rooms (channels, the management page, networks, the virtio
 * console), each saying what it does at boot, at a start, at every end of
 * a guest's life and in the boot CPU's pass.  The table is made where the
 * layers are connected (boot/rooms.c), so that the lifecycle here calls
 * rooms of later layers (hyp/manage) without naming them.
 */
#ifndef HYP_GUEST_ROOMS_H
#define HYP_GUEST_ROOMS_H

#include <stdint.h>
#include "hyp/config/guest_config.h"

struct guest;
struct vcpu;

struct guest_room {
    const char *name;
    /* boot, after the guests are set up, in table order */
    void (*init)(const struct system_config *sys);
    /* at a start, before its images are loaded */
    void (*load)(struct guest *g);
    /* at a start, in table order: its devices on g's MMIO bus (the order
     * the bus searches them); -1 (said) fails the start */
    int (*attach)(struct guest *g);
    /* at every end of g's life: nothing more written to its RAM */
    void (*detach)(struct guest *g);
    /* the boot CPU's pass, before the guests' lifecycle */
    void (*service)(void);
    /* a management call of v (PARTITA_HC_MANAGE_FIRST..): the PSCI
     * environment's, if a room answers them */
    void (*manage)(struct vcpu *v, uint32_t *r);
};

/* boot, before guests_init: the rooms of every guest, in order */
void guest_rooms_set(const struct guest_room *rooms, unsigned int n);
/* the room answering management calls, or NULL (psci_env.c) */
extern void (*guest_manage_call)(struct vcpu *v, uint32_t *r);

#endif
