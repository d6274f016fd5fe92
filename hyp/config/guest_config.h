/*
 * A guest as the configuration device tree describes it
 * (docs/configuration.md).
 * Parsing and validation are pure, so host unit tests cover every error.
 */
#ifndef HYP_GUEST_CONFIG_H
#define HYP_GUEST_CONFIG_H

#include <stdint.h>
#include <stdbool.h>
#include "colour.h"
#include "schedule_config.h"
#include <stddef.h>
#include "hyp/platform/platform.h"

#define GUEST_MAX          8u
#define GUEST_MAX_VCPUS    8u
#define GUEST_NAME_MAX     32
/* console-rate defaults and limits (characters a second, burst) */
#define CONSOLE_RATE_DEFAULT   16384u      /* about 160 kbaud */
#define CONSOLE_BURST_DEFAULT  65536u      /* a Linux boot log passes at once */
#define CONSOLE_RATE_MIN       100u
#define CONSOLE_RATE_MAX       10000000u
#define CONSOLE_BURST_MIN      256u
#define CONSOLE_BURST_MAX      ((unsigned int)16u << 20)
#define GUEST_BOOTARGS_MAX 256u
#define GUEST_MAX_PT_REGS  8u
#define GUEST_MAX_PT_IRQS  16u
/* time-slice-us: the bounds of a vCPU's turn on a shared CPU */
#define GUEST_SLICE_MIN_US 100u
#define GUEST_SLICE_MAX_US 1000000u
/* memory-budget's period: it refills on every CPU of the guest with an
 * interrupt, so not more often than every 100 us; at least every 10 s */
#define GUEST_BUDGET_PERIOD_MIN_US 100u
#define GUEST_BUDGET_PERIOD_MAX_US 10000000u

/* the virtual board (docs/virtual-board.md), mirroring QEMU virt */
#define VBOARD_RAM_IPA     0x40000000u
#define VBOARD_GICD_IPA    0x08000000u
#define VBOARD_GICC_IPA    0x08010000u
#define VBOARD_GICC_SIZE   0x2000u
#define VBOARD_UART_IPA    0x09000000u
#define VBOARD_UART_IRQ    33u
#define VBOARD_VTIMER_IRQ  27u
#define VBOARD_PMU_IRQ     23u      /* PPI 7, as on QEMU's virt */
#define LINUX_ZIMAGE_OFFSET 0x8000u
/* a control partition's management page, then its data page (a free
 * slot of QEMU virt's map) */
#define VBOARD_MANAGE_IPA  0x090c0000u
#define VBOARD_MANAGE_SIZE 0x2000u

/*
 * Channels: shared memory between guests with a doorbell each
 * (docs/channels.md).  A member maps the region at its own IPA; the 4 KiB
 * page right after it is the doorbell page Partita emulates (a write rings
 * the other members).  The doorbell is a virtual SPI in each member.
 */
#define CHANNEL_MAX            8u
#define CHANNEL_MAX_MEMBERS    4u
#define GUEST_MAX_CHANNELS     4u
#define CHANNEL_DOORBELL_SIZE  0x1000u
#define CHANNEL_SPI_MAX        255u     /* the vGIC models INTIDs up to 255 */
/* the Linux input event code of channel N's doorbell: BTN_TRIGGER_HAPPY1 + N */
#define CHANNEL_DOORBELL_KEY   0x2c0u

/*
 * Networks: a virtio-mmio network device per member guest, frames switched
 * by Partita between members (docs/networks.md).  Each member sees a
 * virtio 1.x (modern, version 2 register layout) device of 0x200 bytes at
 * its own IPA, raising its own virtual SPI.
 */
#define NETWORK_MAX            4u
#define NETWORK_MAX_MEMBERS    8u
#define GUEST_MAX_NETS         2u
#define VIRTIO_MMIO_SIZE       0x200u   /* one device's registers and config */
#define NET_MAC_LEN            6
#define NET_BUDGET_DEFAULT     64u      /* frames a member sends per exit */
#define NET_BUDGET_MAX         1024u
#define NET_RATE_MAX           10000000u    /* frame-rate: frames a second */
/* a MAC a member does not configure: 02:50:54:00:<network id>:<member> */
#define NET_MAC_DERIVED_OUI    0x02, 0x50, 0x54, 0x00

