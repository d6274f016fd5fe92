/*
 * partita: manage the other partitions from a control partition's Linux
 * (docs/control-partition.md), with Debian's kernel as it is.
 *
 * User space cannot issue an HVC (UNDEFINED at PL0) and the stock kernel
 * gets no new module, so the tool uses Partita's management page: the
 * /partita-manage node's reg (a register page and a data page, both
 * trapped and emulated by Partita), mapped through /dev/mem (allowed under
 * CONFIG_STRICT_DEVMEM: it is no System RAM and no driver claims it; Linux
 * maps it strongly-ordered and every access is an aligned word).  A call:
 * the arguments into ARG1..4, the buffer into the data page, the call's ID
 * into CALL; the results are in RET0..3 (include/partita/manage_abi.h).
 * Built statically with Debian's armhf cross compiler (guests/linux/build.sh).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <partita/manage_abi.h>

#define NODE "/sys/firmware/devicetree/base/partita-manage@90c0000"
#define PAGE_SIZE_DATA 4096u

static volatile uint32_t *regs;
static volatile uint32_t *data;
static uint32_t nguests, my_guests, my_rights;
static const char *cmd_name = "partita";

static const char usage[] =
    "usage: partita COMMAND [ARGS]\n"
    "Manage the other partitions of Partita from this control partition.\n\n"
    "  list                     every guest it may see: state, vCPU->pCPU, memory,\n"
    "                           uptime, exits, image (size, CRC-32)\n"
    "  start NAME               start a stopped, halted or crashed guest\n"
    "  stop NAME                stop a guest\n"
    "  restart NAME             stop, then start it again\n"
    "  stats NAME               its exits, traps by cause, interrupts\n"
    "  health NAME              the health monitor's records of it: what\n"
    "                           happened, when, and what was done\n"
    "  console NAME             print its recent output and what follows;\n"
    "                           send the lines typed (Ctrl-D ends)\n"
    "  console NAME --dump      print its recent output and exit\n"
    "  console NAME --send TEXT send TEXT and a carriage return as its input\n"
    "  load NAME IMAGE [--format raw|linux] [--initrd FILE] [--bootargs TEXT]\n"
    "                  [--load-offset N] [--entry-offset N]\n"
    "                           give a stopped guest a new image; its next start\n"
    "                           (and every restart) boots it\n"
    "  --help                   this text\n\n"
    "Exit status: 0 done, 1 refused or failed, 2 wrong usage.\n";

static const char *const state_names[] = { "stopped", "running", "halted", "crashed" };
static const char *const trap_names[PARTITA_TRAPS] = {
    "wfi", "cp15", "cp14", "hvc", "smc", "mmio", "abort", "pabt", "undef", "irq", "vfp",
};

/*
 * Both pages trap: every access must be one Partita can decode from its
 * syndrome, a plain LDR or STR without writeback (an LDM, LDRD or a
 * post-indexed form carries no syndrome and gets an external abort), so
 * not left to the compiler's choice.
 */
static inline uint32_t rd(volatile uint32_t *p)
{
    uint32_t v;
    __asm__ volatile("ldr %0, [%1]" : "=r"(v) : "r"(p) : "memory");
    return v;
}

static inline void wr(volatile uint32_t *p, uint32_t v)
{
    __asm__ volatile("str %0, [%1]" : : "r"(v), "r"(p) : "memory");
}

static void die(const char *fmt, const char *arg)
{
    fprintf(stderr, "partita: ");
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    exit(1);
}

static void map_page(void)
{
    uint32_t reg[2];
    int fd = open(NODE "/reg", O_RDONLY);
    if (fd < 0 || read(fd, reg, sizeof(reg)) != sizeof(reg))
        die("%s", "this partition is no control partition (its device tree has no "
                  "/partita-manage node)");
    close(fd);
    fd = open("/dev/mem", O_RDWR | O_SYNC);
    if (fd < 0)
        die("/dev/mem: %s (run as root)", strerror(errno));
    void *p = mmap(NULL, ntohl(reg[1]), PROT_READ | PROT_WRITE, MAP_SHARED, fd, ntohl(reg[0]));
    if (p == MAP_FAILED)
        die("cannot map the management page: %s", strerror(errno));
    regs = p;
    data = (volatile uint32_t *)((char *)p + PARTITA_MGPAGE_DATA);
    if (rd(&regs[PARTITA_MGPAGE_MAGIC / 4]) != PARTITA_MGPAGE_MAGIC_VALUE)
        die("%s", "the management page does not answer");
    if ((rd(&regs[PARTITA_MGPAGE_VERSION / 4]) >> 16) != PARTITA_MANAGE_ABI_MAJOR)
        die("%s", "the hypervisor speaks another management ABI");
}

