/*
 * cntvct: print the virtual counter (CNTVCT) in decimal.  Linux lets user
 * space read it (CNTKCTL.PL0VCTEN, for its vDSO).  Under QEMU's -icount
 * shift=0 it counts one tick per 16 instructions since the counter's zero:
 * reset natively, the guest's start under Partita (CNTVOFF) - so the
 * benchmark reads Linux's boot length in instructions from the ready line.
 */
#include <stdint.h>
#include <stdio.h>

int main(void)
{
    uint32_t lo, hi;
    __asm__ volatile("isb; mrrc p15, 1, %0, %1, c14" : "=r"(lo), "=r"(hi));
    printf("%llu\n", ((unsigned long long)hi << 32) | lo);
    return 0;
}
