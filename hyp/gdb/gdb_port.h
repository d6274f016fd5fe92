/*
 * The line a gdb session speaks on: the console by default, or
 * the debugger's own UART when the host DT names one
 * (/chosen/partita,debug-uart, hyp/platform/platform_uart.c).  On its own
 * UART a session leaves the console to the monitor and the guests: nothing
 * is held back while gdb is attached.
 */
#ifndef HYP_CONSOLE_GDB_PORT_H
#define HYP_CONSOLE_GDB_PORT_H

#include <stdbool.h>
#include "hyp/lib/console.h"

/* the debug UART (boot/main.c, once): its driver's putc/getc and DT path;
 * polled: it has no interrupt, gdb_port_pop reads it itself */
void gdb_port_set(const struct console_ops *ops, const char *path, bool polled);
/* the debug UART's path, or NULL: sessions are on the console */
const char *gdb_port_uart(void);
/* a session's bytes, raw: past the console's hold, or to the debug UART */
void gdb_port_write(const char *b, unsigned int n);
/* the debug UART's interrupt: a character it received */
void gdb_port_rx(char c);
/* the next character the debug UART received, or -1 */
int gdb_port_pop(void);
/* has it received any (polled: reading it first)?  console_rx_also's */
bool gdb_port_pending(void);

#endif
