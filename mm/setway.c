#include "setway.h"

bool setway_valid(uint32_t val, uint32_t clidr, uint32_t ccsidr)
{
    unsigned int level = setway_level(val);
    /* Ctype<n>: 2 data, 3 separate, 4 unified have a data side (B4.1.20) */
    unsigned int ctype = (clidr >> (3u * level)) & 7u;
    if (level > 6u || ctype < 2u || ctype > 4u || (val & 1u)) {
        return false;
    }
    /* CCSIDR (B4.1.19): LineSize = log2(words) - 2, Associativity and
     * NumSets minus one.  The operand is Way << (32 - A) | Set << L | Level
     * << 1, with A = ceil(log2(ways)) and L = log2(line bytes). */
    unsigned int l = (ccsidr & 7u) + 4u;
    uint32_t ways = ((ccsidr >> 3) & 0x3ffu) + 1u, sets = ((ccsidr >> 13) & 0x7fffu) + 1u;
    unsigned int a = 0u;
    while (((unsigned int)1u << a) < ways) {
        a++;
    }
    uint32_t way = a ? val >> (32u - a) : 0u;
    uint32_t set_field_bits = 32u - a - l;
    uint32_t set = (val >> l) & (set_field_bits >= 32u ? ~0u : ((unsigned int)1u << set_field_bits) - 1u);
    /* bits between Level and the set field must be zero too */
    uint32_t low = val & (((unsigned int)1u << l) - 1u) & ~0xeu;
    return way < ways && set < sets && !low;
}

struct cache_geom ccsidr_decode(uint32_t ccsidr)
{
    return (struct cache_geom){ (unsigned int)1u << ((ccsidr & 7u) + 4u), ((ccsidr >> 3) & 0x3ffu) + 1u,
                                ((ccsidr >> 13) & 0x7fffu) + 1u };
}

int clidr_last_data_level(uint32_t clidr)
{
    int last = -1;
    for (int level = 0; level < 7; level++) {
        unsigned int ctype = (clidr >> (3u * (unsigned int)level)) & 7u;
        if (ctype == 0u) {
            break;          /* no cache here, nor further out */
        }
        if (ctype >= 2u && ctype <= 4u) {
            last = level;
        }
    }
    return last;
}
