/*
 * What newlib and the Debian libfdt expect from their environment.  The
 * hypervisor has no heap: malloc fails, so nothing in HYP paths may use it.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/types.h>
#include "console.h"
#include "hyp.h"

/* libfdt:armhf is built with -fstack-protector */
uintptr_t __stack_chk_guard = 0x5a17a5c3;

void __stack_chk_fail(void)
{
    console_printf("\n*** stack smashing detected in the hypervisor\n");
    hyp_halt();
}

void *_sbrk(ptrdiff_t incr)
{
    errno = ENOMEM;
    return (void *)-1;
}

void abort(void)
{
    console_printf("\n*** abort() called in the hypervisor\n");
    hyp_halt();
}

int _write(int fd, const char *buf, int len) { return -1; }
int _read(int fd, char *buf, int len) { return -1; }
int _close(int fd) { return -1; }
int _lseek(int fd, int off, int whence) { return -1; }
int _fstat(int fd, void *st) { return -1; }
int _isatty(int fd) { return 0; }
int _getpid(void) { return 1; }
int _kill(int pid, int sig) { return -1; }
void _exit(int code) { hyp_halt(); }
