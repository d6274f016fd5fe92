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
#include "hyp/vdev/blk_backend.h"

struct guest;

/* The counters of one of a guest's disks: as a frontend (fe) or as its
 * driver partition (be, and the requests waiting for a slot) */
struct disk_counts {
    const char *name;
    bool driver;
    struct vblk_stats fe;
    struct blk_backend_stats be;
    unsigned int waiting;
};
#define DISK_COUNTS_MAX (GUEST_MAX_DISKS + DISK_MAX)

/* Boot: a device per frontend, a backend per disk, a line each */
void disks_init(const struct system_config *sys);
/* The guest starts: its devices reset on its MMIO bus; the queues of the
 * disks it drives set up afresh, what waited given to it (-1, said, if
 * the bus is full) */
int disk_guest_start(struct guest *g);
/* Every end of its life: its requests in flight dropped, the requests its
 * driver held kept for its next life; nothing more written to its RAM */
void disk_guest_stop(struct guest *g);
/* Its disks' counters, frontends first, then those it drives: how many */
unsigned int disk_guest_counts(const struct guest *g, struct disk_counts *out);
/* Its disks for `stats`: a line each */
void disk_print_stats(const struct guest *g);
/* PARTITA_HC_BLK_DONE of g for the disk-th disk it drives */
int disk_done(struct guest *g, uint32_t disk);

#endif
