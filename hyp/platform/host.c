/*
 * The host description: filled once by CPU 0 at boot (boot/main.c), read
 * by every other layer afterwards.
 */
#include "hyp.h"

struct platform host;
const void *host_fdt;
uint64_t hyp_boot_ticks;
