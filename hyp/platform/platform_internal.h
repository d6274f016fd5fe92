/*
 * What the platform probe's files share (platform.c, platform_uart.c):
 * their error convention and two small DT helpers.  Not for other layers.
 */
#ifndef HYP_PLATFORM_INTERNAL_H
#define HYP_PLATFORM_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "platform.h"
#include "hyp/dt/dt_index.h"

/* a probe part's failure: a one-line reason in err, and -1 */
#define ERR(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static inline void plat_copy_str(char *dst, size_t n, const char *src)
{
    if (!src) {
        src = "";
    }
    (void)strncpy(dst, src, n - 1u);
    dst[n - 1u] = '\0';
}

/* a node's status is absent, "okay" or "ok" (DT specification 2.3.4) */
static inline bool plat_node_enabled(const void *fdt, int node)
{
    const char *st = dt_getprop(fdt, node, "status", NULL);
    return !st || strcmp(st, "okay") == 0 || strcmp(st, "ok") == 0;
}

/* the console UART; the debugger's, if /chosen names one (platform_uart.c) */
int plat_probe_uart(const void *fdt, struct platform *p, char *err, size_t errlen);
int plat_probe_debug_uart(const void *fdt, struct platform *p, char *err, size_t errlen);

#endif
