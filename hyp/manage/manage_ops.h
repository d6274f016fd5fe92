/* Inside the guest layer: the management calls' readers (manage_ops.c) */
#ifndef HYP_MANAGE_OPS_H
#define HYP_MANAGE_OPS_H

#include <partita/manage_abi.h>
#include "hyp/guest/guest.h"

/* The ABI's version, major << 16 | minor (partita/manage_abi.h, whose
 * constants the guests' C shares), as the unsigned word a call returns */
#define MANAGE_ABI_VERSION (((uint32_t)PARTITA_MANAGE_ABI_MAJOR << 16) | \
                            (uint32_t)PARTITA_MANAGE_ABI_MINOR)

void manage_fill_info(struct guest *g, struct partita_guest_info *o);
void manage_fill_stats(struct guest *g, struct partita_guest_stats *o);
/* PARTITA_MG_HEALTH: g's health records from seq on into buf; bytes */
int manage_health(struct guest *g, uint32_t seq, uint8_t *buf, uint32_t len);

#endif
