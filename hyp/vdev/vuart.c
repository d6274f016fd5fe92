#include "vuart.h"

#define INT_RX  (1u << 4)
#define INT_TX  (1u << 5)
#define INT_RT  (1u << 6)
#define INT_ALL 0x7ffu

/* PrimeCell identification: PL011 r1p5 (0x00341011) and the cell ID */
static const uint8_t vuart_id[8] = { 0x11, 0x10, 0x34, 0x00, 0x0d, 0xf0, 0x05, 0xb1 };

static void vuart_update(struct vuart *u)
{
    if (u->rx_count != 0u) {
        u->ris |= INT_RX | INT_RT;
    } else {
        u->ris &= ~(INT_RX | INT_RT);
    }
    bool level = (u->ris & u->imsc) != 0u;
    if (level != u->level && u->irq_level) {
        u->irq_level(u->ctx, level);
    }
    u->level = level;
}

void vuart_init(struct vuart *u, void (*tx)(void *, char), void (*irq)(void *, bool), void *ctx)
{
    *u = (struct vuart){ 0 };
    u->cr = 0x300u;          /* TXE | RXE, as after reset (DDI 0183 3.3.8) */
    u->lcr_h = 0u;
    u->ifls = 0x12u;
    u->fr_tx = 1u << 7;     /* TXFE */
    u->tx = tx;
    u->irq_level = irq;
    u->ctx = ctx;
    vuart_update(u);
}

void vuart_set_tx_full(struct vuart *u, bool full)
{
    u->tx_full = full;
    u->fr_tx = full ? (unsigned int)1u << 5 : (unsigned int)1u << 7;   /* TXFF : TXFE */
}

bool vuart_rx_push(struct vuart *u, uint8_t c)
{
    if (u->rx_count == VUART_FIFO) {
        return false;
    }
    u->rx[(u->rx_head + u->rx_count) % VUART_FIFO] = c;
    u->rx_count++;
    vuart_update(u);
    return true;
}

static uint32_t vuart_read(struct vuart *u, uint32_t off)
{
    switch (off) {
    case PL011_DR: {
        if (!u->rx_count) {
            return 0;
        }
        uint32_t c = u->rx[u->rx_head];
        u->rx_head = (u->rx_head + 1u) % VUART_FIFO;
        u->rx_count--;
        vuart_update(u);
        return c;
    }
    case PL011_RSR: return 0;
    case PL011_FR:
        /* TXFE: transmit completes at once, unless the console is rate
         * limited (TXFF: a guest waits as for a slow line) */
        return vuart_fr(u);
    case PL011_IBRD: return u->ibrd;
    case PL011_FBRD: return u->fbrd;
    case PL011_LCR_H: return u->lcr_h;
    case PL011_CR: return u->cr;
    case PL011_IFLS: return u->ifls;
    case PL011_IMSC: return u->imsc;
    case PL011_RIS: return u->ris;
    case PL011_MIS: return u->ris & u->imsc;
    default:
        if (off >= 0xfe0u && off < 0x1000u) {
            return vuart_id[(off - 0xfe0u) / 4u];
        }
        return 0;   /* reserved: read as zero */
    }
}

static void vuart_write(struct vuart *u, uint32_t off, uint32_t v)
{
    switch (off) {
    case PL011_DR:
        if (u->tx != NULL) {
            uint32_t byte = v & 0xffu;
            u->tx(u->ctx, (char)byte);
        }
        /* transmitted at once: the FIFO is below its level again (as QEMU's
         * own PL011 model does, which Linux's amba-pl011 driver expects) */
        u->ris |= INT_TX;
        break;
    case PL011_RSR: break;  /* ECR: clears errors we never raise */
    case PL011_IBRD: u->ibrd = v & 0xffffu; break;
    case PL011_FBRD: u->fbrd = v & 0x3fu; break;
    case PL011_LCR_H: u->lcr_h = v & 0xffu; break;
    case PL011_CR: u->cr = v & 0xff87u; break;
    case PL011_IFLS: u->ifls = v & 0x3fu; break;
    case PL011_IMSC: u->imsc = v & INT_ALL; break;
    case PL011_ICR: u->ris &= ~(v & INT_ALL); break;
    default: break;         /* read-only or reserved: ignored */
    }
    vuart_update(u);
}

bool vuart_mmio(void *dev, struct mmio_access *a, uint32_t offset)
{
    struct vuart *u = dev;
    if ((offset & 3u) != 0u) {
        return false;       /* PL011 registers are word aligned */
    }
    if (a->write) {
        vuart_write(u, offset, a->value);
    } else {
        a->value = vuart_read(u, offset);
    }
    return true;
}