/* one call; r[0] the result, r[1..3] its other results */
static int32_t call(uint32_t fn, uint32_t id, uint32_t len, uint32_t a4, uint32_t r[4])
{
    wr(&regs[PARTITA_MGPAGE_ARG(1) / 4], id);
    wr(&regs[PARTITA_MGPAGE_ARG(3) / 4], len);
    wr(&regs[PARTITA_MGPAGE_ARG(4) / 4], a4);
    wr(&regs[PARTITA_MGPAGE_CALL / 4], fn);
    for (int i = 0; i < 4; i++)
        r[i] = rd(&regs[PARTITA_MGPAGE_RET(i) / 4]);
    return (int32_t)r[0];
}

static void data_out(void *dst, uint32_t n)
{
    uint32_t w[PAGE_SIZE_DATA / 4];
    for (uint32_t i = 0; i < (n + 3) / 4; i++)
        w[i] = rd(&data[i]);
    memcpy(dst, w, n);
}

static void data_in(const void *src, uint32_t n)
{
    uint32_t w[PAGE_SIZE_DATA / 4] = { 0 };
    memcpy(w, src, n);
    for (uint32_t i = 0; i < (n + 3) / 4; i++)
        wr(&data[i], w[i]);
}

static int info_of(uint32_t id, struct partita_guest_info *i)
{
    uint32_t r[4];
    if (call(PARTITA_MG_INFO, id, sizeof(*i), 0, r) < (int32_t)sizeof(*i))
        return -1;
    data_out(i, sizeof(*i));
    i->name[sizeof(i->name) - 1] = '\0';
    return 0;
}

static uint32_t guest_id(const char *name)
{
    struct partita_guest_info i;
    for (uint32_t id = 0; id < nguests; id++)
        if (info_of(id, &i) == 0 && strcmp(i.name, name) == 0)
            return id;
    fprintf(stderr, "partita: %s: no guest '%s' this partition may act on "
            "(try 'partita list')\n", cmd_name, name);
    exit(1);
}

/* a refusal, as a command-line user reads it */
static int refused(int32_t rc, const char *name)
{
    const char *why;
    switch (rc) {
    case PARTITA_E_DENIED: why = "not allowed: this partition may not do that to '%s'"; break;
    case PARTITA_E_INVALID: why = "'%s': invalid request"; break;
    case PARTITA_E_FIT: why = "the image does not fit guest '%s' (its memory or format; "
                              "the console says which)"; break;
    case PARTITA_E_BUSY: why = "the hypervisor is busy; '%s' unchanged, try again"; break;
    case PARTITA_E_ADDRESS: why = "'%s': bad buffer"; break;
    default: why = "'%s': not supported"; break;
    }
    fprintf(stderr, "partita: %s: ", cmd_name);
    fprintf(stderr, why, name);
    fputc('\n', stderr);
    return 1;
}

static int cmd_list(void)
{
    printf("%-12s %-8s %-16s %-22s %8s %10s  %s\n", "NAME", "STATE", "VCPU->PCPU", "MEMORY",
           "UPTIME", "EXITS", "IMAGE");
    for (uint32_t id = 0; id < nguests; id++) {
        struct partita_guest_info i;
        if (info_of(id, &i) != 0)
            continue;       /* not one of its guests */
        char map[64] = "", mem[32];
        int n = 0;
        for (uint32_t v = 0; v < i.nvcpus && v < PARTITA_INFO_VCPUS; v++)
            n += snprintf(map + n, sizeof(map) - n, "%s%u->%u", v ? "," : "", v, i.pcpu[v]);
        uint64_t base = (uint64_t)i.mem_base_hi << 32 | i.mem_base_lo;
        uint64_t size = (uint64_t)i.mem_size_hi << 32 | i.mem_size_lo;
        snprintf(mem, sizeof(mem), "%lluM@0x%08llx", (unsigned long long)(size >> 20),
                 (unsigned long long)base);
        printf("%-12s %-8s %-16s %-22s %7us %10llu  %u bytes crc32 0x%08x%s\n", i.name,
               i.state < 4 ? state_names[i.state] : "?", map, mem, i.uptime_s,
               (unsigned long long)((uint64_t)i.exits_hi << 32 | i.exits_lo), i.image_size,
               i.image_crc32, i.image_loaded ? " (loaded)" : "");
    }
    return 0;
}

