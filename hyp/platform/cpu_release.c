#include "cpu_release.h"

unsigned int cpu_release_plan(const struct plat_cpu *c, uint32_t entry_pa,
                              struct release_write w[RELEASE_MAX_WRITES])
{
    switch (c->method) {
    case CPU_METHOD_SPIN_TABLE:
        /*
         * The pen polls the release address until it is non-zero.  Two
         * cells of cpu-release-addr (the arm64 convention, which ARMv7
         * boot wrappers follow) name a 64-bit location: write all of it,
         * so no stale upper word is read as part of the address.
         */
        w[0] = (struct release_write){ c->release_addr, c->release_size == 8u ? 8 : 4,
                                       entry_pa };
        return 1;
    case CPU_METHOD_SYSFLAGS:
        /* SYS_FLAGS is set/clear: clear every bit, then set the entry */
        w[0] = (struct release_write){ c->release_clear, 4, 0xffffffffu };
        w[1] = (struct release_write){ c->release_addr, 4, entry_pa };
        return 2;
    default:
        return 0;
    }
}