#define GUEST_DISK_NAME_MAX    GUEST_NAME_MAX
#include "disk_config.h"
#include "health_config.h"

/*
 * The emulated devices a guest can be given, each a region of its MMIO bus
 * (hyp/vdev/mmio.h sizes the bus by it): the distributor and the UART,
 * a doorbell page per channel, the management page, its network devices
 * its virtio console, its disks' devices and the done pages of the disks
 * it drives (at most one of the two per disk).  config_check_mmio refuses a guest that would
 * need more, so a device the configuration accepts is always on the bus.
 */
#define GUEST_VBOARD_REGIONS   2u
#define GUEST_MAX_MMIO_REGIONS (GUEST_VBOARD_REGIONS + GUEST_MAX_CHANNELS + 1u + \
                                GUEST_MAX_NETS + 1u + DISK_MAX)

enum kernel_format { KERNEL_RAW, KERNEL_LINUX };

/*
 * The control capability (docs/control-partition.md): what a guest
 * with `control` may do to the guests in its `control-guests` (by default
 * every other guest).  One bit per right; `control;` alone gives them all.
 */
enum control_right {
    CONTROL_LIST    = 1u << 0,      /* list, guest info, statistics */
    CONTROL_START   = 1u << 1,
    CONTROL_STOP    = 1u << 2,
    CONTROL_RESTART = 1u << 3,
    CONTROL_CONSOLE = 1u << 4,      /* read its console output, write its input */
    CONTROL_LOAD    = 1u << 5,      /* give a stopped guest a new image */
    CONTROL_BUDGET  = 1u << 6,      /* change its memory-bandwidth budget */
    CONTROL_SCHEDULE = 1u << 7,     /* switch the cyclic schedule (no guest of its own) */
};
#define CONTROL_ALL 0xffu
/* the names of the rights, in bit order (config_control.c) */
extern const char *const control_right_names[];
enum on_crash { ON_CRASH_STOP, ON_CRASH_RESTART };
/*
 * How a guest gets its interrupts (docs/configuration.md, "Direct
 * interrupts"): through the hypervisor and the GIC's virtual CPU interface
 * (the default), or straight from the physical GIC on CPUs it owns alone
 * ("direct"; docs/direct-interrupts.md).
 */
enum irq_mode { IRQ_VIRTUAL, IRQ_DIRECT };

/* One guest's view of a channel it is a member of */
struct guest_channel {
    char name[GUEST_NAME_MAX];              /* the channel's node name */
    unsigned int id;                        /* index in system_config.channels */
    unsigned int member;                    /* this guest's index among its members */
    uint32_t ipa;                           /* the shared memory; doorbell page after it */
    uint32_t size;
    uint64_t base;                          /* physical */
    bool read_only;
    uint32_t doorbell;                      /* INTID raised in this guest */
    bool parse_error;                       /* reported; not checked further */
};

/* One guest's device on a network it is a member of */
struct guest_net {
    char name[GUEST_NAME_MAX];              /* the network's node name */
    unsigned int id;                        /* index in system_config.networks */
    unsigned int member;                    /* this guest's index among its members */
    uint32_t ipa;                           /* the virtio-mmio registers (0x200 bytes) */
    uint32_t irq;                           /* its INTID (an SPI) */
    uint8_t mac[NET_MAC_LEN];
    uint32_t budget;                        /* frames taken from its TX queue per exit */
    uint32_t rate;                          /* frames a second it may send (0: no limit) */
    bool parse_error;                       /* reported; not checked further */
};