static int cmd_life(uint32_t fn, const char *verb, const char *name)
{
    uint32_t r[4];
    int32_t rc = call(fn, guest_id(name), 0, 0, r);
    if (rc == PARTITA_E_STATE) {
        fprintf(stderr, "partita: %s: guest '%s' is %s\n", verb, name,
                fn == PARTITA_MG_STOP ? "not running" :
                fn == PARTITA_MG_START ? "already running (or being loaded)" : "being loaded");
        return 1;
    }
    if (rc < 0)
        return refused(rc, name);
    printf("guest '%s' %s\n", name, fn == PARTITA_MG_START ? "started" :
           fn == PARTITA_MG_STOP ? "stopped" : "restarted");
    return 0;
}

static int cmd_stats(const char *name)
{
    struct partita_guest_stats s;
    uint32_t r[4];
    int32_t rc = call(PARTITA_MG_STATS, guest_id(name), sizeof(s), 0, r);
    if (rc < 0)
        return refused(rc, name);
    data_out(&s, sizeof(s));
    printf("guest '%s': started %u times, %u aborts injected, %u management calls refused\n",
           name, s.starts, s.aborts, s.denied);
    for (uint32_t v = 0; v < s.nvcpus && v < PARTITA_INFO_VCPUS; v++) {
        struct partita_vcpu_stats *c = &s.vcpu[v];
        printf("  vcpu%u on cpu%u exits %llu:", v, c->pcpu,
               (unsigned long long)((uint64_t)c->exits_hi << 32 | c->exits_lo));
        for (int t = 0; t < PARTITA_TRAPS; t++)
            printf(" %s %u", trap_names[t], c->traps[t]);
        printf("\n  vcpu%u interrupts injected %u, maintenance %u, SGIs sent %u, "
               "list register overflows %u\n", v, c->injected, c->maintenance, c->sgis_sent,
               c->lr_overflows);
        if (c->slice_us)
            printf("  vcpu%u on shared CPU %u: slice %u us, ran %u ms, %u turns\n", v, c->pcpu,
                   c->slice_us, c->run_ms, c->turns);
    }
    for (uint32_t k = 0; k < s.nchannels && k < PARTITA_STATS_CHANNELS; k++)
        printf("  channel %u: doorbells rung %u, raised here %u\n", s.channel[k].id,
               s.channel[k].rung, s.channel[k].raised);
    /* a hypervisor of ABI 1.1 gives no more than 1.1's fields: ndisks 0 */
    if ((uint32_t)rc < sizeof(s))
        s.ndisks = 0;
    for (uint32_t k = 0; k < s.ndisks && k < PARTITA_STATS_DISKS; k++) {
        struct partita_disk_stats *d = &s.disk[k];
        d->name[sizeof(d->name) - 1] = 0;
        if (d->role == PARTITA_DISK_DRIVER)
            printf("  disk '%s' (its driver): requests given %u, answers %u, wrong answers %u, "
                   "given again to a next life %u, waiting %u\n", d->name, d->requests,
                   d->answers, d->bad_answers, d->requeued, d->waiting);
        else
            printf("  disk '%s': requests %u, completed %u, read %llu bytes, written %llu "
                   "bytes, I/O errors %u, wrong answers %u, dropped %u, malformed rings %u\n",
                   d->name, d->requests, d->answers,
                   (unsigned long long)((uint64_t)d->read_hi << 32 | d->read_lo),
                   (unsigned long long)((uint64_t)d->written_hi << 32 | d->written_lo),
                   d->ioerrors, d->bad_answers, d->dropped, d->errors);
    }
    return 0;
}

/* its output from *pos on, to stdout; <0 on a refusal */
static int32_t console_drain(uint32_t id, uint32_t *pos)
{
    for (;;) {
        uint32_t r[4];
        char buf[PAGE_SIZE_DATA];
        int32_t rc = call(PARTITA_MG_CONSOLE_READ, id, sizeof(buf), *pos, r);
        if (rc <= 0)
            return rc;
        data_out(buf, (uint32_t)rc);
        if (r[2])
            printf("[partita: %u characters lost]\n", r[2]);
        fwrite(buf, 1, (size_t)rc, stdout);
        fflush(stdout);
        *pos = r[1];
    }
}

static int32_t console_send(uint32_t id, const char *text, size_t n)
{
    while (n) {
        uint32_t r[4], k = n > 256 ? 256 : (uint32_t)n;
        data_in(text, k);
        int32_t rc = call(PARTITA_MG_CONSOLE_WRITE, id, k, 0, r);
        if (rc < 0)
            return rc;
        if (rc == 0)
            usleep(10000);      /* its input buffer is full: let it read */
        text += rc;
        n -= (size_t)rc;
    }
    return 0;
}

