/*
 * Host unit tests for the hypervisor's vsnprintf (hyp/lib/format.c): every
 * conversion, flag, width, precision and length it supports formats as the
 * host C library's snprintf does, for edge values and for random ones, and
 * truncation to any buffer size keeps the C99 contract (the full length
 * returned, the output cut and NUL-terminated).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/lib/format.h"

/* Format one value both ways and compare, at full size and cut short */
#define SAME(fmt, ...) same(__LINE__, fmt, ##__VA_ARGS__)
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void same(int line, const char *fmt, ...)
{
    char want[512], got[512];
    va_list a, b;
    va_start(a, fmt);
    va_copy(b, a);
    int nw = vsnprintf(want, sizeof(want), fmt, a);
    int ng = format_vsnprintf(got, sizeof(got), fmt, b);
    va_end(a);
    va_end(b);
    if (nw != ng || strcmp(want, got) != 0)
        fail_msg("line %d, \"%s\": libc \"%s\" (%d), ours \"%s\" (%d)",
                 line, fmt, want, nw, got, ng);
    /* every shorter buffer: the same length returned, a cut, terminated copy */
    for (size_t size = 0; size <= (size_t)nw; size++) {
        char cut[512];
        memset(cut, 'Z', sizeof(cut));
        va_start(b, fmt);
        int n = format_vsnprintf(cut, size, fmt, b);
        va_end(b);
        assert_int_equal(n, nw);
        if (size == 0) {
            assert_int_equal(cut[0], 'Z');     /* nothing written at all */
            continue;
        }
        assert_int_equal(cut[size - 1], '\0');
        assert_memory_equal(cut, want, size - 1);
        assert_int_equal(cut[size], 'Z');       /* nothing past the buffer */
    }
}

static void test_integers(void **state)
{
    static const char *const flags[] = { "", "-", "0", "+", " ", "#", "-0", "+0", "- ", "#0", "-#" };
    static const char *const widths[] = { "", "1", "5", "12", "24" };
    static const char *const precs[] = { "", ".", ".0", ".1", ".3", ".10" };
    static const char *const convs[] = { "d", "i", "u", "x", "X", "o" };
    static const long long values[] = { 0, 1, -1, 7, 9, 10, 42, -42, 255, 4095, 65535,
                                        INT_MAX, INT_MIN, UINT_MAX, 0x80000000ll,
                                        LLONG_MAX, LLONG_MIN, 0x100000000ll, -4294967296ll,
                                        1000000000000ll };
    char fmt[32];
    for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++)
        for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
            for (size_t p = 0; p < sizeof(precs) / sizeof(precs[0]); p++)
                for (size_t c = 0; c < sizeof(convs) / sizeof(convs[0]); c++)
                    for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
                        long long x = values[v];
                        snprintf(fmt, sizeof(fmt), "[%%%s%s%sll%s]", flags[f], widths[w],
                                 precs[p], convs[c]);
                        SAME(fmt, x);
                        snprintf(fmt, sizeof(fmt), "[%%%s%s%sl%s]", flags[f], widths[w],
                                 precs[p], convs[c]);
                        SAME(fmt, (long)x);
                        snprintf(fmt, sizeof(fmt), "<%%%s%s%s%s>", flags[f], widths[w],
                                 precs[p], convs[c]);
                        SAME(fmt, (int)x);
                        snprintf(fmt, sizeof(fmt), "%%%s%s%sh%s", flags[f], widths[w],
                                 precs[p], convs[c]);
                        SAME(fmt, (int)x);
                        snprintf(fmt, sizeof(fmt), "%%%s%s%shh%s", flags[f], widths[w],
                                 precs[p], convs[c]);
                        SAME(fmt, (int)x);
                    }
    SAME("%zu %zx %zd", (size_t)123456, (size_t)0xabc, (ssize_t)-5);
    SAME("%jd %ju", (intmax_t)-9000000000ll, (uintmax_t)18000000000ull);
    SAME("%td", (ptrdiff_t)-77);
}

