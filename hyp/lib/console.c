/*
 * Console output is formatted with vsnprintf (hyp/lib/format.c) into a buffer on
 * the caller's stack and written under one lock, so lines of different CPUs
 * never interleave.  Input arrives by interrupt into a ring buffer.
 */
#include <stdio.h>
#include <string.h>
#include <stdbool.h>
#include "console.h"
#include "spinlock.h"
#include "byte_ring.h"

static const struct console_ops *console_ops;
static spinlock_t console_lock = SPINLOCK_INIT;

static struct byte_ring rx = BYTE_RING_INIT;
static bool rx_polled;
static bool (*rx_also)(void);

void console_attach(const struct console_ops *ops)
{
    console_ops = ops;
}

static void console_emit(const char *s, unsigned int len)
{
    for (unsigned int i = 0u; i < len; i++) {
        if (s[i] == '\n') {
            console_ops->putc(console_ops->ctx, '\r');
        }
        console_ops->putc(console_ops->ctx, s[i]);
    }
}

/* while a debugger owns the line: what everybody else writes (lock held) */
static bool held;
static char hold_buf[CONSOLE_HOLD_MAX];
static unsigned int hold_len, hold_dropped;

static void console_keep(const char *s, unsigned int len)
{
    unsigned int room = CONSOLE_HOLD_MAX - hold_len;
    unsigned int n = len < room ? len : room;
    (void)memcpy(hold_buf + hold_len, s, n);
    hold_len += n;
    hold_dropped += len - n;
}

void console_write(const char *s, unsigned int len)
{
    if (!console_ops) {
        return;
    }
    uint32_t f = spin_lock_irqsave(&console_lock);
    if (held) {
        console_keep(s, len);
    } else {
        console_emit(s, len);
    }
    spin_unlock_irqrestore(&console_lock, f);
}

static void console_put_raw(const char *s, unsigned int len)
{
    for (unsigned int i = 0u; i < len; i++) {
        console_ops->putc(console_ops->ctx, s[i]);
    }
}

void console_write_raw(const char *s, unsigned int len)
{
    if (!console_ops) {
        return;
    }
    uint32_t f = spin_lock_irqsave(&console_lock);
    if (held) {
        console_keep(s, len);
    } else {
        console_put_raw(s, len);
    }
    spin_unlock_irqrestore(&console_lock, f);
}

void console_hold(bool on)
{
    if (!console_ops) {
        return;
    }
    uint32_t f = spin_lock_irqsave(&console_lock);
    held = on;
    unsigned int dropped = hold_dropped;
    if (!on) {
        console_emit(hold_buf, hold_len);
        hold_len = hold_dropped = 0u;
    }
    spin_unlock_irqrestore(&console_lock, f);
    if (!on && dropped) {
        console_printf("[partita: %u characters of console output dropped while held]\n",
                       dropped);
    }
}

void console_hold_break(void)
{
    held = false;   /* no lock: the fatal path may have come from under it */
}

void console_write_owner(const char *s, unsigned int len)
{
    if (!console_ops) {
        return;
    }
    uint32_t f = spin_lock_irqsave(&console_lock);
    console_put_raw(s, len);
    spin_unlock_irqrestore(&console_lock, f);
}

void console_vprintf(const char *fmt, va_list ap)
{
    char buf[320];
    int n = vsnprintf(buf, sizeof(buf), fmt, ap);
    if (n < 0) {
        return;
    }
    if ((unsigned int)n >= sizeof(buf)) {
        n = sizeof(buf) - 1u;
    }
    console_write(buf, (unsigned int)n);
}

void console_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    console_vprintf(fmt, ap);
    va_end(ap);
}

void console_rx_push(char c)
{
    byte_ring_push(&rx, c);
}

void console_set_polled(bool polled)
{
    rx_polled = polled;
}

bool console_is_polled(void)
{
    return rx_polled;
}

/* no console interrupt: what the UART holds now, into the ring */
static void rx_poll(void)
{
    if (rx_polled && console_ops && console_ops->getc) {
        int in = console_ops->getc(console_ops->ctx);
        if (in >= 0) {
            console_rx_push((char)in);
        }
    }
}

void console_rx_also(bool (*pending)(void))
{
    rx_also = pending;
}

bool console_rx_pending(void)
{
    rx_poll();
    return byte_ring_pending(&rx) || (rx_also && rx_also());
}

int console_rx_pop(void)
{
    rx_poll();
    return byte_ring_pop(&rx);
}
