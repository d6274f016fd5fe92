/*
 * Disks at run time (docs/disks.md): each frontend's virtio block device
 * on its MMIO bus, over its RAM, raising its SPI; each disk's backend over
 * its driver partition's queue while that partition runs.  The devices
 * and the queue are hyp/vdev/virtio_blk.c's and blk_backend.c's.
 */
#ifndef HYP_DISK_H
#define HYP_DISK_H

#include <stdint.h>
#include "hyp/config/guest_config.h"

struct guest;

/* Boot: a device per frontend, a backend per disk, a line each */
void disks_init(const struct system_config *sys);
/* The guest starts: its devices reset on its MMIO bus; the queues of the
 * disks it drives set up afresh, what waited given to it (-1, said, if
 * the bus is full) */
int disk_guest_start(struct guest *g);
/* Every end of its life: its requests in flight dropped, the requests its
 * driver held kept for its next life; nothing more written to its RAM */
void disk_guest_stop(struct guest *g);
/* PARTITA_HC_BLK_DONE of g for the disk-th disk it drives */
int disk_done(struct guest *g, uint32_t disk);

#endif
