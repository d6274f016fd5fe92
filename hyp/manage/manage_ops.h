/* Inside the guest layer: the management calls' readers (manage_ops.c) */
#ifndef HYP_MANAGE_OPS_H
#define HYP_MANAGE_OPS_H

#include <partita/manage_abi.h>
#include "hyp/guest/guest.h"

void manage_fill_info(struct guest *g, struct partita_guest_info *o);
void manage_fill_stats(struct guest *g, struct partita_guest_stats *o);

#endif
