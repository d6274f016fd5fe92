/*
 * hwbp: a hardware watchpoint and breakpoint set through ptrace, as gdb
 * does for `watch` and `hbreak`: Linux's hw_breakpoint driver
 * on the guest's own debug registers.  A child stops; its parent arms a
 * store watchpoint on a variable and a breakpoint on a function
 * (PTRACE_SETHBPREGS, arch/arm/kernel/ptrace.c) and checks that each
 * fires, at its address, as a SIGTRAP; the child then finishes with the
 * store done.  Prints one line per step and "hwbp: ok", exit 0.
 * Built -marm: the breakpoint is on an ARM instruction, 4 bytes.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define PTRACE_GETHBPREGS 29
#define PTRACE_SETHBPREGS 30
/* arch/arm/include/asm/hw_breakpoint.h: encode_ctrl_reg() */
#define CTRL(len, type, enabled) (((len) << 5) | ((type) << 3) | (2u << 1) | (enabled))
#define LEN_4       0xfu
#define EXECUTE     0u
#define STORE       2u

static volatile int var;

__attribute__((noinline)) static int marker(int x)
{
    return x + 1;
}

static int (*volatile call_marker)(int) = marker;

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void set(pid_t pid, long num, unsigned long val)
{
    if (ptrace(PTRACE_SETHBPREGS, pid, (void *)num, &val) != 0)
        die("PTRACE_SETHBPREGS");
}

/* let the child run to its next SIGTRAP; the address it reports */
static unsigned long run_to_trap(pid_t pid, const char *what)
{
    int status;
    siginfo_t si;
    if (ptrace(PTRACE_CONT, pid, 0, 0) != 0)
        die("PTRACE_CONT");
    if (waitpid(pid, &status, 0) != pid)
        die("waitpid");
    if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
        fprintf(stderr, "hwbp: no %s: status 0x%x\n", what, status);
        exit(1);
    }
    if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) != 0)
        die("PTRACE_GETSIGINFO");
    return (unsigned long)si.si_addr;
}

int main(void)
{
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        raise(SIGSTOP);
        var = 5;
        call_marker(1);
        _exit(var == 5 ? 0 : 2);
    }
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
        die("waitpid");
    unsigned long info = 0;
    if (ptrace(PTRACE_GETHBPREGS, pid, 0, &info) != 0)
        die("PTRACE_GETHBPREGS");
    printf("hwbp: debug arch %lu, %lu breakpoints, %lu watchpoints\n", info >> 24,
           info & 0xff, (info >> 8) & 0xff);
    if ((info & 0xff) == 0 || ((info >> 8) & 0xff) == 0) {
        fprintf(stderr, "hwbp: no hardware breakpoints or watchpoints\n");
        return 1;
    }
    set(pid, -1, (unsigned long)&var);                  /* WVR0 */
    set(pid, -2, CTRL(LEN_4, STORE, 1));                 /* WCR0 */
    set(pid, 1, (unsigned long)marker);                 /* BVR0 */
    set(pid, 2, CTRL(LEN_4, EXECUTE, 1));                /* BCR0 */

    unsigned long at = run_to_trap(pid, "watchpoint");
    printf("hwbp: watchpoint hit at 0x%lx (var at 0x%lx)\n", at, (unsigned long)&var);
    if (at != (unsigned long)&var)
        return 1;
    set(pid, -2, CTRL(LEN_4, STORE, 0));                 /* off: the store runs */
    at = run_to_trap(pid, "breakpoint");
    printf("hwbp: breakpoint hit at 0x%lx (marker at 0x%lx)\n", at, (unsigned long)marker);
    if (at != (unsigned long)marker)
        return 1;
    set(pid, 2, CTRL(LEN_4, EXECUTE, 0));
    if (ptrace(PTRACE_CONT, pid, 0, 0) != 0 || waitpid(pid, &status, 0) != pid)
        die("PTRACE_CONT");
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "hwbp: child ended with status 0x%x\n", status);
        return 1;
    }
    printf("hwbp: ok\n");
    return 0;
}
