#ifndef HYP_HOSTDT_H
#define HYP_HOSTDT_H
#include <stdint.h>
/*
 * Copy the boot DTB from the early window into hypervisor memory (packed).
 * Returns the copy or NULL with a reason in err.
 */
void *hostdt_copy(uint32_t dtb_pa, char *err, unsigned int errlen);
#endif
