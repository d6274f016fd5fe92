/*
 * What the parts of the configuration parser share (hyp/config/config.c for
 * guests, hyp/config/config_channel.c for channels): the report and the range
 * checks.  Not for the rest of the hypervisor.
 */
#ifndef HYP_CONFIG_INTERNAL_H
#define HYP_CONFIG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "guest_config.h"

struct cfg_ctx {
    config_report_fn report;
    void *ctx;
    int errors;
    const void *host_dt;        /* the host DT, for passthrough by path; may be NULL */
    unsigned int ncolours;      /* of the last-level cache (or llc-way-size) */
};

/* config_guest.c: one guest node into g */
void config_parse_guest(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c);
/* config_guest.c: what interrupts = "direct" needs (after channels and networks) */
/* every emulated device of g has its region on g's MMIO bus */
void config_check_mmio(const struct guest_config *g, struct cfg_ctx *c);
void config_check_direct(const struct config_host *h, const struct guest_config *g,
                         struct cfg_ctx *c);
/* One line: "KIND 'NAME': property 'PROP': what" (PROP may be NULL) */
void cfg_report(struct cfg_ctx *c, bool err, const char *kind, const char *name,
                const char *prop, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define cfg_msg(c, err, guest, prop, ...) cfg_report((c), (err), "guest", (guest), (prop), \
                                                     __VA_ARGS__)

/* 1: read, 0: absent, -1: not one 32-bit cell */
int cfg_get_u32(const void *fdt, int node, const char *prop, uint32_t *out);
/* A string property: NULL when absent; *bad when it is not NUL-terminated. */
const char *cfg_get_string(const void *fdt, int node, const char *prop, bool *bad);

bool cfg_overlaps(uint64_t a, uint64_t as, uint64_t b, uint64_t bs);
/* [base, base+size) inside [rb, rb+rs), also when base+size passes 2^64 */
bool cfg_inside(uint64_t base, uint64_t size, uint64_t rb, uint64_t rs);
bool cfg_in_ram(const struct platform *p, uint64_t base, uint64_t size);
/* What of the guest's virtual board [base, base+size) hits (RAM included), or NULL */
const char *cfg_vboard_device(const struct guest_config *g, uint64_t base, uint64_t size);

/* hyp/config/config_colour.c: a guest's colours and physical span; the
 * colours of the configuration (llc-way-size); two coloured guests' sets */
void config_parse_colours(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c);
unsigned int config_ncolours(const void *fdt, int root, unsigned int hw, struct cfg_ctx *c);
void config_parse_hyp_colours(const void *fdt, int root, struct system_config *sys,
                             struct cfg_ctx *c);
void config_check_colours(struct system_config *sys, unsigned int gi, struct cfg_ctx *c);
/* May guests a and b both use physical memory where their spans overlap? */
bool config_colours_apart(const struct guest_config *a, const struct guest_config *b);
/* Warn about each property of node not in list (NULL-terminated); with
 * group set, the line names the guest and "GROUP/PROP" */
void cfg_warn_unknown(const void *fdt, int node, const char *const *list, const char *kind,
                      const char *name, const char *group, struct cfg_ctx *c);
/* A property asking for a room of the hypervisor this image leaves out
 * (the build refuses such a configuration first: scripts/rooms.py) */
void cfg_room_absent(struct cfg_ctx *c, const char *kind, const char *name, const char *prop,
                     const char *room);
/* the same of a guest's property prop, if its node has one */
void cfg_prop_absent(const void *fdt, int node, const char *guest, const char *prop,
                     const char *room, struct cfg_ctx *c);
/* the index of the guest called name, or -1 */
int cfg_guest_index(const struct system_config *sys, const char *name);
/* The guest a channel's or network's member node names, when the group
 * (KIND 'GROUP', nmembers so far) may take one more: its index, else -1
 * (reported) */
int cfg_member_guest(const void *fdt, int node, const struct system_config *sys,
                     const char *kind, const char *group, unsigned int nmembers,
                     unsigned int max_members, struct cfg_ctx *c);
/* "GROUP/PROP": a member's property as its error lines name it, in a
 * buffer of PROP_MAX (a group's name and the longest property's) */
#define PROP_MAX (GUEST_NAME_MAX + 16)
const char *cfg_member_prop(char *buf, size_t n, const char *group, const char *p);

/* hyp/config/config_channel.c: the channel nodes, after every guest is parsed */
bool config_is_channel(const void *fdt, int node);
void config_parse_channel(const void *fdt, int node, struct system_config *sys,
                          struct cfg_ctx *c);
void config_check_channels(const struct config_host *h, struct system_config *sys,
                           struct cfg_ctx *c);

/*
 * Where hyp/guest/guest.c's loader puts things: the guest's DTB in the top 64 KiB
 * of the first 256 MiB of its RAM, a Linux initrd page aligned below it.
 */
#define GUEST_DTB_ROOM  0x10000u
#define GUEST_LOW_WINDOW 0x10000000u

/* kernel, initrd and DTB fit the guest's memory (also for a run-time image) */
void config_check_images(struct guest_config *g, struct cfg_ctx *c);
/* hyp/config/config_budget.c: memory-budget and memory-budget-event; and
 * what a budget needs of the host and of the guest's other properties */
/* hyp/config/config_health.c: the health node, after on-crash, the
 * watchdog and memory-budget are parsed */
void config_parse_health(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c);
/* Does an event of g switch schedules?  And the schedule each names, once
 * the schedules are read: it must be one of them */
bool config_health_switches(const struct guest_config *g);
void config_check_health_schedules(struct system_config *sys, struct cfg_ctx *c);
void config_parse_budget(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c);
void config_check_budget(const struct config_host *h, const struct guest_config *g,
                         struct cfg_ctx *c);
/* hyp/config/config_control.c: control and control-guests, after every guest */
void config_parse_control(const void *fdt, int node, struct guest_config *g, struct cfg_ctx *c);
void config_check_control(const void *fdt, int root, struct system_config *sys,
                          struct cfg_ctx *c);
/* hyp/config/config_network.c: the network nodes, after every guest is parsed */
bool config_is_network(const void *fdt, int node);
void config_parse_network(const void *fdt, int node, struct system_config *sys,
                          struct cfg_ctx *c);
/* after the channels' checks: a device collides with channels, not the other way */
void config_check_networks(struct system_config *sys, struct cfg_ctx *c);
/* A member's required cell prop: false when it is missing (the line says
 * what it is for: missing) or malformed, reported on guest g, property p */
bool cfg_parse_cell(const void *fdt, int node, const char *prop, const char *g,
                    const char *p, const char *missing, uint32_t *out, struct cfg_ctx *c);
/* A virtio device of g at ipa raising irq, against everything of the guest
 * but its network devices from k on, its virtio console and its disks */
void cfg_check_virtio_device(const struct system_config *sys, const struct guest_config *g,
                             uint32_t ipa, uint32_t irq, unsigned int k, const char *pipa,
                             const char *pirq, struct cfg_ctx *c);
/* What of g's interrupts (its network devices' before k only) irq is, or NULL */
const char *cfg_irq_clash(const struct system_config *sys, const struct guest_config *g,
                          uint32_t irq, unsigned int k, char *what, size_t n);

/* hyp/config/config_disk.c: the disk nodes, after every guest is parsed,
 * checked after the networks (a disk's device collides with them) */
bool config_is_disk(const void *fdt, int node);
void config_parse_disk(const void *fdt, int node, struct system_config *sys,
                       struct cfg_ctx *c);
void config_check_disks(struct system_config *sys, struct cfg_ctx *c);

/* hyp/config/config_schedule.c: the partita,schedule nodes, after every
 * guest is parsed; checked last (the guests' CPUs, budgets, interrupts) */
bool config_is_schedule(const void *fdt, int node);
void config_parse_schedule(const void *fdt, int node, struct system_config *sys,
                           struct cfg_ctx *c);
void config_check_schedules(const struct config_host *h, struct system_config *sys,
                            struct cfg_ctx *c);
bool config_cpu_scheduled(const struct system_config *sys, unsigned int cpu);

#endif
