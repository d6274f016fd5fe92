/* Formatted output without newlib's stdio (format.c says why) */
#ifndef HYP_FORMAT_H
#define HYP_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

int format_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int format_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
