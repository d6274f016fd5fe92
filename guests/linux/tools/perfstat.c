/*
 * perfstat: what `perf stat -e cycles,instructions` shows, for a loop of
 * N iterations (argument, default 1000000): Linux's PMU driver counting
 * on the guest's own PMU through perf_event_open.  Prints
 * "cycles C instructions I" and exits 0 when both counters opened.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int open_counter(uint64_t config)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.type = PERF_TYPE_HARDWARE;
    a.size = sizeof(a);
    a.config = config;
    a.disabled = 1;
    return (int)syscall(__NR_perf_event_open, &a, 0, -1, -1, 0);
}

int main(int argc, char **argv)
{
    unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000000;
    int fd[2] = { open_counter(PERF_COUNT_HW_CPU_CYCLES),
                  open_counter(PERF_COUNT_HW_INSTRUCTIONS) };
    if (fd[0] < 0 || fd[1] < 0) {
        perror("perf_event_open");
        return 1;
    }
    for (int i = 0; i < 2; i++)
        ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
    for (volatile unsigned long i = 0; i < n; i++)
        ;
    for (int i = 0; i < 2; i++)
        ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
    uint64_t v[2] = { 0, 0 };
    for (int i = 0; i < 2; i++)
        if (read(fd[i], &v[i], sizeof(v[i])) != sizeof(v[i]))
            return 1;
    printf("cycles %llu instructions %llu\n", (unsigned long long)v[0],
           (unsigned long long)v[1]);
    return 0;
}
