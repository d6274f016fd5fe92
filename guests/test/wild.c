/*
 * A guest that cannot be handed back its fault: its exception vectors
 * point outside its RAM, then it touches an unmapped address.  The
 * injected data abort's vector fetch aborts too, and so on: the hypervisor
 * must stop this (mark the guest crashed) instead of looping, while the
 * other guest and the monitor run on (tests/system/configs/wild.dts).
 */
#include "guest.h"

#define NOWHERE 0x7f000000u

void guest_main(uint32_t dtb)
{
    gprintf("wild: vectors at 0x%08lx, then a read of 0x%08lx\n", (unsigned long)NOWHERE,
            (unsigned long)(NOWHERE + 0x100000));
    __asm__ volatile("mcr p15, 0, %0, c12, c0, 0\n isb" : : "r"(NOWHERE));
    uint32_t v;
    try_read32(NOWHERE + 0x100000, &v);
    gprintf("wild: still running: the abort came back\n");
}
