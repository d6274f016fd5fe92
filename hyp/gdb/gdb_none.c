/*
 * The debugger left out (`make GDB=n`): what the monitor and the boot code
 * ask of it, answered as by a stub that never has a session.  Linked
 * instead of the rest of this folder and hyp/arch/arm_next.c (Makefile).
 */
#include "gdb_stub.h"
#include "gdb_port.h"

bool gdb_attach(struct guest *g)
{
    pr_info("gdb: not built into this image (make GDB=n)\n");
    return false;
}

bool gdb_active(const struct guest *g)
{
    return false;
}

bool gdb_input(char c)
{
    return false;
}

void gdb_poll(void)
{
}

bool gdb_trailing_ack(char c)
{
    return false;
}

/* never called: no vCPU traps its debug events without a session */
bool gdb_debug_hit(struct vcpu *v, uint32_t hsr, uint32_t far, bool data)
{
    return false;
}

/* a debug UART in the host DT is left alone: nothing would read it */
void gdb_port_set(const struct console_ops *ops, const char *path, bool polled)
{
    pr_info("debug UART %s: unused, gdb is not built into this image\n", path);
}

const char *gdb_port_uart(void)
{
    return NULL;
}

void gdb_port_rx(char c)
{
}

int gdb_port_pop(void)
{
    return -1;
}

bool gdb_port_pending(void)
{
    return false;
}
