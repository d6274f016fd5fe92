/*
 * partita-blkd: a Linux driver partition's side of Partita's disks
 * (docs/disks.md), in user space, with Debian's kernel as it is.
 *
 *   partita-blkd [-d DISK] [-q]
 *
 * Serves every frontend of each disk this guest drives (or of DISK only:
 * its label or index) from its backing store: the frontend's `backing`
 * name, a file or a block device here, opened read-write (a missing file
 * is created, of the disk's capacity) or read-only for a read-only disk.
 * Reads are pread, writes pwrite (O_DSYNC), FLUSH is fsync.  It prints a line per
 * disk and frontend as it starts (-q: errors only) and runs until killed.
 *
 * How it reaches the queue (include/partita/blk_queue.h):
 *   memory      /dev/mem, mmap of the "queue" reg of the partita,disk-driver
 *               node.  CONFIG_STRICT_DEVMEM allows it: Partita leaves the
 *               queue out of /memory and makes it a no-map reserved-memory
 *               region, so it is no System RAM, and no driver claims it.
 *               Opened without O_SYNC: where Linux has a memory map for the
 *               page it maps it cacheable, as Partita sees it; else
 *               strongly-ordered, where every access here is aligned.
 *   done        a store to the done page (the "done" reg), also through
 *               /dev/mem: Partita traps it as PARTITA_HC_BLK_DONE, which
 *               user space cannot issue.
 *   requests    the disk's interrupt is an interrupt-only gpio-keys button
 *               of "partita-doorbells": a key press on /dev/input/eventN,
 *               which poll() waits for; without evdev the slots are looked
 *               at every millisecond instead.
 * Nothing read from the queue is trusted: the header's counts are bounded
 * by what the node's reg holds, and a slot's frontend, type, sector and
 * length are checked before any I/O (a bad one is answered IOERR).
 * Built statically with Debian's armhf cross compiler (guests/linux/build.sh).
 */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/input.h>
#include <sys/mman.h>
#include <partita/blk_queue.h>
#include "partita-tools.h"

#define SECTOR      512u
#define MAX_DISKS   4
#define WAIT_MS     100     /* a look at every slot at least this often */
#define DONE_TRIES  64      /* stores per batch until Partita took every answer */

struct frontend {
    int fd;                 /* -1: no store: every request IOERR */
    uint64_t capacity;      /* sectors */
    int read_only;
};

struct disk {
    char label[64];
    uint32_t index, queue, size, done;
    volatile uint8_t *q;
    volatile uint32_t *db;
    uint32_t generation, nslots, nfe;
    struct frontend fe[PARTITA_BLKQ_FRONTENDS_MAX];
    unsigned long served, refused;
};

static struct disk disks[MAX_DISKS];
static int ndisks, quiet;

/* ---- the device tree, as the kernel exports it ---- */

static void find_disks(const char *want)
{
    DIR *d = opendir(DT_BASE);
    struct dirent *e;
    if (!d) {
        perror("partita-blkd: " DT_BASE);
        exit(1);
    }
    while ((e = readdir(d)) && ndisks < MAX_DISKS) {
        char compat[64] = "", index[16];
        struct disk *k = &disks[ndisks];
        uint32_t reg[4];
        if (strncmp(e->d_name, "disk-driver@", 12) != 0 ||
            dt_read(e->d_name, "compatible", compat, sizeof(compat) - 1) < 0 ||
            strcmp(compat, "partita,disk-driver") != 0)
            continue;
        memset(k, 0, sizeof(*k));
        if (dt_cells(e->d_name, "partita,disk", &k->index, 1) != 1 ||
            dt_read(e->d_name, "label", k->label, sizeof(k->label) - 1) < 0) {
            fprintf(stderr, "partita-blkd: %s: incomplete node, skipped\n", e->d_name);
            continue;
        }
        snprintf(index, sizeof(index), "%u", k->index);
        if (want && strcmp(want, k->label) != 0 && strcmp(want, index) != 0)
            continue;
        if (dt_cells(e->d_name, "reg", reg, 4) != 4) {
            fprintf(stderr, "partita-blkd: disk '%s' has no done page: give it `done` in "
                    "the configuration (docs/disks.md)\n", k->label);
            continue;
        }
        k->queue = reg[0];
        k->size = reg[1];
        k->done = reg[2];
        if (k->size < PARTITA_BLKQ_DATA_OFF + PARTITA_BLKQ_DATA_SIZE) {
            fprintf(stderr, "partita-blkd: disk '%s': a queue of %u bytes holds no slot\n",
                    k->label, k->size);
            continue;
        }
        ndisks++;
    }
    closedir(d);
}

