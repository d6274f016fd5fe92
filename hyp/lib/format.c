/*
 * vsnprintf and snprintf for the hypervisor, in place of newlib's: the C99
 * conversions Partita's messages use - d i u o x X c s p %, the flags
 * - 0 + space #, a width and a precision (either may be *), the lengths
 * hh h l ll j z t - and nothing else: no floating point, no %n, no locale,
 * no heap; widths and precisions stop at 4096.  An unknown conversion is
 * copied out as it stands.
 *
 * newlib's took about 1,000 instructions a boot line and linked malloc and
 * the floating-point conversions into a hypervisor that has no heap; this
 * one costs a few instructions a character.  tests/unit/lib/test_format.c
 * checks it against the host C library's snprintf.  The hypervisor links
 * it under the C names vsnprintf and snprintf.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "format.h"

struct out {
    char *buf;
    size_t lim;         /* characters that fit before the terminating NUL */
    size_t n;           /* characters produced so far, stored or not */
};

static inline void put(struct out *o, char c)
{
    if (o->n < o->lim) {
        o->buf[o->n] = c;
    }
    o->n++;
}

static void pad(struct out *o, char c, int count)
{
    while (count-- > 0) {
        put(o, c);
    }
}

/* the flags of a conversion, bits of struct spec's flags */
#define F_MINUS  1u
#define F_ZERO   2u
#define F_PLUS   4u
#define F_SPACE  8u
#define F_HASH   16u
#define F_UPPER  32u
#define F_SIGNED 64u
#define F_PTR    128u

struct spec {
    unsigned int flags;
    int width;          /* 0: none */
    int prec;           /* -1: none */
};

/* The digits of v in base (8, 10, 16), last digit first, into d; returns
 * how many.  32-bit values divide with UDIV; only wider ones need libgcc. */
static int digits(char *d, unsigned long long v, unsigned int base, bool upper)
{
    const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    int n = 0;
    while (v > 0xffffffffULL) {
        d[n++] = set[v % base];
        v /= base;
    }
    for (uint32_t w = (uint32_t)v; w; w /= base) {
        d[n++] = set[w % base];
    }
    return n;
}

static void integer(struct out *o, const struct spec *s, unsigned long long v, bool neg,
                    unsigned int base)
{
    char d[24];
    int nd = digits(d, v, base, (s->flags & F_UPPER) != 0u);
    int prec = s->prec;
    const char *prefix = "";
    if (neg) {
        prefix = "-";
    } else if ((s->flags & (F_SIGNED | F_PLUS)) == (F_SIGNED | F_PLUS)) {
        prefix = "+";
    } else if ((s->flags & (F_SIGNED | F_SPACE)) == (F_SIGNED | F_SPACE)) {
        prefix = " ";
    } else if ((base == 16u) &&
               ((((s->flags & F_HASH) != 0u) && (v != 0u)) || ((s->flags & F_PTR) != 0u))) {
        prefix = ((s->flags & F_UPPER) != 0u) ? "0X" : "0x";
    } else {
        /* otherwise nothing to do */
    }
    /* "%#o": the first digit is a 0, raising the precision if need be */
    if ((base == 8u) && ((s->flags & F_HASH) != 0u) && (prec <= nd)) {
        prec = nd + 1;
    }
    if (prec < 0) {
        prec = 1;       /* the default: one digit, even for 0 */
    }
    int zeros = prec > nd ? prec - nd : 0;
    int plen = (int)__builtin_strlen(prefix);
    int len = plen + zeros + nd;
    int fill = s->width > len ? s->width - len : 0;
    /* the 0 flag pads with zeros after the sign, unless - or a precision */
    if (((s->flags & F_ZERO) != 0u) && ((s->flags & F_MINUS) == 0u) && (s->prec < 0)) {
        zeros += fill;
        fill = 0;
    }
    if ((s->flags & F_MINUS) == 0u) {
        pad(o, ' ', fill);
    }
    while ((*prefix) != 0) {
        put(o, *prefix++);
    }
    pad(o, '0', zeros);
    while (nd != 0) {
        put(o, d[--nd]);
    }
    if ((s->flags & F_MINUS) != 0u) {
        pad(o, ' ', fill);
    }
}

static void string(struct out *o, const struct spec *s, const char *str)
{
    if (!str) {
        str = "(null)";
    }
    int len = 0;
    while ((s->prec < 0 || len < s->prec) && str[len]) {
        len++;
    }
    int fill = s->width > len ? s->width - len : 0;
    if ((s->flags & F_MINUS) == 0u) {
        pad(o, ' ', fill);
    }
    for (int i = 0; i < len; i++) {
        put(o, str[i]);
    }
    if ((s->flags & F_MINUS) != 0u) {
        pad(o, ' ', fill);
    }
}

/* Widths and precisions are capped: no message is longer, and a bad
 * format cannot make the hypervisor count to 2^31 */
#define MAX_WIDTH 4096

/* A decimal number at *f, moved past, at most MAX_WIDTH */
static int number(const char **f)
{
    int v = 0;
    while (**f >= '0' && **f <= '9') {
        v = v * 10 + (**f - '0');
        if (v > MAX_WIDTH) {
            v = MAX_WIDTH;
        }
        (*f)++;
    }
    return v;
}

/* Flags, width, precision and length of the conversion at *f (just past
 * its '%'), moved past them; returns the length: -2 hh, -1 h, 0 int,
 * 1 long, 2 long long */
