/*
 * The control partition's management calls (include/partita/manage_abi.h):
 * executed on the boot CPU, which owns every guest's lifecycle, whichever
 * CPU the call came from.
 */
#ifndef HYP_MANAGE_H
#define HYP_MANAGE_H

#include <stdint.h>
#include "hyp/guest/guest.h"

/*
 * A management call of vCPU v: r[0] the ID, r[1..4] its arguments; results
 * in r[0..3].  buf/len: the buffer, already checked to be the caller's
 * (its RAM, or the management page's data page).
 */
void manage_call(struct vcpu *v, uint32_t *r, uint8_t *buf, uint32_t len);
/* the hypercall: the buffer r2/r3 checked against the caller's RAM first */
void manage_hypercall(struct vcpu *v, uint32_t *r);
/* boot CPU: a call waiting from another CPU */
void manage_service(void);
/* a piece of a new image for stopped guest g (image.c) */
int image_load_piece(struct guest *g, const uint8_t *data, uint32_t len, uint32_t off);
/* the image a guest boots: its size and CRC-32, loaded or configured
 * (image.c) */
uint32_t guest_image_crc(struct guest *g);
/* at a start: a loaded image's CRC-32 taken again from its store, the
 * bytes about to boot, said if they changed since the load */
void guest_image_verify(struct guest *g);
/* at boot: the management pages and what the guests they act on keep */
void manage_init(const struct system_config *sys);
/* the management page of a control guest (manage_page.c) */
int manage_page_init(struct guest *g);
int manage_page_start(struct guest *g);

#endif
