/* Cache colouring arithmetic: colour.h says what a colour is. */
#include <string.h>
#include "colour.h"
#include <stdio.h>

unsigned int colour_count(uint32_t way_size)
{
    unsigned int n = way_size / COLOUR_PAGE;
    return n > 1u ? n : 0u;
}

bool colour_has(const struct colour_list *l, unsigned int c)
{
    for (unsigned int i = 0u; i < l->k; i++) {
        if (l->colour[i] == c) {
            return true;
        }
    }
    return false;
}

/* one colour or a range a-b into the bitmap; -1 with the reason */
static int add_range(bool *set, unsigned int lo, unsigned int hi, unsigned int n,
                     char *err, size_t errlen)
{
    if (lo > hi) {
        (void)snprintf(err, errlen, "range %u-%u runs backwards", lo, hi);
        return -1;
    }
    if (hi >= n) {
        (void)snprintf(err, errlen, "colour %u does not exist (the cache has %u, 0-%u)", hi, n,
                       n - 1u);
        return -1;
    }
    for (unsigned int c = lo; c <= hi; c++) {
        if (set[c]) {
            (void)snprintf(err, errlen, "colour %u given twice", c);
            return -1;
        }
        set[c] = true;
    }
    return 0;
}

static bool is_string(const char *p, int len)
{
    if (len < 2 || p[len - 1] != '\0') {
        return false;
    }
    for (int i = 0; i < len - 1; i++) {
        if (!(p[i] == ',' || p[i] == '-' || p[i] == ' ' || (p[i] >= '0' && p[i] <= '9'))) {
            return false;
        }
    }
    return true;
}

/* "0-3,8": numbers, ranges, commas (spaces allowed around them) */
static int parse_string(const char *s, unsigned int n, bool *set, char *err, size_t errlen)
{
    while (*s != '\0') {
        while (*s == ' ' || *s == ',') {
            s++;
        }
        if (!*s) {
            break;
        }
        unsigned int lo = 0u, hi, digits = 0u;
        for (; *s >= '0' && *s <= '9' && lo < 100000u; s++, digits++) {
            lo = lo * 10u + (unsigned int)(*s - '0');
        }
        hi = lo;
        if (*s == '-') {
            s++;
            unsigned int d2 = 0u;
            for (hi = 0u; *s >= '0' && *s <= '9' && hi < 100000u; s++, d2++) {
                hi = hi * 10u + (unsigned int)(*s - '0');
            }
            digits = d2 ? digits : 0u;
        }
        if (!digits || (*s && *s != ',' && *s != ' ')) {
            (void)snprintf(err, errlen, "not a list of colours and ranges such as \"0-3,8\"");
            return -1;
        }
        if (add_range(set, lo, hi, n, err, errlen) != 0) {
            return -1;
        }
    }
    return 0;
}

int colour_parse(const void *prop, int len, unsigned int n, struct colour_list *out,
                 char *err, size_t errlen)
{
    bool set[COLOUR_MAX] = { 0 };
    (void)memset(out, 0, sizeof(*out));
    if (n == 0u) {
        (void)snprintf(err, errlen, "the last-level cache has no colours to give (a way of one "
                       "page or less; llc-way-size overrides what the CPU says)");
        return -1;
    }
    if (is_string(prop, len)) {
        if (parse_string(prop, n, set, err, errlen) != 0) {
            return -1;
        }
    } else if (len > 0 && len % 4 == 0) {
        const uint8_t *b = prop;
        for (int i = 0; i < len; i += 4) {
            uint32_t c = (uint32_t)b[i] << 24 | (uint32_t)b[i + 1] << 16 |
                         (uint32_t)b[i + 2] << 8 | b[i + 3];
            if (add_range(set, c, c, n, err, errlen) != 0) {
                return -1;
            }
        }
    } else {
        (void)snprintf(err, errlen, "neither colour cells nor a string such as \"0-3\"");
        return -1;
    }
    out->n = n;
    for (unsigned int c = 0u; c < n; c++) {
        if (set[c]) {
            out->colour[out->k++] = (uint8_t)c;
        }
    }
    if (out->k == 0u) {
        (void)snprintf(err, errlen, "no colour given");
        return -1;
    }
    return 0;
}

uint64_t colour_span(const struct colour_list *l, uint64_t size)
{
    if (size == 0u) {
        return 0;
    }
    return colour_pa(l, 0, size - 1u) / COLOUR_PAGE * COLOUR_PAGE + COLOUR_PAGE;
}

uint64_t colour_run(const struct colour_list *l, uint64_t off, uint64_t max)
{
    uint64_t page = off / COLOUR_PAGE, run = 1u;
    unsigned int i = page % l->k;
    while (run < max && i + run < l->k && l->colour[i + run] == l->colour[i] + run) {
        run++;
    }
    /* the last colour of one period and the first of the next are adjacent
     * too when the guest has colour n-1 and colour 0: not joined here */
    return run;
}

bool colour_pages_in(const struct colour_list *l, uint64_t pa, unsigned int npages)
{
    for (unsigned int i = 0u; i < npages; i++) {
        if (!colour_has(l, colour_of(pa + (uint64_t)i * COLOUR_PAGE, l->n))) {
            return false;
        }
    }
    return true;
}

void colour_format(const struct colour_list *l, char *buf, size_t size)
{
    size_t n = 0u;
    buf[0] = '\0';
    for (unsigned int i = 0u; i < l->k && n < size; ) {
        unsigned int j = i;
        while (((j + 1u) < l->k) && (l->colour[j + 1u] == (l->colour[j] + 1u))) {
            j++;
        }
        n += (size_t)snprintf(buf + n, size - n, j > i ? "%s%u-%u" : "%s%u", i ? "," : "",
                              l->colour[i], l->colour[j]);
        i = j + 1u;
    }
}
