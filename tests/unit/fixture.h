/* Unit-test fixtures: the DTBs compiled from tests/unit/fixtures. */
#ifndef TESTS_UNIT_FIXTURE_H
#define TESTS_UNIT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <libfdt.h>

/*
 * fixtures/NAME.dtb (the tests run in build/unit) in a buffer of exactly
 * its size, so ASan sees any overread, or with room for extra bytes of
 * edits when extra > 0.  *size, if given, gets the buffer's size.
 */
static inline void *fixture_load(const char *name, size_t extra, size_t *size)
{
    char path[128];
    snprintf(path, sizeof(path), "fixtures/%s.dtb", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (the tests run in build/unit)", path);
    fseek(f, 0, SEEK_END);
    size_t n = (size_t)ftell(f);
    rewind(f);
    void *buf = malloc(n + extra);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, n, f), n);
    fclose(f);
    if (extra)
        assert_int_equal(fdt_open_into(buf, buf, (int)(n + extra)), 0);
    if (size)
        *size = n + extra;
    return buf;
}

#endif
