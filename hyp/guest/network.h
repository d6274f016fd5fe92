/*
 * Networks at run time (docs/networks.md): each member's virtio-mmio
 * network device on its MMIO bus, over its RAM, raising its SPI; the
 * switching itself is hyp/vdev/virtio_net.c's.
 */
#ifndef HYP_NETWORK_H
#define HYP_NETWORK_H

#include "hyp/config/guest_config.h"

struct guest;

/* Boot: a port per member, a switch per network, a line each */
void networks_init(const struct system_config *sys);
/* The guest starts: its devices reset, over its RAM, on its MMIO bus (-1,
 * said, if the bus is full) */
int network_guest_start(struct guest *g);
/* The guest stops (or is about to be reloaded): nothing more is written
 * into its RAM */
void network_guest_stop(struct guest *g);
/* The guest's devices for `stats`: frames sent, received, dropped, errors */
void network_print_stats(const struct guest *g);

#endif