static volatile void *map(int fd, uint32_t pa, uint32_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pa);
    if (p == MAP_FAILED) {
        fprintf(stderr, "partita-blkd: mmap /dev/mem 0x%08x+0x%x: %s\n", pa, size,
                strerror(errno));
        exit(1);
    }
    return p;
}

/* ---- the header: read word by word, bounded ---- */

static uint32_t rd32(const volatile void *p)
{
    return *(const volatile uint32_t *)p;
}

static uint64_t rd64(const volatile void *p)
{
    const volatile uint32_t *w = p;
    return w[0] | (uint64_t)w[1] << 32;
}

static void close_stores(struct disk *k)
{
    for (uint32_t f = 0; f < k->nfe; f++)
        if (k->fe[f].fd >= 0)
            close(k->fe[f].fd);
    k->nfe = 0;
}

/* a frontend's store: a missing file of a writable disk is created.
 * O_DSYNC: a write is on the store when it is answered, so a restart of
 * this partition (its page cache lost) loses nothing a frontend was told
 * is written, flushed or not */
static int open_store(const struct disk *k, uint32_t f, const char *name, struct frontend *fe)
{
    int fd = open(name, fe->read_only ? O_RDONLY : O_RDWR | O_DSYNC);
    if (fd < 0 && errno == ENOENT && !fe->read_only) {
        fd = open(name, O_RDWR | O_DSYNC | O_CREAT | O_EXCL, 0600);
        if (fd >= 0 && ftruncate(fd, (off_t)(fe->capacity * SECTOR)) != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0)
        fprintf(stderr, "partita-blkd: disk '%s': frontend %u: %s: %s (its requests fail)\n",
                k->label, f, name, strerror(errno));
    else if (!quiet)
        printf("partita-blkd: disk '%s': frontend %u: %s, %llu sectors%s\n", k->label, f, name,
               (unsigned long long)fe->capacity, fe->read_only ? ", read-only" : "");
    return fd;
}

/* The header Partita wrote at this life's start: 1 when it is there */
static int read_header(struct disk *k)
{
    const volatile struct partita_blkq_header *h = (const volatile void *)k->q;
    if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != PARTITA_BLKQ_MAGIC ||
        rd32(&h->version) != PARTITA_BLKQ_VERSION)
        return 0;
    uint32_t most = (k->size - PARTITA_BLKQ_DATA_OFF) / PARTITA_BLKQ_DATA_SIZE;
    close_stores(k);
    k->generation = rd32(&h->generation);
    k->nslots = rd32(&h->nslots);
    if (k->nslots > most || k->nslots > PARTITA_BLKQ_SLOTS_MAX)
        k->nslots = most < PARTITA_BLKQ_SLOTS_MAX ? most : PARTITA_BLKQ_SLOTS_MAX;
    uint32_t nfe = rd32(&h->nfrontends);
    k->nfe = nfe > PARTITA_BLKQ_FRONTENDS_MAX ? PARTITA_BLKQ_FRONTENDS_MAX : nfe;
    if (!quiet)
        printf("partita-blkd: disk '%s': generation %u, %u slots, %u frontends\n", k->label,
               k->generation, k->nslots, k->nfe);
    for (uint32_t f = 0; f < k->nfe; f++) {
        char name[PARTITA_BLKQ_BACKING_MAX];
        struct frontend *fe = &k->fe[f];
        for (uint32_t i = 0; i < sizeof(name); i++)
            name[i] = h->fe[f].backing[i];
        name[sizeof(name) - 1] = 0;
        fe->capacity = rd64(&h->fe[f].capacity);
        fe->read_only = rd32(&h->fe[f].read_only) != 0;
        fe->fd = name[0] ? open_store(k, f, name, fe) : -1;
    }
    fflush(stdout);
    return 1;
}

/* ---- requests ---- */

static volatile struct partita_blkq_slot *slot_at(const struct disk *k, uint32_t i)
{
    return (volatile struct partita_blkq_slot *)(k->q + PARTITA_BLKQ_SLOTS_OFF) + i;
}

/* read or write len bytes at off, whole; the part of a read past the end
 * of a file is zeros; 0 on success */