struct guest_config {
    char name[GUEST_NAME_MAX];
    unsigned int ncpus;
    unsigned int cpus[GUEST_MAX_VCPUS];     /* physical CPU of vCPU i */
    uint64_t mem_base, mem_size;            /* physical base, RAM size */
    uint64_t mem_span;                      /* physical bytes from mem_base it uses */
    struct colour_list colours;             /* coloured RAM (colours.n != 0) */
    bool identity;                          /* IPA = PA (passthrough DMA) */
    bool pmu;                               /* the CPU's PMU is the guest's (pmu = "on") */
    const uint8_t *kernel;
    uint32_t kernel_size;
    enum kernel_format format;
    uint32_t load_offset, entry_offset;     /* raw images, from RAM start */
    const uint8_t *initrd;
    uint32_t initrd_size;
    char bootargs[GUEST_BOOTARGS_MAX];
    bool autostart;
    enum on_crash on_crash;
    uint32_t watchdog_ms;                   /* 0: no watchdog */
    enum on_crash watchdog_action;          /* restart or stop */
    uint32_t console_rate, console_burst;   /* its console output: chars/s, burst */
    uint32_t slice_us;                      /* time slice on a shared CPU; 0: CPUs alone */
    unsigned int npt_regs;
    struct plat_range pt_regs[GUEST_MAX_PT_REGS];
    unsigned int npt_irqs;
    uint32_t pt_irqs[GUEST_MAX_PT_IRQS];    /* INTIDs */
    unsigned int nchannels;
    struct guest_channel channels[GUEST_MAX_CHANNELS];
    uint32_t control;                       /* enum control_right bits; 0: none */
    uint32_t control_guests;                /* bit i: may act on guests[i] */
    unsigned int nnets;
    struct guest_net nets[GUEST_MAX_NETS];
    bool vcon;                              /* a virtio console (hvc0) at: */
    uint32_t vcon_ipa, vcon_irq;            /* its registers (0x200 bytes), its SPI */
    enum irq_mode irq_mode;                 /* interrupts = "virtual" / "direct" */
    unsigned int ndisks;                    /* disks it is a frontend of */
    struct guest_disk disks[GUEST_MAX_DISKS];
    unsigned int ndriven;                   /* disks it is the driver partition of */
    struct guest_driven driven[DISK_MAX];
    /* memory-budget = <EVENTS PERIOD-US> (hyp/config/config_budget.c):
     * PMU events per period, pooled over its vCPUs; 0 events: none */
    uint32_t budget_events, budget_period_us;
    uint32_t budget_event;                  /* memory-budget-event: what is counted */
    /* the health node (config_health.c); on-crash and watchdog-action are
     * its crash and watchdog entries */
    struct guest_health health;
};

struct channel_member {
    unsigned int guest;                     /* index in system_config.guest_cfg */
    unsigned int slot;                      /* in that guest's channels[] */
};

struct channel_config {
    char name[GUEST_NAME_MAX];
    uint64_t base, size;                    /* physical, 4 KiB aligned */
    bool parse_error;                       /* its memory is reported missing or too big */
    unsigned int nmembers;
    struct channel_member members[CHANNEL_MAX_MEMBERS];
};

struct network_config {
    char name[GUEST_NAME_MAX];
    unsigned int nmembers;
    struct channel_member members[NETWORK_MAX_MEMBERS];    /* slot: in guest's nets[] */
};

struct system_config {
    unsigned int nguest_cfg;
    struct guest_config guest_cfg[GUEST_MAX];
    unsigned int nchannels;
    struct channel_config channels[CHANNEL_MAX];
    unsigned int nnetworks;
    struct network_config networks[NETWORK_MAX];
    unsigned int ndisks;
    struct disk_config disks[DISK_MAX];
    struct colour_list hyp_colours;         /* /partita colors; n 0: not coloured */
    struct schedules_config sched;          /* partita,schedule nodes */
};

/* What the validator checks the configuration against. */
struct config_host {
    const struct platform *plat;
    uint64_t hyp_start, hyp_end;            /* hypervisor footprint (physical) */
    const void *host_dt;                    /* to check passthrough ranges; may be NULL */
    unsigned int ncolours;                  /* of the last-level cache; 0: no colouring */
    /* the hypervisor can keep its own interrupts in the GIC's Group 0 (a
     * secure start on a GIC with the Security Extensions): direct
     * interrupts are possible; else the name of the start mode, for the
     * error (NULL: not known, as in the unit tests' default host) */
    bool group0;
    const char *start_mode;
    /* the event counters of the CPUs' PMU, with its interrupt known; 0:
     * no PMU to regulate memory-bandwidth budgets with */
    unsigned int pmu_counters;
};

