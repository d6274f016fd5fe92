/* A test guest's side of a Partita channel (chan.h). */
#include "chan.h"


bool chan_setup(struct chan *c)
{
    uint32_t v[3];
    if (bootarg_u32s("channel", v, 3) != 3)
        return false;
    c->ipa = v[0];
    c->size = v[1];
    c->irq = v[2];
    c->db = c->ipa + c->size;
    c->id = mmio_read32(c->db + CHAN_DB_ID);
    uint32_t m = mmio_read32(c->db + CHAN_DB_MEMBER);
    c->member = (uint8_t)m;                     /* [7:0] */
    c->nmembers = (uint8_t)(m >> CHAN_DB_MEMBER_COUNT_SHIFT);
    c->read_only = (m & CHAN_DB_MEMBER_READ_ONLY) != 0;
    c->tx = chan_ring_of((volatile void *)c->ipa, c->member);
    c->rx = chan_ring_of((volatile void *)c->ipa, c->member ^ 1);
    spi_enable(c->irq);
    return true;
}

unsigned int chan_answer(struct chan *c, const char *who)
{
    uint8_t buf[CHAN_MSG_BYTES + 1];
    uint32_t len, seq;
    unsigned int n = 0;
    while (chan_get(c->rx, buf, &len, &seq)) {
        buf[len] = 0;
        if (++c->answered <= 4 || c->answered % 1000 == 0)
            gprintf("%s: channel %u message %lu: '%s'\n", who, c->id, (unsigned long)seq,
                    (const char *)buf);
        for (uint32_t i = 0; i < len; i++)
            if (buf[i] >= 'a' && buf[i] <= 'z')
                buf[i] = (uint8_t)(buf[i] - 'a' + 'A');
        while (!chan_put(c->tx, buf, len, seq)) {
            chan_ring_mmio(c);      /* full: make sure the peer knows, let it drain */
            delay_ms(1);
        }
        n++;
    }
    if (n)
        chan_ring_mmio(c);
    return n;
}
