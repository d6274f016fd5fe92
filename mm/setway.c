#include "setway.h"

bool setway_valid(uint32_t val, uint32_t clidr, uint32_t ccsidr)
{
    unsigned int level = setway_level(val);
    /* Ctype<n>: 2 data, 3 separate, 4 unified have a data side (B4.1.20) */
    unsigned int ctype = (clidr >> (3 * level)) & 7;
    if (level > 6 || ctype < 2 || ctype > 4 || (val & 1))
        return false;
    /* CCSIDR (B4.1.19): LineSize = log2(words) - 2, Associativity and
     * NumSets minus one.  The operand is Way << (32 - A) | Set << L | Level
     * << 1, with A = ceil(log2(ways)) and L = log2(line bytes). */
    unsigned int l = (ccsidr & 7) + 4;
    uint32_t ways = ((ccsidr >> 3) & 0x3ff) + 1, sets = ((ccsidr >> 13) & 0x7fff) + 1;
    unsigned int a = 0;
    while ((1u << a) < ways)
        a++;
    uint32_t way = a ? val >> (32 - a) : 0;
    uint32_t set_field_bits = 32 - a - l;
    uint32_t set = (val >> l) & (set_field_bits >= 32 ? ~0u : (1u << set_field_bits) - 1);
    /* bits between Level and the set field must be zero too */
    uint32_t low = val & ((1u << l) - 1) & ~0xeu;
    return way < ways && set < sets && !low;
}

struct cache_geom ccsidr_decode(uint32_t ccsidr)
{
    return (struct cache_geom){ 1u << ((ccsidr & 7) + 4), ((ccsidr >> 3) & 0x3ff) + 1,
                                ((ccsidr >> 13) & 0x7fff) + 1 };
}

int clidr_last_data_level(uint32_t clidr)
{
    int last = -1;
    for (int level = 0; level < 7; level++) {
        unsigned int ctype = (clidr >> (3 * level)) & 7;
        if (ctype == 0)
            break;          /* no cache here, nor further out */
        if (ctype >= 2 && ctype <= 4)
            last = level;
    }
    return last;
}
