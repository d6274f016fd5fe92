/*
 * Ticket spinlock on LDREX/STREX (ARM ARM A3.4, exclusive monitors), fair
 * between CPUs.  Waiters sleep in WFE; the unlock's SEV wakes them.
 */
#ifndef HYP_SPINLOCK_H
#define HYP_SPINLOCK_H

#include <stdint.h>

#ifdef HOST_TEST
/* host unit tests are single threaded: the lock only has to exist */
typedef struct { int held; } spinlock_t;
#define SPINLOCK_INIT { 0 }
static inline void spin_lock(spinlock_t *l) { l->held = 1; }
static inline void spin_unlock(spinlock_t *l) { l->held = 0; }
static inline uint32_t spin_lock_irqsave(spinlock_t *l) { spin_lock(l); return 0; }
static inline void spin_unlock_irqrestore(spinlock_t *l, uint32_t f) { (void)f; spin_unlock(l); }
#else
#include <arch/sysregs.h>

typedef struct {
    volatile uint16_t owner;
    volatile uint16_t next;
} spinlock_t;

#define SPINLOCK_INIT { 0, 0 }

/* wait for our turn, old the lock word our ticket was taken from (out of
 * line: a lock taken free needs none of it) */
static void __attribute__((noinline, cold, unused)) spin_wait(spinlock_t *l, uint32_t old)
{
    uint16_t ticket = (uint16_t)(old >> 16);
    while (l->owner != ticket) {
        wfe();
    }
}

static inline void spin_lock(spinlock_t *l)
{
    uint32_t tmp, old, fail;
    /* take a ticket: atomically next += 1 (the upper halfword) */
    __asm__ volatile(
        "1: ldrex   %0, [%3]\n"
        "   add     %1, %0, #0x10000\n"
        "   strex   %2, %1, [%3]\n"
        "   teq     %2, #0\n"
        "   bne     1b\n"
        : "=&r"(old), "=&r"(tmp), "=&r"(fail)
        : "r"(l)
        : "cc", "memory");
    /* our ticket is old's upper half; the lock was free when we took it if
     * the owner then was ours (only the holder moves it), told from that
     * word without another load */
    if (__builtin_expect((uint16_t)old != old >> 16, 0)) {
        spin_wait(l, old);
    }
    dmb_ish();  /* acquire: the critical section sees the last owner's writes */
}

static inline void spin_unlock(spinlock_t *l)
{
    dmb_ish();  /* release: our writes before the next owner's reads */
    /* owner += 1 as a halfword (in C the compiler zero-extends the sum
     * first, an instruction the STRH makes useless) */
    uint32_t tmp;
    __asm__ volatile("ldrh %0, [%1]\n"
                     "add  %0, %0, #1\n"
                     "strh %0, [%1]\n"
                     : "=&r"(tmp) : "r"(&l->owner) : "memory");
    dsb_ish();  /* the store is visible before the wake-up event */
    sev();
}

static inline uint32_t spin_lock_irqsave(spinlock_t *l)
{
    uint32_t f = irq_save();
    spin_lock(l);
    return f;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, uint32_t f)
{
    spin_unlock(l);
    irq_restore(f);
}
#endif /* HOST_TEST */
#endif
