#include <stdio.h>
#include <string.h>
#include <libfdt.h>
#include <arch/layout.h>
#include "hostdt.h"

#define HOSTDT_MAX (128u * 1024u)
/* filled by the copy before use: not zeroed at boot */
static uint8_t hostdt_buf[HOSTDT_MAX] __attribute__((aligned(8), section(".noinit.hostdt")));

void *hostdt_copy(uint32_t dtb_pa, char *err, unsigned int errlen)
{
    /* the early tables map two 2 MiB blocks from the DTB's block */
    const void *src = (const void *)(HYP_VA_DTB + (dtb_pa & (BLOCK_SIZE - 1u)));
    int rc = fdt_check_header(src);
    /* the header's fields through one pointer of its type (MISRA C:2012
     * rule 11.5: one conversion from the blob's void pointer) */
    const struct fdt_header *h = src;
    if ((rc == 0) && (((dtb_pa & (BLOCK_SIZE - 1u)) + fdt_totalsize(h)) > (2u * BLOCK_SIZE))) {
        rc = -FDT_ERR_TRUNCATED;
    }
    /*
     * Bootloaders pad the blob (QEMU's is 1 MiB for a few KiB of content):
     * copy only up to the end of its last block.  The copy is only read
     * (the platform probe checks its structure), so its blocks stay where
     * they were: no fdt_open_into/fdt_pack to move them.
     */
    uint32_t used = 0u;
    if (rc == 0) {
        uint32_t ends[3] = {
            fdt_off_dt_struct(h) + fdt_size_dt_struct(h),
            fdt_off_dt_strings(h) + fdt_size_dt_strings(h),
            fdt_off_mem_rsvmap(h),
        };
        for (int i = 0; i < 3; i++) {
            used = ends[i] > used ? ends[i] : used;
        }
        if (used > fdt_totalsize(h)) {
            rc = -FDT_ERR_TRUNCATED;
        } else if (used > HOSTDT_MAX) {
            rc = -FDT_ERR_NOSPACE;
        } else {
            /* otherwise nothing to do */
        }
    }
    if (rc == 0) {
        (void)memcpy(hostdt_buf, src, used);
        fdt_set_totalsize(hostdt_buf, used);
        rc = fdt_check_header(hostdt_buf);
    }
    if (rc != 0) {
        (void)snprintf(err, errlen, "boot device tree at 0x%08lx (r2): %s",
                       (unsigned long)dtb_pa, fdt_strerror(rc));
        return NULL;
    }
    return hostdt_buf;
}
