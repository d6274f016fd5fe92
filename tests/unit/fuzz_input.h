/* libFuzzer targets: the input read as a program, little-endian fields
 * taken from the front (0 once it runs out). */
#ifndef TESTS_UNIT_FUZZ_INPUT_H
#define TESTS_UNIT_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct input {
    const uint8_t *p;
    size_t n;
};

static inline uint32_t take(struct input *in, unsigned int bytes)
{
    uint32_t v = 0;
    for (unsigned int i = 0; i < bytes && in->n; i++, in->n--)
        v |= (uint32_t)*in->p++ << (8 * i);
    return v;
}

#endif