static int parse_spec(const char **fp, struct spec *s, va_list *ap)
{
    const char *f = *fp;
    for (;;) {
        if (*f == '-') {
            s->flags |= F_MINUS;
        } else if (*f == '0') {
            s->flags |= F_ZERO;
        } else if (*f == '+') {
            s->flags |= F_PLUS;
        } else if (*f == ' ') {
            s->flags |= F_SPACE;
        } else if (*f == '#') {
            s->flags |= F_HASH;
        } else {
            break;
        }
        f++;
    }
    if (*f == '*') {
        f++;
        s->width = va_arg(*ap, int);
        if (s->width < 0) {     /* a negative width is the - flag */
            s->flags |= F_MINUS;
            s->width = s->width == INT32_MIN ? MAX_WIDTH : -s->width;
        }
        if (s->width > MAX_WIDTH) {
            s->width = MAX_WIDTH;
        }
    } else {
        s->width = number(&f);
    }
    if (*f == '.') {
        f++;
        if (*f == '*') {
            f++;
            s->prec = va_arg(*ap, int);
            if (s->prec < 0) {
                s->prec = -1;   /* as if none were given */
            } else if (s->prec > MAX_WIDTH) {
                s->prec = MAX_WIDTH;
            } else {
                /* otherwise nothing to do */
            }
        } else {
            s->prec = number(&f);
        }
    }
    int lng = 0;
    bool more = true;
    while (more) {
        switch (*f) {
        case 'h': lng--; f++; break;
        case 'l': lng++; f++; break;
        case 'j': lng = 2; f++; break;
        case 'z': case 't': lng = 1; f++; break;    /* 32-bit size_t, ptrdiff_t */
        default: more = false; break;
        }
    }
    *fp = f;
    return lng;
}

/* The next integer argument of length lng, signed or not */
static long long signed_arg(int lng, va_list *ap)
{
    long long v = lng >= 2 ? va_arg(*ap, long long)
                : lng == 1 ? va_arg(*ap, long) : va_arg(*ap, int);
    return lng == -1 ? (short)v : lng <= -2 ? (signed char)v : v;
}

static unsigned long long unsigned_arg(int lng, va_list *ap)
{
    unsigned long long v = lng >= 2 ? va_arg(*ap, unsigned long long)
                         : lng == 1 ? va_arg(*ap, unsigned long) : va_arg(*ap, unsigned int);
    return lng == -1 ? (unsigned short)v : lng <= -2 ? (unsigned char)v : v;
}

/* Convert one argument by conversion character c; false if c is none */
static bool convert(struct out *o, struct spec *s, char c, int lng, va_list *ap)
{
    switch (c) {
    case 'd':
    case 'i': {
        long long sv = signed_arg(lng, ap);
        s->flags |= F_SIGNED;
        integer(o, s, sv < 0 ? 0ULL - (unsigned long long)sv : (unsigned long long)sv,
                sv < 0, 10);
        return true;
    }
    case 'u':
    case 'o':
    case 'x':
    case 'X':
        if (c == 'X') {
            s->flags |= F_UPPER;
        }
        integer(o, s, unsigned_arg(lng, ap), false, c == 'u' ? 10 : c == 'o' ? 8 : 16);
        return true;
    case 'p':       /* as newlib and glibc print a non-null one: 0x... */
        s->flags |= F_PTR;
        integer(o, s, (uintptr_t)va_arg(*ap, void *), false, 16);
        return true;
    case 'c': {
        char ch = (char)va_arg(*ap, int);
        if ((s->flags & F_MINUS) == 0u) {
            pad(o, ' ', s->width - 1);
        }
        put(o, ch);
        if ((s->flags & F_MINUS) != 0u) {
            pad(o, ' ', s->width - 1);
        }
        return true;
    }
    case 's':
        string(o, s, va_arg(*ap, const char *));
        return true;
    case '%':
        put(o, '%');
        return true;
    default:
        return false;
    }
}

int format_vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
    struct out o = { buf, size ? size - 1u : 0u, 0 };
    const char *f = fmt;
    va_list args;
    va_copy(args, ap);      /* passed on by address (C11 7.16: va_list *) */
    for (;;) {
        /* literal text up to the next conversion, copied as one run */
        const char *run = f;
        char c = *f;
        while ((c != '\0') && (c != '%')) {
            f++;
            c = *f;
        }
        ptrdiff_t runlen = f - run;
        size_t len = (size_t)runlen;
        if (o.n < o.lim) {
            (void)memcpy(&o.buf[o.n], run, o.lim - o.n < len ? o.lim - o.n : len);
        }
        o.n += len;
        if (!c) {
            break;
        }
        const char *start = f++;
        struct spec s = { 0, 0, -1 };
        int lng = parse_spec(&f, &s, &args);
        c = *f++;
        if (!convert(&o, &s, c, lng, &args)) {
            /* unknown, or the format ended: copied as it is */
            if (!c) {
                f--;
            }
            while (start < f) {
                put(&o, *start++);
            }
        }
    }
    va_end(args);
    if (size != 0u) {
        buf[o.n < o.lim ? o.n : o.lim] = '\0';
    }
    return o.n > (size_t)INT32_MAX ? -1 : (int)o.n;
}

int format_snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = format_vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n;
}

#ifndef HOST_TEST   /* the unit test compares them with the host's own */
/* the C library's names, so that newlib's are never linked */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((alias("format_vsnprintf")));
int snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((alias("format_snprintf")));
#endif
