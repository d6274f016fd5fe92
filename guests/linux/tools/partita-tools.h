/*
 * What the Linux tools that reach Partita from user space share
 * (partita-chan.c, partita-blkd.c): the device tree as the kernel exports
 * it, and the event device of Partita's interrupt-only gpio-keys buttons
 * ("partita-doorbells": channels' doorbells and disks' requests).
 */
#ifndef PARTITA_TOOLS_H
#define PARTITA_TOOLS_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#define DT_BASE   "/sys/firmware/devicetree/base"

/* property prop of node (a path under DT_BASE): its bytes, at most n */
static inline int dt_read(const char *node, const char *prop, void *buf, size_t n)
{
    char path[640];
    snprintf(path, sizeof(path), "%s/%s/%s", DT_BASE, node, prop);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t r = read(fd, buf, n);
    close(fd);
    return (int)r;
}

/* up to n big-endian cells of prop, in host order: how many were there */
static inline int dt_cells(const char *node, const char *prop, uint32_t *v, int n)
{
    int r = dt_read(node, prop, v, (size_t)n * 4);
    if (r < 0)
        return -1;
    for (int i = 0; i < r / 4; i++)
        v[i] = ntohl(v[i]);
    return r / 4;
}

/* the event device whose input device is named partita-doorbells, opened
 * non-blocking, or -1 */
static inline int open_doorbells(void)
{
    DIR *d = opendir("/sys/class/input");
    struct dirent *e;
    int fd = -1;
    while (d && (e = readdir(d)) && fd < 0) {
        char path[300], name[64] = "";
        if (strncmp(e->d_name, "event", 5) != 0)
            continue;
        snprintf(path, sizeof(path), "/sys/class/input/%s/device/name", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(name, sizeof(name), f) && strncmp(name, "partita-doorbells", 17) == 0) {
            snprintf(path, sizeof(path), "/dev/input/%s", e->d_name);
            fd = open(path, O_RDONLY | O_NONBLOCK);
        }
        fclose(f);
    }
    if (d)
        closedir(d);
    return fd;
}

#endif
