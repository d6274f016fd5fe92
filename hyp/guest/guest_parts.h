/* Inside the guest layer: what guest.c's lifecycle uses of its parts. */
#ifndef HYP_GUEST_PARTS_H
#define HYP_GUEST_PARTS_H

#include <stdint.h>
#include <stdbool.h>
#include "guest.h"

/* loader.c: images, DT and Stage-2 at a start */
int guest_load(struct guest *g, uint32_t *entry, uint32_t *dtb_ipa);
int guest_build_s2(struct guest *g);
/* guest_console.c: the emulated UART's ends */
void guest_uart_tx(void *ctx, char c);
void guest_uart_irq(void *ctx, bool level);
bool guest_uart_mmio(void *dev, struct mmio_access *a, uint32_t offset);
/* guest_console.c: the virtio console (hvc0), if configured, at a start
 * (reset, on the MMIO bus) and a stop (nothing more written) */
int guest_vcon_start(struct guest *g);
void guest_vcon_stop(struct guest *g);
/* guest.c: no vCPU of g loaded on a CPU; ask them all to look at req */
bool guest_vcpus_idle(struct guest *g);
void guest_kick_all(struct guest *g, uint32_t req);
/* watchdog.c */
uint64_t ms_to_ticks(uint32_t ms);
/* boot CPU: the hypervisor timer at the earliest armed deadline */
void watchdog_arm(void);
/* health.c (health.h): a start of g, its periods begin again; any CPU: g
 * was marked crashed, its crash entry's action follows; boot CPU: g's
 * watchdog expired, its watchdog entry's action; the boot CPU's pass:
 * the events noted elsewhere, the periods that ended */
void health_guest_start(struct guest *g);
void health_crash(struct guest *g);
void health_watchdog(struct guest *g);
void health_service(void);

#endif
