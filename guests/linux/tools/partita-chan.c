/*
 * partita-chan: talk over a Partita channel from Linux user space, with
 * Debian's kernel as it is (docs/channels.md).
 *
 *   partita-chan list                         the channels in the device tree
 *   partita-chan send [-c CH] [-t MS] TEXT... each TEXT as a message; print the replies
 *   partita-chan ping [-c CH] [-n N]          N round trips, each reply checked
 *   partita-chan listen [-c CH] [-n N]        print messages as they come
 *
 * CH is a channel's label (its name in the configuration) or id; the
 * default is the first channel.  The peer (guests/test/chanpeer.c) answers
 * each message with its text in capitals.
 *
 * How it reaches the channel:
 *   memory      /dev/mem, mmap of the "memory" reg of the partita,channel
 *               node.  CONFIG_STRICT_DEVMEM allows it: the region is no
 *               System RAM (it lies outside the guest's /memory and is a
 *               no-map reserved-memory node) and no driver claims it.
 *               Outside its RAM Linux maps it strongly-ordered, so every
 *               access is an aligned word (include/partita/chan_ring.h).
 *   ringing     a store to the doorbell page (the "doorbell" reg), also
 *               through /dev/mem: Partita traps it and raises the peer's
 *               SPI.  User space cannot issue the HVC itself.
 *   doorbells   the channel's interrupt is an interrupt-only gpio-keys
 *               button ("partita-doorbells"; Debian builds gpio-keys in and
 *               has no UIO driver for a DT node): each doorbell is a key
 *               press of code BTN_TRIGGER_HAPPY1 + channel id on
 *               /dev/input/eventN, which poll() waits for.  Without evdev
 *               the program polls the ring every millisecond instead.
 * Built statically with Debian's armhf cross compiler (guests/linux/build.sh).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/input.h>
#include <sys/mman.h>
#include <partita/chan_ring.h>
#include "partita-tools.h"

#define KEY_BASE  0x2c0     /* BTN_TRIGGER_HAPPY1: hyp/config/guest_config.h CHANNEL_DOORBELL_KEY */
#define MAX_CHANS 8

struct channel {
    char node[256], label[64];
    uint32_t mem, size, db, irq, id, member;
    int read_only;
};

static struct channel chans[MAX_CHANS];
static int nchans;

/* ---- the device tree, as the kernel exports it ---- */

static void find_channels(void)
{
    DIR *d = opendir(DT_BASE);
    struct dirent *e;
    if (!d) {
        perror("partita-chan: " DT_BASE);
        exit(1);
    }
    while ((e = readdir(d)) && nchans < MAX_CHANS) {
        char compat[64] = "";
        struct channel *c = &chans[nchans];
        if (strncmp(e->d_name, "channel@", 8) != 0 ||
            dt_read(e->d_name, "compatible", compat, sizeof(compat) - 1) < 0 ||
            strcmp(compat, "partita,channel") != 0)
            continue;
        uint32_t reg[4], irq[3];
        memset(c, 0, sizeof(*c));
        snprintf(c->node, sizeof(c->node), "%s", e->d_name);
        if (dt_cells(c->node, "reg", reg, 4) != 4 || dt_cells(c->node, "interrupts", irq, 3) != 3 ||
            dt_cells(c->node, "partita,channel-id", &c->id, 1) != 1 ||
            dt_cells(c->node, "partita,member", &c->member, 1) != 1) {
            fprintf(stderr, "partita-chan: %s: incomplete node, skipped\n", c->node);
            continue;
        }
        c->mem = reg[0];
        c->size = reg[1];
        c->db = reg[2];
        c->irq = irq[1] + 32;
        c->read_only = dt_read(c->node, "partita,read-only", compat, 1) >= 0;
        if (dt_read(c->node, "label", c->label, sizeof(c->label) - 1) < 0)
            snprintf(c->label, sizeof(c->label), "%u", c->id);
        nchans++;
    }
    closedir(d);
}

static struct channel *pick(const char *want)
{
    for (int i = 0; i < nchans; i++) {
        char id[16];
        snprintf(id, sizeof(id), "%u", chans[i].id);
        if (!want || strcmp(want, chans[i].label) == 0 || strcmp(want, id) == 0)
            return &chans[i];
    }
    fprintf(stderr, "partita-chan: no channel %s (try: partita-chan list)\n",
            want ? want : "in the device tree");
    exit(1);
}

