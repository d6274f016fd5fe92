/*
 * What a guest may have: the one table of rooms its lifecycle goes
 * through (hyp/guest/guest_rooms.h).  The order is the MMIO bus's search
 * order after the distributor and the UART, and the order of the rooms'
 * set-up at boot: the channels first (the management page and the
 * networks look at them), then the management page, the networks and the
 * virtio console.
 */
#include "rooms.h"
#include "hyp/guest/guest.h"
#include "hyp/guest/guest_parts.h"
#include "hyp/guest/guest_rooms.h"
#include "hyp/guest/channel.h"
#include "hyp/guest/network.h"
#include "hyp/manage/manage.h"

static const struct guest_room rooms[] = {
    { .name = "channels", .init = channels_init, .attach = channel_guest_start },
    { .name = "manage", .init = manage_init, .load = guest_image_verify,
      .attach = manage_page_start, .service = manage_service, .manage = manage_hypercall },
    { .name = "networks", .init = networks_init, .attach = network_guest_start,
      .detach = network_guest_stop },
    { .name = "virtio console", .attach = guest_vcon_start, .detach = guest_vcon_stop },
};

void rooms_connect(void)
{
    guest_rooms_set(rooms, sizeof(rooms) / sizeof(rooms[0]));
}
