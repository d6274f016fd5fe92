/* The line a gdb session speaks on (gdb_port.h). */
#include <stddef.h>
#include "gdb_port.h"
#include "hyp/lib/byte_ring.h"

static struct gdb_port_state {
    const struct console_ops *ops;      /* NULL: the console */
    const char *path;
    bool polled;
    struct byte_ring rx;                /* filled by the UART's interrupt */
} port = { .rx = BYTE_RING_INIT };

void gdb_port_set(const struct console_ops *ops, const char *path, bool polled)
{
    port.ops = ops;
    port.path = path;
    port.polled = polled;
}

const char *gdb_port_uart(void)
{
    return port.ops ? port.path : NULL;
}

void gdb_port_write(const char *b, unsigned int n)
{
    if (!port.ops) {
        console_write_owner(b, n);
        return;
    }
    for (unsigned int i = 0u; i < n; i++) {
        port.ops->putc(port.ops->ctx, b[i]);
    }
}

void gdb_port_rx(char c)
{
    byte_ring_push(&port.rx, c);
}

bool gdb_port_pending(void)
{
    if (!port.ops) {
        return false;
    }
    if (port.polled) {      /* no interrupt: what the UART holds now */
        int in;
        while ((in = port.ops->getc(port.ops->ctx)) >= 0) {
            byte_ring_push(&port.rx, (char)in);
        }
    }
    return byte_ring_pending(&port.rx);
}

int gdb_port_pop(void)
{
    return gdb_port_pending() ? byte_ring_pop(&port.rx) : -1;
}
