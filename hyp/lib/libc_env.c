/*
 * What the Debian libfdt and the C library routines the hypervisor links
 * (string functions, libgcc) expect from their environment.  There is no
 * heap and no stdio (hyp/lib/format.c formats), so no system-call shims:
 * anything that would need one fails to link.
 */
#include <stdint.h>
#include "console.h"
#include "halt.h"

/* No header declares them: the compiler's stack protector (libfdt's code)
 * and the C library's routines refer to them by name */
extern uintptr_t __stack_chk_guard;
void __stack_chk_fail(void);
void abort(void);

/* libfdt:armhf is built with -fstack-protector */
uintptr_t __stack_chk_guard = 0x5a17a5c3u;

void __stack_chk_fail(void)
{
    console_printf("\n*** stack smashing detected in the hypervisor\n");
    hyp_halt();
}

void abort(void)
{
    console_printf("\n*** abort() called in the hypervisor\n");
    hyp_halt();
}
