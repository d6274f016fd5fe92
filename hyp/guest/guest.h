/* Guests: their memory, Stage-2, vCPUs, devices and lifecycle. */
#ifndef HYP_GUEST_H
#define HYP_GUEST_H

#include <stdint.h>
#include <stdbool.h>
#include "hyp/config/guest_config.h"
#include "hyp/vdev/mmio.h"
#include "hyp/arch/vm.h"
#include "hyp/lib/ratelimit.h"
#include "hyp/vdev/vuart.h"
#include "hyp/vdev/virtio_console.h"
#include "mm/stage2.h"
#include "vgic/vgic.h"

struct guest_crash {
    uint32_t pc, cpsr, hsr, far;
    char why[64];
};

/* A console's recent output, kept for the control partition (manage.c) */
#define GUEST_OUT_RING 4096u

/* An image given at run time (image.c): the configuration it boots with,
 * its pristine copy at the top of its memory, out of its Stage-2 */
struct guest_image {
    struct guest_config cfg;           /* the configured one with this image */
    bool active;                       /* cfg is the guest's */
    bool loading;                      /* pieces arriving; store_* is being written */
    uint32_t expect;                   /* the next offset of the stream */
    uint32_t total;                    /* header + kernel + initrd */
    uint32_t store_off, store_size;    /* in its configured RAM */
};

/* What a guest a control partition may act on has more, from the page
 * pool at boot (the others pay nothing for it) */
struct guest_managed {
    uint8_t out_ring[GUEST_OUT_RING];  /* console output, newest last */
    uint32_t out_total;                /* characters ever written to it */
    struct guest_image image;
};

/*
 * A guest: first what arch, trap and sched see of it (struct vm, its
 * members reached as the guest's own: an unnamed member, -fms-extensions),
 * then the rest, the guest layer's and its rooms'.
 */
struct guest {
    struct vm;
    spinlock_t uart_lock;              /* the vUART: its vCPUs and the console */
    struct ratelimit life_log;         /* its lifecycle lines on the console */
    struct ratelimit tx_budget;        /* its own output, in characters */
    struct ratelimit tx_notice;        /* saying so: once a second */
    uint32_t tx_dropped;               /* characters dropped, not yet said */
    spinlock_t life_lock;              /* state and restart_pending, changed by its
                                        * vCPUs (reset, crash, off) and the monitor */
    char line[160];                    /* guest console output, line buffered */
    unsigned int line_len;
    uint8_t input[256];                /* typed for the guest, waiting for FIFO room */
    unsigned int in_head, in_count;
    volatile uint64_t wd_deadline;     /* watchdog: counter value, 0 = off */
    volatile bool wd_expired;
    uint32_t wd_fires;
    uint64_t start_ticks;
    uint32_t starts;
    uint32_t dtb_ipa;
    struct guest_crash crash;
    uint32_t manage_denied;            /* management calls refused to it */
    uint32_t image_crc, image_crc_of;  /* CRC-32 of its image; _of: the kernel it is of */
    struct guest_managed *mg;          /* NULL unless a control partition may act on it */
    struct manage_page *mpage;         /* control guests: the management page */
    volatile uint32_t dbg_stopped;     /* gdb: 1 + the vCPU that hit a breakpoint */
    volatile bool devices_live;        /* its network ports and virtio console may
                                        * write its RAM (guest_detach_devices) */
};

/* the guest a vCPU is of, and a guest's part that arch, trap and sched see:
 * struct vm begins struct guest */
static inline struct guest *guest_of(const struct vcpu *v)
{
    return (struct guest *)v->vm;
}
static inline struct vm *guest_vm(struct guest *g)
{
    return (struct vm *)g;
}

extern struct guest guests[GUEST_MAX];
extern unsigned int nguests;

void guests_init(const struct system_config *sys);
struct guest *guest_by_name(const char *name);
int guest_start(struct guest *g);
void guest_stop(struct guest *g);
/* the guest asked to be powered off (PSCI SYSTEM_OFF) */
void guest_halt(struct guest *g);
/* A line about g's lifecycle (crash, reset, restart, watchdog): a guest can
 * make these as fast as it can restart, so they pass in a burst of
 * GUEST_LOG_BURST, then GUEST_LOG_RATE a second, dropped ones counted */
#define GUEST_LOG_BURST 256u
#define GUEST_LOG_RATE  10u
/* A guest's own console output is held to its configuration's console-rate
 * (a burst, then so many characters a second): past it, its UART reports the
 * transmit FIFO full, and characters written anyway are dropped and counted */
void guest_log(struct guest *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the guest asked for a reset (PSCI SYSTEM_RESET): restart from the image */
void guest_request_restart(struct guest *g);
/* the guest did something it cannot be handed back: report, apply on-crash */
void guest_crash(struct vcpu *v, const char *why, uint32_t hsr, uint32_t far);
/* boot CPU: restarts asked for by guests, once their vCPUs have left */
void guests_service(void);
const char *guest_state_name(enum guest_state s);
/* Console input for the guest (it has focus); never waits for the guest */
void guest_console_input(struct guest *g, char c);
/* Its virtio console for `stats`: bytes written and received, malformed rings */
void guest_vcon_print_stats(const struct guest *g);
/* The guest whose console has input focus, or NULL for the monitor */
extern struct guest *volatile console_focus;
/* uptime in seconds, 0 unless running */
uint64_t guest_uptime_s(const struct guest *g);
/* PARTITA_HC_WATCHDOG: push the guest's watchdog deadline; -1 if it has none */
int guest_watchdog_feed(struct guest *g);
struct vcpu *guest_vcpu_by_mpidr(struct guest *g, uint32_t mpidr);
/* the PSCI/SMCCC environment of a vCPU, once its guest is known (psci_env.c) */
void vcpu_psci_init(struct vcpu *v);

/*
 * Boot CPU: every device of g that writes its RAM on another partition's
 * behalf (its network ports, its virtio console) detached, so that nothing
 * reaches its RAM until guest_start attaches them again.  Every end of its
 * life comes here: stop and restart at once, halt, crash and reset once its
 * vCPUs have left (guests_service), a load before its first byte.
 */
void guest_detach_devices(struct guest *g);
/* an emulated device of g on its MMIO bus; -1, with g and prop named, if
 * the bus cannot take it (guest_start then fails) */
int guest_mmio_add(struct guest *g, const char *prop, uint64_t base, uint64_t size,
                   mmio_handler_t h, void *dev);
/* a stopped guest (also halted or crashed) off its CPUs, or an error:
 * what the monitor and the control partition both do (lifecycle.c) */
int guest_op_start(struct guest *g);
int guest_op_stop(struct guest *g);
int guest_op_restart(struct guest *g);
/* guest_console.c: input for g from a buffer; the bytes taken */
uint32_t guest_console_inject(struct guest *g, const uint8_t *buf, uint32_t len);
/* guest_console.c: its recent output from position pos (see PARTITA_MG_CONSOLE_READ) */
uint32_t guest_console_recent(struct guest *g, uint8_t *buf, uint32_t len, uint32_t *pos,
                              uint32_t *lost);
static inline bool guest_image_loaded(const struct guest *g)
{
    return g->mg && g->mg->image.active;
}
static inline bool guest_image_loading(const struct guest *g)
{
    return g->mg && g->mg->image.loading;
}

#endif