static int whole(int fd, int write, uint8_t *buf, uint32_t len, uint64_t off)
{
    uint32_t done = 0;
    while (done < len) {
        ssize_t n = write ? pwrite(fd, buf + done, len - done, (off_t)(off + done))
                          : pread(fd, buf + done, len - done, (off_t)(off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            if (write)
                return -1;
            memset(buf + done, 0, len - done);
            return 0;
        }
        done += (uint32_t)n;
    }
    return 0;
}

/* slot i's request, checked, served; its answer's length, *status set */
static uint32_t serve(struct disk *k, uint32_t i, uint32_t *status)
{
    volatile struct partita_blkq_slot *s = slot_at(k, i);
    uint32_t f = s->frontend, type = s->type, len = s->len;
    uint64_t sector = rd64(&s->sector);
    uint8_t *data = (uint8_t *)(uintptr_t)(k->q + PARTITA_BLKQ_DATA_OFF +
                                           (size_t)i * PARTITA_BLKQ_DATA_SIZE);
    *status = PARTITA_BLKQ_S_IOERR;
    if (f >= k->nfe || k->fe[f].fd < 0)
        return 0;
    const struct frontend *fe = &k->fe[f];
    if (type == PARTITA_BLKQ_T_FLUSH) {
        if (fe->read_only || fsync(fe->fd) == 0)
            *status = PARTITA_BLKQ_S_OK;
        return 0;
    }
    if ((type != PARTITA_BLKQ_T_IN && type != PARTITA_BLKQ_T_OUT) ||
        len > PARTITA_BLKQ_DATA_SIZE || len % SECTOR || sector > fe->capacity ||
        len / SECTOR > fe->capacity - sector ||
        (type == PARTITA_BLKQ_T_OUT && fe->read_only))
        return 0;
    if (whole(fe->fd, type == PARTITA_BLKQ_T_OUT, data, len, sector * SECTOR) != 0)
        return 0;
    *status = PARTITA_BLKQ_S_OK;
    return type == PARTITA_BLKQ_T_IN ? len : 0;
}

/* every slot holding a request served; the number answered */
static unsigned int scan(struct disk *k)
{
    unsigned int n = 0;
    const volatile struct partita_blkq_header *h = (const volatile void *)k->q;
    if (rd32(&h->generation) != k->generation || !k->nslots) {
        /* a new header: this guest's life started again under us */
        if (!read_header(k))
            return 0;
    }
    for (uint32_t i = 0; i < k->nslots; i++) {
        volatile struct partita_blkq_slot *s = slot_at(k, i);
        if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != PARTITA_BLKQ_REQUEST)
            continue;
        uint32_t status, len = serve(k, i, &status);
        if (status == PARTITA_BLKQ_S_OK)
            k->served++;
        else
            k->refused++;
        s->len = len;
        s->status = status;
        /* the data, len and status before the state that hands it back */
        __atomic_store_n(&s->state, PARTITA_BLKQ_DONE, __ATOMIC_RELEASE);
        n++;
    }
    return n;
}

/* tell Partita; again while it has not taken every answer (a call takes
 * a bounded number) */
static void done(struct disk *k)
{
    for (int t = 0; t < DONE_TRIES; t++) {
        int left = 0;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        k->db[PARTITA_BLKQ_DONE_REG / 4] = 1;
        for (uint32_t i = 0; i < k->nslots && !left; i++)
            left = __atomic_load_n(&slot_at(k, i)->state, __ATOMIC_ACQUIRE) ==
                   PARTITA_BLKQ_DONE;
        if (!left)
            return;
    }
}

static void wait_requests(int evfd)
{
    if (evfd < 0) {
        usleep(1000);
        return;
    }
    struct pollfd p = { evfd, POLLIN, 0 };
    if (poll(&p, 1, WAIT_MS) <= 0)
        return;
    struct input_event ev[16];
    while (read(evfd, ev, sizeof(ev)) > 0)
        ;   /* any event: look at every slot (they, not the events, are the truth) */
}

int main(int argc, char **argv)
{
    const char *want = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "d:q")) != -1) {
        switch (opt) {
        case 'd': want = optarg; break;
        case 'q': quiet = 1; break;
        default:
            fprintf(stderr, "usage: partita-blkd [-d DISK] [-q]\n");
            return 2;
        }
    }
    find_disks(want);
    if (!ndisks) {
        fprintf(stderr, "partita-blkd: no disk%s%s to drive in the device tree\n",
                want ? " " : "", want ? want : "");
        return 1;
    }
    int fd = open("/dev/mem", O_RDWR);
    if (fd < 0) {
        perror("partita-blkd: /dev/mem");
        return 1;
    }
    for (int d = 0; d < ndisks; d++) {
        disks[d].q = map(fd, disks[d].queue, disks[d].size);
        disks[d].db = map(fd, disks[d].done, 0x1000);
    }
    close(fd);
    int evfd = open_doorbells();
    if (!quiet)
        printf("partita-blkd: %d disk%s, requests by %s\n", ndisks, ndisks == 1 ? "" : "s",
               evfd >= 0 ? "interrupt" : "polling");
    fflush(stdout);
    /* requests may be waiting already: every slot is looked at first */
    for (;;) {
        for (int d = 0; d < ndisks; d++)
            if (scan(&disks[d]))
                done(&disks[d]);
        wait_requests(evfd);
    }
}