/* ---- mapping and doorbells ---- */

struct link {
    struct channel *c;
    volatile void *shm;
    volatile uint32_t *db;
    volatile struct chan_ring *tx, *rx;
    int evfd;                   /* /dev/input/eventN of partita-doorbells, or -1 */
};

static volatile void *map(int fd, uint32_t pa, uint32_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pa);
    if (p == MAP_FAILED) {
        fprintf(stderr, "partita-chan: mmap /dev/mem 0x%08x+0x%x: %s\n", pa, size,
                strerror(errno));
        exit(1);
    }
    return p;
}

static void link_open(struct link *l, struct channel *c)
{
    if (c->size < CHAN_MIN_SIZE) {
        fprintf(stderr, "partita-chan: channel %s: %u bytes, the rings need %u\n", c->label,
                c->size, CHAN_MIN_SIZE);
        exit(1);
    }
    if (c->read_only) {
        fprintf(stderr, "partita-chan: channel %s is read-only here\n", c->label);
        exit(1);
    }
    int fd = open("/dev/mem", O_RDWR | O_SYNC);
    if (fd < 0) {
        perror("partita-chan: /dev/mem");
        exit(1);
    }
    l->c = c;
    l->shm = map(fd, c->mem, c->size);
    l->db = map(fd, c->db, 0x1000);
    close(fd);
    l->tx = chan_ring_of(l->shm, c->member);
    l->rx = chan_ring_of(l->shm, c->member ^ 1);
    l->evfd = open_doorbells();
}

static void ring(struct link *l)
{
    /* Partita executes a DSB before it raises the peer's interrupt */
    l->db[CHAN_DB_RING / 4] = 1;
}

/* Wait up to ms for a doorbell of this channel (or 1 ms without evdev) */
static void wait_doorbell(struct link *l, int ms)
{
    if (l->evfd < 0) {
        usleep(1000);
        return;
    }
    struct pollfd p = { l->evfd, POLLIN, 0 };
    if (poll(&p, 1, ms) <= 0)
        return;
    struct input_event ev[16];
    while (read(l->evfd, ev, sizeof(ev)) > 0)
        ;   /* any event: look at the ring (it, not the events, is the truth) */
}

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* The next message, waiting up to ms; 1 if one came */
static int receive(struct link *l, char *buf, uint32_t *len, uint32_t *seq, int ms)
{
    double end = now_us() + ms * 1000.0;
    for (;;) {
        if (chan_get(l->rx, buf, len, seq))
            return 1;
        double left = end - now_us();
        if (left <= 0)
            return 0;
        wait_doorbell(l, (int)(left / 1000) + 1);
    }
}

static void drain_stale(struct link *l)
{
    char buf[CHAN_MSG_BYTES];
    uint32_t len, seq;
    int n = 0;
    while (chan_get(l->rx, buf, &len, &seq))
        n++;
    if (n)
        fprintf(stderr, "partita-chan: dropped %d old message%s\n", n, n == 1 ? "" : "s");
}

static int send_one(struct link *l, const char *text, uint32_t seq, int ms)
{
    uint32_t n = (uint32_t)strlen(text);
    if (n > CHAN_MSG_BYTES) {
        fprintf(stderr, "partita-chan: message cut to %u bytes\n", CHAN_MSG_BYTES);
        n = CHAN_MSG_BYTES;
    }
    double end = now_us() + ms * 1000.0;
    while (!chan_put(l->tx, text, n, seq)) {
        if (now_us() > end) {
            fprintf(stderr, "partita-chan: the ring stays full: is the peer running?\n");
            return -1;
        }
        ring(l);
        wait_doorbell(l, 10);
    }
    ring(l);
    return (int)n;
}

/* ---- commands ---- */

static int cmd_list(void)
{
    for (int i = 0; i < nchans; i++) {
        struct channel *c = &chans[i];
        printf("channel %u '%s': memory 0x%08x+0x%x, doorbell page 0x%08x, irq %u, member %u%s\n",
               c->id, c->label, c->mem, c->size, c->db, c->irq, c->member,
               c->read_only ? ", read-only" : "");
    }
    return nchans ? 0 : 1;
}