static const char *const health_events[] = {
    "crash", "watchdog", "abort-storm", "budget-overrun", "deadline-miss",
};
static const char *const health_actions[] = {
    "none", "log", "restart", "stop", "stop-system", "switch-schedule",
};
#define NAME_OF(t, i) ((i) < sizeof(t) / sizeof((t)[0]) ? (t)[i] : "?")

/* its records, as many pages of them as there are, oldest first */
static int cmd_health(const char *name)
{
    uint32_t id = guest_id(name), seq = 0, r[4];
    for (;;) {
        static uint32_t page[PAGE_SIZE_DATA / 4];
        int32_t rc = call(PARTITA_MG_HEALTH, id, PAGE_SIZE_DATA, seq, r);
        if (rc < (int32_t)sizeof(struct partita_health))
            return refused(rc < 0 ? rc : PARTITA_E_INVALID, name);
        data_out(page, (uint32_t)rc);
        const struct partita_health *h = (const struct partita_health *)page;
        const struct partita_health_record *rec = (const void *)(h + 1);
        if (seq == 0 && h->system_stopped)
            printf("system stopped at %.6f s by an event of guest %u: %s\n",
                   ((double)((uint64_t)h->stop_ticks_hi << 32 | h->stop_ticks_lo)) / h->freq,
                   h->stop_guest, NAME_OF(health_events, h->stop_event));
        for (uint32_t i = 0; i < h->nrecords; i++)
            printf("#%u %.6f s %s: %s (%u, 0x%x): %s\n", rec[i].seq,
                   ((double)((uint64_t)rec[i].ticks_hi << 32 | rec[i].ticks_lo)) / h->freq,
                   name, NAME_OF(health_events, rec[i].event), rec[i].count, rec[i].arg,
                   NAME_OF(health_actions, rec[i].action));
        if (!h->nrecords || h->next_seq == seq) {
            printf("%u records of '%s' dropped (rate limit)\n", h->dropped, name);
            return 0;
        }
        seq = h->next_seq;
    }
}

static int cmd_console(int argc, char **argv)
{
    const char *name = argv[0];
    uint32_t id = guest_id(name), pos = 0;
    int32_t rc;
    if (argc >= 3 && strcmp(argv[1], "--send") == 0) {
        char line[1024];
        snprintf(line, sizeof(line), "%s\r", argv[2]);
        rc = console_send(id, line, strlen(line));
        return rc < 0 ? (rc == PARTITA_E_STATE ? (fprintf(stderr, "partita: console: guest "
                         "'%s' is not running\n", name), 1) : refused(rc, name)) : 0;
    }
    if ((rc = console_drain(id, &pos)) < 0)
        return refused(rc, name);
    if (argc >= 2 && strcmp(argv[1], "--dump") == 0)
        return 0;
    for (;;) {
        struct pollfd p = { 0, POLLIN, 0 };
        if (poll(&p, 1, 50) > 0) {
            char buf[256];
            ssize_t n = read(0, buf, sizeof(buf));
            if (n <= 0)
                return 0;
            for (ssize_t i = 0; i < n; i++)
                if (buf[i] == '\n')
                    buf[i] = '\r';
            if ((rc = console_send(id, buf, (size_t)n)) < 0)
                return refused(rc, name);
        }
        if ((rc = console_drain(id, &pos)) < 0)
            return refused(rc, name);
    }
}

static uint8_t *read_file(const char *path, uint32_t *size)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f || fstat(fileno(f), &st) != 0)
        die("cannot read %s", path);
    uint8_t *buf = malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size)
        die("cannot read %s", path);
    fclose(f);
    *size = (uint32_t)st.st_size;
    return buf;
}

