/*
 * The control partition left out of the image (docs/building.md,
 * "Rooms"): linked instead of manage.c, manage_ops.c and manage_page.c.
 * No guest has the control property (hyp/config/config_control_none.c
 * refuses it), so every management call is answered as manage.c answers
 * a guest without it.
 */
#include <partita/manage_abi.h>
#include "hyp/guest/guest.h"
#include "manage.h"

void manage_init(const struct system_config *sys)
{
}

int manage_page_start(struct guest *g)
{
    return 0;
}

void manage_service(void)
{
}

void manage_hypercall(struct vcpu *v, uint32_t *r)
{
    (void)__atomic_add_fetch(&guest_of(v)->manage_denied, 1, __ATOMIC_RELAXED);
    r[0] = (uint32_t)PARTITA_E_DENIED;
}
