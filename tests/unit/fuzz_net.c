/*
 * libFuzzer target for the network devices (hyp/vdev/virtio_net.c,
 * virtio_mmio.c, virtq.c): three members on one switch, each with a small
 * RAM of exactly its size (so ASan sees any access past it), and each
 * input a program of driver actions - register accesses of any width,
 * offset and value, bytes written anywhere into a member's RAM (rings,
 * descriptors, indices, frames), a quick correct set-up with queues where
 * the input says (any QueueNum up to the 256 the device offers, and
 * invalid ones), TX runs, detach and attach.  Nothing may crash or touch
 * memory outside the RAMs (ASan/UBSan), a ready queue's parts always lie
 * inside its member's RAM, and no TX run does more than the per-exit
 * bounds of virtio_net.h in descriptors and bytes.
 *
 * Built and run by tests/unit/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/vdev/virtio_net.h"
#include "fuzz_input.h"
#include "fuzz_rings.h"

#define FUZZ_ASSERT(c) do { if (!(c)) { fprintf(stderr, "fuzz_net: %s\n", #c); abort(); } } while (0)
#define N        3
#define RAM_IPA  0x40000000u
#define RAM_SIZE 0x4000u

static struct guest_net cfg[N];
static struct net_switch sw;
static struct net_port ports[N];
static uint8_t *ram[N];

static void on_raise(struct net_port *p) { FUZZ_ASSERT(p >= ports && p < ports + N); }
static void on_report(struct net_port *p, const char *why) { FUZZ_ASSERT(why && *why); }
static uint64_t ticks;
static uint64_t now(void) { return ticks += 7; }
static uint8_t *frame_buffer(void)
{
    static uint8_t buf[NET_BUF_SIZE];
    return buf;
}

static void reg(unsigned int g, uint32_t off, unsigned int size, bool write, uint32_t v)
{
    struct mmio_access a = { .size = size, .write = write, .value = v };
    net_port_mmio(&ports[g], &a, off);
}

/* QueueNum: mostly a valid size, 1 to 256 (VIRTIO_NUM_MAX, all of them
 * reached), else any value (0, too large, no power of 2) */
static uint32_t queue_num(struct input *in)
{
    uint32_t v = take(in, 1);
    return v & 0x80 ? take(in, 2) : 1u << (v % 9);
}

/* a driver that does it right, with its rings where the input says */
static void quick_setup(unsigned int g, struct input *in)
{
    reg(g, VMMIO_STATUS, 4, true, 0);
    reg(g, VMMIO_DRIVER_FEATURES_SEL, 4, true, 1);
    reg(g, VMMIO_DRIVER_FEATURES, 4, true, 1);
    reg(g, VMMIO_STATUS, 4, true, 0xb);
    for (unsigned int q = 0; q < 2; q++) {
        reg(g, VMMIO_QUEUE_SEL, 4, true, q);
        reg(g, VMMIO_QUEUE_NUM, 4, true, queue_num(in));
        reg(g, VMMIO_QUEUE_DESC_LOW, 4, true, RAM_IPA + (take(in, 2) % RAM_SIZE & ~15u));
        reg(g, VMMIO_QUEUE_DRIVER_LOW, 4, true, RAM_IPA + (take(in, 2) % RAM_SIZE & ~1u));
        reg(g, VMMIO_QUEUE_DEVICE_LOW, 4, true, RAM_IPA + (take(in, 2) % RAM_SIZE & ~3u));
        reg(g, VMMIO_QUEUE_READY, 4, true, 1);
    }
    reg(g, VMMIO_STATUS, 4, true, 0xf);
}

static void check(void)
{
    for (unsigned int g = 0; g < N; g++) {
        FUZZ_ASSERT(ports[g].last_descs < NET_TX_DESCS_PER_EXIT + NET_FRAME_DESCS_MAX);
        FUZZ_ASSERT(ports[g].last_bytes < NET_TX_BYTES_PER_EXIT + NET_FRAME_BYTES_MAX);
    }
    for (unsigned int g = 0; g < N; g++)
        for (unsigned int q = 0; q < 2; q++) {
            const struct virtq *vq = &ports[g].dev.q[q];
            if (!vq->ready)
                continue;
            FUZZ_ASSERT(vq->d >= ram[g] && vq->d + 16 * vq->num <= ram[g] + RAM_SIZE);
            FUZZ_ASSERT(vq->a >= ram[g] && vq->a + VIRTQ_AVAIL_SIZE(vq->num) <= ram[g] + RAM_SIZE);
            FUZZ_ASSERT(vq->u >= ram[g] && vq->u + VIRTQ_USED_SIZE(vq->num) <= ram[g] + RAM_SIZE);
        }
}

static void step(struct input *in)
{
    unsigned int op = take(in, 1), g = take(in, 1) % N;
    switch (op % 7) {
    case 6: {
        unsigned int qi = op & 0x80 ? NET_QUEUE_TX : NET_QUEUE_RX;
        fuzz_max_chains(&ports[g].dev.q[qi], qi == NET_QUEUE_RX, false, RAM_IPA, RAM_SIZE, in);
        break;
    }
    case 0: {
        unsigned int size = 1u << (take(in, 1) % 3);
        uint32_t off = take(in, 2) % VIRTIO_MMIO_SIZE;
        reg(g, off & ~(size - 1), size, op & 0x80, take(in, 4));
        break;
    }
    case 1: {
        uint32_t off = take(in, 2) % RAM_SIZE, len = take(in, 1) % 32;
        for (uint32_t i = 0; i < len && off + i < RAM_SIZE; i++)
            ram[g][off + i] = (uint8_t)take(in, 1);
        break;
    }
    case 2:
        FUZZ_ASSERT(net_port_tx(&ports[g]) <= cfg[g].budget);
        break;
    case 3: quick_setup(g, in); break;
    case 4:
        if (op & 0x80)
            net_port_detach(&ports[g]);
        else
            net_port_attach(&ports[g], (struct gmem){ RAM_IPA, RAM_SIZE, ram[g] });
        break;
    default:
        reg(g, VMMIO_QUEUE_NOTIFY, 4, true, take(in, 1) % 3);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    memset(&sw, 0, sizeof(sw));
    sw.raise = on_raise;
    sw.report = on_report;
    sw.frame_buffer = frame_buffer;
    sw.now = now;
    sw.freq = 1000;
    for (unsigned int g = 0; g < N; g++) {
        cfg[g] = (struct guest_net){ .id = 0, .member = g, .irq = 48, .budget = g == 2 ? NET_BUDGET_MAX : 1 + g * 7, .rate = g * 50,
                                     .mac = { 2, 0, 0, 0, 0, (uint8_t)g } };
        ram[g] = calloc(1, RAM_SIZE);
        net_port_init(&ports[g], &sw, &cfg[g]);
        net_port_attach(&ports[g], (struct gmem){ RAM_IPA, RAM_SIZE, ram[g] });
    }
    for (unsigned int i = 0; i < 2000 && in.n; i++) {
        step(&in);
        check();
    }
    for (unsigned int g = 0; g < N; g++)
        free(ram[g]);
    return 0;
}