/* the stream: header, kernel, initrd; in pieces of a data page */
static int load_stream(uint32_t id, const char *name, const uint8_t *parts[3],
                       const uint32_t sizes[3])
{
    uint32_t total = sizes[0] + sizes[1] + sizes[2], off = 0;
    static uint8_t piece[PAGE_SIZE_DATA];
    while (off < total) {
        uint32_t n = 0;
        for (uint32_t at = off; n < sizeof(piece) && at < total; ) {
            int k = at < sizes[0] ? 0 : at < sizes[0] + sizes[1] ? 1 : 2;
            uint32_t start = k == 0 ? 0 : k == 1 ? sizes[0] : sizes[0] + sizes[1];
            uint32_t take = sizes[k] - (at - start);
            if (take > sizeof(piece) - n)
                take = sizeof(piece) - n;
            memcpy(piece + n, parts[k] + (at - start), take);
            n += take;
            at += take;
        }
        data_in(piece, n);
        uint32_t r[4];
        int32_t rc = call(PARTITA_MG_LOAD, id, n, off, r);
        if (rc == PARTITA_E_STATE) {
            fprintf(stderr, "partita: load: guest '%s' is running: stop it first\n", name);
            return 1;
        }
        if (rc < 0)
            return refused(rc, name);
        off += n;
        if ((uint32_t)rc & PARTITA_LOAD_DONE)
            break;
    }
    printf("guest '%s': loaded %u bytes; 'partita start %s' boots it\n", name,
           sizes[1] + sizes[2], name);
    return 0;
}

static int cmd_load(int argc, char **argv)
{
    const char *name = argv[0], *image = NULL, *initrd = NULL;
    struct partita_load h;
    memset(&h, 0, sizeof(h));
    h.magic = PARTITA_LOAD_MAGIC;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (opt[0] != '-' && !image) {
            image = opt;
            continue;
        }
        if (!val) {
            fprintf(stderr, "partita: load: %s needs a value\n%s", opt, usage);
            return 2;
        }
        i++;
        if (strcmp(opt, "--initrd") == 0)
            initrd = val;
        else if (strcmp(opt, "--bootargs") == 0 && strlen(val) < sizeof(h.bootargs))
            strcpy(h.bootargs, val);
        else if (strcmp(opt, "--format") == 0 && (!strcmp(val, "raw") || !strcmp(val, "linux")))
            h.format = strcmp(val, "linux") == 0;
        else if (strcmp(opt, "--load-offset") == 0)
            h.load_offset = (uint32_t)strtoul(val, NULL, 0);
        else if (strcmp(opt, "--entry-offset") == 0)
            h.entry_offset = (uint32_t)strtoul(val, NULL, 0);
        else {
            fprintf(stderr, "partita: load: bad option %s %s\n%s", opt, val, usage);
            return 2;
        }
    }
    if (!image) {
        fprintf(stderr, "partita: load: which image?\n%s", usage);
        return 2;
    }
    uint32_t id = guest_id(name);
    const uint8_t *parts[3];
    uint32_t sizes[3] = { sizeof(h), 0, 0 };
    parts[0] = (const uint8_t *)&h;
    parts[1] = read_file(image, &sizes[1]);
    parts[2] = initrd ? read_file(initrd, &sizes[2]) : (const uint8_t *)"";
    if (!h.entry_offset)
        h.entry_offset = h.load_offset;
    h.kernel_size = sizes[1];
    h.initrd_size = sizes[2];
    if (!sizes[1])
        die("%s: empty image", image);
    return load_stream(id, name, parts, sizes);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    cmd_name = argv[1];
    static const char *const one_name[] = { "start", "stop", "restart", "stats", "console",
                                            "load", "health", NULL };
    int known = strcmp(argv[1], "list") == 0;
    for (int i = 0; one_name[i]; i++)
        known |= strcmp(argv[1], one_name[i]) == 0 && argc >= 3;
    if (!known) {
        fprintf(stderr, "partita: %s: unknown command or missing NAME\n%s", argv[1], usage);
        return 2;
    }
    map_page();
    uint32_t r[4];
    if (call(PARTITA_MG_VERSION, 0, 0, 0, r) < 0)
        die("%s", "the hypervisor refuses management calls from this partition");
    my_rights = r[1];
    nguests = r[2];
    my_guests = r[3];
    if (strcmp(argv[1], "list") == 0)
        return cmd_list();
    if (strcmp(argv[1], "start") == 0)
        return cmd_life(PARTITA_MG_START, "start", argv[2]);
    if (strcmp(argv[1], "stop") == 0)
        return cmd_life(PARTITA_MG_STOP, "stop", argv[2]);
    if (strcmp(argv[1], "restart") == 0)
        return cmd_life(PARTITA_MG_RESTART, "restart", argv[2]);
    if (strcmp(argv[1], "stats") == 0)
        return cmd_stats(argv[2]);
    if (strcmp(argv[1], "health") == 0)
        return cmd_health(argv[2]);
    if (strcmp(argv[1], "console") == 0)
        return cmd_console(argc - 2, argv + 2);
    return cmd_load(argc - 2, argv + 2);
}
