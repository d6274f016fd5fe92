/*
 * Samsung Exynos5: not yet (see docs/porting.md): an empty table.
 */
#include "soc_smp.h"

const struct soc_smp_method soc_smp_exynos[] = {
    { NULL, false, NULL, NULL, 0, 0, NULL, NULL },
};
