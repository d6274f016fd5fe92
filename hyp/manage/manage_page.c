/*
 * The management page of a control partition (include/partita/manage_abi.h,
 * PARTITA_MGPAGE_*): the management calls for a program that cannot issue
 * an HVC, such as Linux user space through /dev/mem.  Both pages trap (the
 * registers, and the data page that stands for the buffer), so the data is
 * the hypervisor's own and needs no check against the guest's memory.
 */
#include <string.h>
#include <partita/manage_abi.h>
#include "hyp/guest/guest.h"
#include "manage.h"
#include "mm/page_alloc.h"
#include "hyp/platform/percpu.h"
#include "manage_ops.h"

/* The page's offsets (partita/manage_abi.h, which the guests' C includes
 * too) in the unsigned type of the offsets the bus gives */
#define MG_MAGIC    ((uint32_t)PARTITA_MGPAGE_MAGIC)
#define MG_VERSION  ((uint32_t)PARTITA_MGPAGE_VERSION)
#define MG_CALL     ((uint32_t)PARTITA_MGPAGE_CALL)
#define MG_DATA     ((uint32_t)PARTITA_MGPAGE_DATA)
#define MG_ARG(n)   ((uint32_t)PARTITA_MGPAGE_ARG0 + (4u * (n)))
#define MG_RET(n)   ((uint32_t)PARTITA_MGPAGE_RET0 + (4u * (n)))
_Static_assert((PARTITA_MGPAGE_ARG(1) == (PARTITA_MGPAGE_ARG0 + 4)) &&
               (PARTITA_MGPAGE_RET(1) == (PARTITA_MGPAGE_RET0 + 4)),
               "the words from ARG0 and RET0");

#define DATA_SIZE 0x1000u

struct manage_page {
    uint8_t data[DATA_SIZE];
    uint32_t arg[5];                /* r1..r4 at arg[1..4] */
    uint32_t ret[4];
};

int manage_page_init(struct guest *g)
{
    g->mpage = page_alloc((sizeof(struct manage_page) + 0xfffu) / 0x1000u, 1);
    return g->mpage ? 0 : -1;
}

static void page_call(struct guest *g, struct manage_page *p, uint32_t fn)
{
    uint32_t r[5] = { fn, p->arg[1], 0, p->arg[3], p->arg[4] };
    uint32_t len = r[3] < DATA_SIZE ? r[3] : DATA_SIZE;
    struct vcpu *v = this_cpu()->vcpu;
    if (v && guest_of(v) == g) {
        manage_call(v, r, p->data, len);
    } else {
        r[0] = (uint32_t)PARTITA_E_BUSY;
    }
    (void)memcpy(p->ret, r, sizeof(p->ret));
}

static bool manage_page_mmio(void *dev, struct mmio_access *a, uint32_t off)
{
    struct guest *g = dev;
    struct manage_page *p = g->mpage;
    if ((a->size != 4u) || ((off & 3u) != 0u)) {
        return false;           /* 32-bit registers and data words only */
    }
    if (off >= MG_DATA) {
        /* a word of the data bytes, copied rather than reached through a
         * word pointer into the byte array (MISRA C:2012 rule 11.3) */
        uint8_t *w = &p->data[off - MG_DATA];
        if (a->write) {
            (void)memcpy(w, &a->value, sizeof(a->value));
        } else {
            (void)memcpy(&a->value, w, sizeof(a->value));
        }
        return true;
    }
    if (a->write) {
        if (off == MG_CALL) {
            page_call(g, p, a->value);
        } else if ((off >= MG_ARG(1u)) && (off <= MG_ARG(4u))) {
            p->arg[(off - MG_ARG(0u)) / 4u] = a->value;
        } else {
            /* otherwise nothing to do */
        }
        return true;
    }
    if (off == MG_MAGIC) {
        a->value = PARTITA_MGPAGE_MAGIC_VALUE;
    } else if (off == MG_VERSION) {
        a->value = MANAGE_ABI_VERSION;
    } else if ((off >= MG_RET(0u)) && (off <= MG_RET(3u))) {
        a->value = p->ret[(off - MG_RET(0u)) / 4u];
    } else if ((off >= MG_ARG(1u)) && (off <= MG_ARG(4u))) {
        a->value = p->arg[(off - MG_ARG(0u)) / 4u];
    } else {
        a->value = 0u;
    }
    return true;
}

int manage_page_start(struct guest *g)
{
    if (!g->mpage) {
        return 0;
    }
    (void)memset(g->mpage, 0, sizeof(*g->mpage));
    return guest_mmio_add(g, "control", VBOARD_MANAGE_IPA, VBOARD_MANAGE_SIZE, manage_page_mmio,
                          g);
}