static int cmd_send(struct link *l, int argc, char **argv, int ms)
{
    int bad = 0;
    drain_stale(l);
    for (int i = 0; i < argc; i++) {
        uint32_t seq = l->tx->head + 1, len, rseq;
        char buf[CHAN_MSG_BYTES + 1];
        if (send_one(l, argv[i], seq, ms) < 0)
            return 1;
        if (!receive(l, buf, &len, &rseq, ms)) {
            printf("no reply to message %u within %d ms\n", seq, ms);
            bad++;
            continue;
        }
        buf[len] = 0;
        printf("reply %u: %s\n", rseq, buf);
        bad += rseq != seq;
    }
    return bad ? 1 : 0;
}

static int cmd_ping(struct link *l, unsigned int count, int ms)
{
    unsigned int ok = 0;
    double t0 = now_us(), worst = 0;
    drain_stale(l);
    for (unsigned int i = 0; i < count; i++) {
        char msg[CHAN_MSG_BYTES + 1], want[CHAN_MSG_BYTES + 1], buf[CHAN_MSG_BYTES + 1];
        uint32_t seq = l->tx->head + 1, len, rseq;
        snprintf(msg, sizeof(msg), "ping %u of %u from linux", i + 1, count);
        for (size_t k = 0; k <= strlen(msg); k++)
            want[k] = (char)(msg[k] >= 'a' && msg[k] <= 'z' ? msg[k] - 'a' + 'A' : msg[k]);
        double t = now_us();
        if (send_one(l, msg, seq, ms) < 0)
            break;
        if (!receive(l, buf, &len, &rseq, ms)) {
            printf("ping %u: no reply within %d ms\n", i + 1, ms);
            break;
        }
        buf[len] = 0;
        if (rseq != seq || strcmp(buf, want) != 0) {
            printf("ping %u: reply %u '%s', expected %u '%s'\n", i + 1, rseq, buf, seq, want);
            continue;
        }
        if (now_us() - t > worst)
            worst = now_us() - t;
        ok++;
    }
    double avg = count ? (now_us() - t0) / count : 0;
    printf("ping: %u of %u replies correct, %.0f us per round trip (worst %.0f us), "
           "doorbells by %s\n", ok, count, avg, worst, l->evfd >= 0 ? "interrupt" : "polling");
    return ok == count ? 0 : 1;
}

static int cmd_listen(struct link *l, unsigned int count)
{
    for (unsigned int i = 0; !count || i < count; i++) {
        char buf[CHAN_MSG_BYTES + 1];
        uint32_t len, seq;
        while (!receive(l, buf, &len, &seq, 1000))
            ;
        buf[len] = 0;
        printf("message %u: %s\n", seq, buf);
        fflush(stdout);
    }
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: partita-chan list\n"
                    "       partita-chan send [-c CHANNEL] [-t MS] TEXT...\n"
                    "       partita-chan ping [-c CHANNEL] [-n COUNT] [-t MS]\n"
                    "       partita-chan listen [-c CHANNEL] [-n COUNT]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *want = NULL;
    unsigned int count = 0;
    int ms = 2000, opt;
    if (argc < 2)
        usage();
    const char *cmd = argv[1];
    optind = 2;
    while ((opt = getopt(argc, argv, "c:n:t:")) != -1) {
        switch (opt) {
        case 'c': want = optarg; break;
        case 'n': count = (unsigned int)strtoul(optarg, NULL, 0); break;
        case 't': ms = atoi(optarg); break;
        default: usage();
        }
    }
    find_channels();
    if (strcmp(cmd, "list") == 0)
        return cmd_list();
    struct link l;
    link_open(&l, pick(want));
    if (strcmp(cmd, "send") == 0 && optind < argc)
        return cmd_send(&l, argc - optind, argv + optind, ms);
    if (strcmp(cmd, "ping") == 0)
        return cmd_ping(&l, count ? count : 10, ms);
    if (strcmp(cmd, "listen") == 0)
        return cmd_listen(&l, count);
    usage();
    return 2;
}
