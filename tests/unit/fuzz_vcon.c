/*
 * libFuzzer target for the virtio console (hyp/vdev/virtio_console.c over
 * virtio_mmio.c and virtq.c): one device over a small RAM of exactly its
 * size (so ASan sees any access past it), each input a program of driver
 * actions - register accesses of any width, offset and value, bytes
 * written anywhere into its RAM, a quick correct set-up with any QueueNum
 * (up to the 256 the device offers, and invalid ones) and rings where the
 * input says, the most a queue can name (every avail entry one chain of
 * the whole table, buffers of the whole RAM), notifies, console input,
 * detach and attach, and resets or queue changes made while an exit is
 * handing output over (another vCPU of the guest).  Nothing may crash or
 * touch memory outside the RAM (ASan/UBSan), a ready queue's parts lie
 * inside it, and one notify hands over at most VCON_TX_BYTES_PER_EXIT
 * bytes in at most VCON_TX_DESCS_PER_EXIT buffers; one vcon_input takes at
 * most the bytes it is given.
 *
 * Built and run by tests/unit/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/config/guest_config.h"
#include "hyp/vdev/virtio_console.h"
#include "fuzz_input.h"
#include "fuzz_rings.h"

#define FUZZ_ASSERT(c) do { if (!(c)) { fprintf(stderr, "fuzz_vcon: %s\n", #c); abort(); } } while (0)
#define RAM_IPA  0x40000000u
#define RAM_SIZE 0x4000u

static struct vcon vc;
static uint8_t *ram;
static uint64_t out_bytes, out_calls;
/* an action of "another vCPU" to take while output is handed over: a
 * register write (never a notify: that vCPU would wait on tx_lock) */
static uint32_t mid_off, mid_val;
static uint64_t mid_at;
static bool mid_armed;

static void reg(uint32_t off, unsigned int size, bool write, uint32_t v)
{
    struct mmio_access a = { .size = size, .write = write, .value = v };
    vcon_mmio(&vc, &a, off);
}

static void on_out(void *ctx, const uint8_t *p, uint32_t len)
{
    FUZZ_ASSERT(p >= ram && p + len <= ram + RAM_SIZE);
    out_bytes += len;
    out_calls++;
    if (mid_armed && out_calls == mid_at) {
        mid_armed = false;
        reg(mid_off, 4, true, mid_val);
    }
}
static void on_raise(void *ctx) { }
static void on_report(void *ctx, const char *why) { FUZZ_ASSERT(why && *why); }
static const struct vcon_ops ops = { on_out, on_raise, on_report };

static uint32_t queue_num(struct input *in)
{
    uint32_t v = take(in, 1);
    return v & 0x80 ? take(in, 2) : 1u << (v % 9);
}

static void quick_setup(struct input *in)
{
    reg(VMMIO_STATUS, 4, true, 0);
    reg(VMMIO_DRIVER_FEATURES_SEL, 4, true, 1);
    reg(VMMIO_DRIVER_FEATURES, 4, true, 1);
    reg(VMMIO_STATUS, 4, true, 0xb);
    for (unsigned int q = 0; q < 2; q++) {
        reg(VMMIO_QUEUE_SEL, 4, true, q);
        reg(VMMIO_QUEUE_NUM, 4, true, queue_num(in));
        reg(VMMIO_QUEUE_DESC_LOW, 4, true, RAM_IPA + (take(in, 2) % RAM_SIZE & ~15u));
        reg(VMMIO_QUEUE_DRIVER_LOW, 4, true, RAM_IPA + (take(in, 2) % RAM_SIZE & ~1u));
        reg(VMMIO_QUEUE_DEVICE_LOW, 4, true, RAM_IPA + (take(in, 2) % RAM_SIZE & ~3u));
        reg(VMMIO_QUEUE_READY, 4, true, 1);
    }
    reg(VMMIO_STATUS, 4, true, 0xf);
}

static void check(void)
{
    for (unsigned int q = 0; q < 2; q++) {
        const struct virtq *vq = &vc.dev.q[q];
        if (!vq->ready)
            continue;
        FUZZ_ASSERT(vq->d >= ram && vq->d + 16 * vq->num <= ram + RAM_SIZE);
        FUZZ_ASSERT(vq->a >= ram && vq->a + VIRTQ_AVAIL_SIZE(vq->num) <= ram + RAM_SIZE);
        FUZZ_ASSERT(vq->u >= ram && vq->u + VIRTQ_USED_SIZE(vq->num) <= ram + RAM_SIZE);
        FUZZ_ASSERT(!vq->partial || vq->cur.count <= vq->num);
    }
}

static void step(struct input *in)
{
    unsigned int op = take(in, 1);
    switch (op % 8) {
    case 0: {
        unsigned int size = 1u << (take(in, 1) % 3);
        uint32_t off = take(in, 2) % VIRTIO_MMIO_SIZE;
        reg(off & ~(size - 1), size, op & 0x80, take(in, 4));
        break;
    }
    case 1: {
        uint32_t off = take(in, 2) % RAM_SIZE, len = take(in, 1) % 32;
        for (uint32_t i = 0; i < len && off + i < RAM_SIZE; i++)
            ram[off + i] = (uint8_t)take(in, 1);
        break;
    }
    case 2: quick_setup(in); break;
    case 3: {
        unsigned int qi = op & 0x80 ? VCON_QUEUE_TX : VCON_QUEUE_RX;
        fuzz_max_chains(&vc.dev.q[qi], qi == VCON_QUEUE_RX, true, RAM_IPA, RAM_SIZE, in);
        break;
    }
    case 4: {
        /* console input: as the owner gives it, at most its 256-byte ring */
        uint8_t buf[256];
        uint32_t n = take(in, 1) + 1;
        for (uint32_t i = 0; i < n; i++)
            buf[i] = (uint8_t)i;
        FUZZ_ASSERT(vcon_input(&vc, buf, n) <= n);
        break;
    }
    case 5:
        if (op & 0x80)
            vcon_detach(&vc);
        else
            vcon_attach(&vc, (struct gmem){ RAM_IPA, RAM_SIZE, ram });
        break;
    case 6: {
        /* the next notify is interrupted by another vCPU's write */
        static const uint32_t regs[] = { VMMIO_STATUS, VMMIO_QUEUE_READY, VMMIO_QUEUE_SEL,
                                         VMMIO_QUEUE_NUM, VMMIO_QUEUE_DESC_LOW,
                                         VMMIO_QUEUE_DRIVER_LOW, VMMIO_QUEUE_DEVICE_LOW };
        mid_off = regs[take(in, 1) % (sizeof(regs) / sizeof(regs[0]))];
        mid_val = take(in, 4);
        mid_at = 1 + take(in, 1);
        mid_armed = true;
        break;
    }
    default:
        out_bytes = out_calls = 0;
        reg(VMMIO_QUEUE_NOTIFY, 4, true, take(in, 1) % 3);
        FUZZ_ASSERT(out_bytes <= VCON_TX_BYTES_PER_EXIT);
        FUZZ_ASSERT(out_calls <= VCON_TX_DESCS_PER_EXIT);
        mid_armed = false;
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    ram = calloc(1, RAM_SIZE);
    mid_armed = false;
    vcon_init(&vc, &ops, NULL);
    vcon_attach(&vc, (struct gmem){ RAM_IPA, RAM_SIZE, ram });
    for (unsigned int i = 0; i < 2000 && in.n; i++) {
        step(&in);
        check();
    }
    free(ram);
    return 0;
}
