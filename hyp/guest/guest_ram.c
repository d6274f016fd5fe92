/*
 * A guest's RAM in its Stage-2: one range (2 MiB blocks where it is
 * aligned), or for a coloured guest each run of adjacent colours in 4 KiB
 * pages (hyp/config/colour.h) - the TLB pressure that coloured memory
 * costs, which `make bench` shows.
 */
#include "guest_ram.h"

int guest_ram_map(struct stage2 *s2, const struct guest_config *c)
{
    for (uint64_t off = 0u, n; off < c->mem_size; off += n) {
        n = guest_ram_run(c, off);
        n = n < c->mem_size - off ? n : c->mem_size - off;
        if (s2_map(s2, guest_ram_ipa(c) + off, guest_ram_pa(c, off), n, S2_RWX) != 0) {
            return -1;
        }
    }
    return 0;
}
