/* The hypervisor's console: polled output, interrupt-driven input. */
#ifndef HYP_CONSOLE_H
#define HYP_CONSOLE_H

#include <stdarg.h>
#include <stdint.h>
#include <stdbool.h>

struct console_ops {
    void (*putc)(void *ctx, char c);
    int (*getc)(void *ctx);          /* -1 if nothing waits */
    void *ctx;
};

void console_attach(const struct console_ops *ops);
/* printf to the console; one call's output is never split by another CPU */
void console_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void console_vprintf(const char *fmt, va_list ap);
void console_write(const char *s, unsigned int len);
/* bytes as they are: a focused guest's output (its own CR LF) */
void console_write_raw(const char *s, unsigned int len);
/*
 * A debugger owns the line (gdb's remote protocol, hyp/gdb): while
 * held, everything else written is kept back (up to CONSOLE_HOLD_MAX
 * characters, the rest counted) and printed when the hold ends;
 * console_write_owner writes the debugger's own bytes, raw, past it.
 */
#define CONSOLE_HOLD_MAX 16384u
void console_hold(bool on);
void console_write_owner(const char *s, unsigned int len);
/* a fatal report must be seen: the hold ends at once */
void console_hold_break(void);
/* receive path: the UART interrupt feeds, the monitor reads */
void console_rx_push(char c);
int console_rx_pop(void);
bool console_rx_pending(void);
/* another input the boot CPU's housekeeping reads (the debug UART,
 * hyp/gdb/gdb_port.c): console_rx_pending asks it too, so that a
 * vCPU on the boot CPU makes way for it as for console input */
void console_rx_also(bool (*pending)(void));
/* The console escape's key (hyp/console/console_escape.h): Ctrl-A three
 * times in a row, which the monitor and the gdb stub both watch for */
#define ESC_CHAR   0x01     /* Ctrl-A */
#define ESC_COUNT  3
/* no console interrupt: console_rx_pop polls the UART itself */
void console_set_polled(bool polled);
bool console_is_polled(void);

#define pr_info(...)  console_printf(__VA_ARGS__)
#define pr_err(...)   console_printf("error: " __VA_ARGS__)
#define pr_warn(...)  console_printf("warning: " __VA_ARGS__)

#endif