/* One diagnostic: "guest 'NAME': property 'PROP': what is wrong". */
typedef void (*config_report_fn)(void *ctx, bool is_error, const char *msg);

/*
 * Parse the /partita node of blob into *sys and validate it against the
 * host, *hw.  Every problem is reported; returns the number of errors (0: the
 * configuration may start).
 */
/*
 * Before the configuration is loaded (the page pool is sized by it): the
 * hypervisor's colours, k of n, from /partita's colors and llc-way-size
 * over hw, the colours the CPU reports; k = 0 when it has none or they do
 * not parse - config_load says why then.
 */
void config_peek_hyp_colours(const void *blob, unsigned int hw, unsigned int *k,
                             unsigned int *n);
int config_load(const void *blob, const struct config_host *hw, struct system_config *sys,
                config_report_fn report, void *ctx);

/*
 * May guest c (guest self of the ncfg configured) make management call fn (a
 * PARTITA_MG_* ID) on guest id?  0, or PARTITA_E_DENIED (no control, no
 * right, not its guest), PARTITA_E_INVALID (no such guest),
 * PARTITA_E_NOT_SUPPORTED (no such call).
 */
int control_check(const struct guest_config *c, unsigned int self, unsigned int ncfg,
                  uint32_t fn, uint32_t id);

/* The image checks alone, for an image given at run time: errors */
int config_check_guest_image(struct guest_config *g, config_report_fn report, void *ctx);

/* IPA of guest RAM */
static inline uint64_t guest_ram_ipa(const struct guest_config *c)
{
    return c->identity ? c->mem_base : VBOARD_RAM_IPA;
}

/* The physical address of byte off of the guest's RAM (colour.h) */
static inline uint64_t guest_ram_pa(const struct guest_config *c, uint64_t off)
{
    return c->colours.n ? colour_pa(&c->colours, c->mem_base, off) : c->mem_base + off;
}

/* How many bytes of its RAM from off on are physically contiguous */
static inline uint64_t guest_ram_run(const struct guest_config *c, uint64_t off)
{
    if (!c->colours.n) {
        return c->mem_size - off;
    }
    uint64_t in_page = COLOUR_PAGE - off % COLOUR_PAGE;
    return in_page + (colour_run(&c->colours, off, ~0ULL) - 1u) * COLOUR_PAGE;
}

/* Are the n bytes at physical pa (within one page) the guest's RAM?  For
 * a coloured guest: a page of its colours in its span, each of which is
 * one of its pages (colour.h) */
static inline bool guest_ram_has_pa(const struct guest_config *c, uint64_t pa, uint32_t n)
{
    if (pa < c->mem_base || pa + n > c->mem_base + c->mem_span) {
        return false;
    }
    return !c->colours.n || (pa % COLOUR_PAGE + n <= COLOUR_PAGE &&
                             colour_has(&c->colours, (unsigned int)((pa / COLOUR_PAGE) %
                                                                    c->colours.n)));
}

/* is ipa in the guest's RAM? */
static inline bool guest_config_ipa_is_ram(const struct guest_config *c, uint64_t ipa)
{
    uint64_t base = guest_ram_ipa(c);
    return ipa >= base && ipa - base < c->mem_size;
}

/*
 * A buffer a guest hands the hypervisor: [ipa, ipa + len) all inside its
 * RAM (len > 0), and below 4 GiB physical, where the hypervisor reaches it
 * through its identity map.  *pa is where it starts.  Anything outside,
 * straddling the end of RAM or wrapping is refused, never followed; so is
 * a buffer of a coloured guest that is not physically contiguous (it
 * crosses into a page of a non-adjacent colour: colour.h).
 */
static inline bool guest_config_buffer(const struct guest_config *c, uint32_t ipa, uint32_t len,
                                       uint64_t *pa)
{
    uint64_t base = guest_ram_ipa(c);
    if (!len || ipa < base || ipa - base >= c->mem_size || len > c->mem_size - (ipa - base)) {
        return false;
    }
    if (guest_ram_run(c, ipa - base) < len) {
        return false;
    }
    *pa = guest_ram_pa(c, ipa - base);
    return *pa + len <= 0x100000000ULL;
}

#endif