/* Random values and widths through the formats Partita's messages use */
static void test_random(void **state)
{
    srandom(7);
    static const char *const fmts[] = { "%u", "%lu", "%llu", "%08lx", "%08llx", "%llx", "%d",
                                        "%x", "%02lx", "%7llu", "%10llu", "%-2d", "%ld" };
    for (int i = 0; i < 20000; i++) {
        unsigned long long v = ((unsigned long long)random() << 33) ^ ((unsigned long long)random() << 11) ^
                               (unsigned long long)random();
        v >>= random() % 64;
        const char *f = fmts[i % (sizeof(fmts) / sizeof(fmts[0]))];
        if (strstr(f, "ll"))
            SAME(f, v);
        else if (strchr(f, 'l'))
            SAME(f, (unsigned long)v);
        else
            SAME(f, (unsigned int)v);
    }
}

static void test_strings_and_chars(void **state)
{
    static const char *const strs[] = { "", "a", "hello", "a much longer string than any width" };
    static const char *const specs[] = { "%s", "%-8s", "%8s", "%.3s", "%-10.2s", "%10.0s",
                                         "%.10s", "%-22s|", "%*s", "%-*s", "%.*s", "%*.*s" };
    for (size_t s = 0; s < sizeof(strs) / sizeof(strs[0]); s++)
        for (size_t f = 0; f < sizeof(specs) / sizeof(specs[0]); f++) {
            const char *spec = specs[f];
            int stars = (int)(strchr(spec, '*') != NULL) + (int)(strstr(spec, "*.*") != NULL);
            if (stars == 2) {
                SAME(spec, 9, 2, strs[s]);
                SAME(spec, -9, -1, strs[s]);
            } else if (stars == 1) {
                SAME(spec, 6, strs[s]);
                SAME(spec, -6, strs[s]);
                SAME(spec, 0, strs[s]);
            } else {
                SAME(spec, strs[s]);
            }
        }
    SAME("%c%c%c", 'a', 'b', 'c');
    SAME("[%5c][%-5c]", 'x', 'y');
    SAME("100%% done, %s", "ok");
    SAME("%s", (const char *)NULL);        /* "(null)", as glibc prints it */
    SAME("plain text without conversions");
    SAME("%*d|%-*d|%0*d", 6, 42, 6, 42, 6, -42);
    SAME("%.*d|%.*x", 5, 42, -1, 0x1f);
}

static void test_pointers_and_odd_formats(void **state)
{
    char got[64];
    void *p = (void *)(uintptr_t)0x4000beef;
    char want[64];
    snprintf(want, sizeof(want), "%p", p);
    format_snprintf(got, sizeof(got), "%p", p);
    assert_string_equal(got, want);
    /* formats the compiler would refuse, as a bad caller could pass them */
    const char *volatile unknown = "a%kb %d", *volatile cut = "end %-5";
    const char *volatile huge = "%999999999999d", *volatile star = "%*d";
    /* an unknown conversion comes out as written; the others still work */
    assert_int_equal(format_snprintf(got, sizeof(got), unknown, 5), 6);
    assert_string_equal(got, "a%kb 5");
    /* a format ending inside a conversion */
    assert_int_equal(format_snprintf(got, sizeof(got), cut), 7);
    assert_string_equal(got, "end %-5");
    /* huge widths and precisions stop at 4096 */
    assert_int_equal(format_snprintf(got, sizeof(got), huge, 1), 4096);
    assert_int_equal(format_snprintf(got, sizeof(got), "%.*d", 1 << 30, 1), 4096);
    assert_int_equal(format_snprintf(got, sizeof(got), star, INT_MIN, 1), 4096);
    assert_int_equal(format_snprintf(NULL, 0, "%s=%u", "x", 12u), 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_integers),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_strings_and_chars),
        cmocka_unit_test(test_pointers_and_odd_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
