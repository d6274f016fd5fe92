/*
 * A hostile managed guest (tests/system/configs/managelife.dts,
 * tests/system/test_manage.py test_load_into_every_state): it leaves its
 * network device aimed at memory it is about to lose - every receive
 * buffer at the top of its RAM, where a run-time image's store goes - and
 * then ends its life as its bootargs say, so that its control partition
 * loads a new image into it in that state while a peer sends frames at
 * those buffers.  bootargs "net=BASE,INTID end=MODE":
 *   halt        PSCI SYSTEM_OFF at once
 *   crash       its vectors pointed at nothing, then an abort: crashed
 *   stop        waits, for the control partition to stop it
 *   halt-tx     a burst of frames queued, then SYSTEM_OFF in mid-transfer
 *   crash-tx    a burst of frames queued, then the crash
 * It prints "aimed" once its buffers are in place, then "ending".
 */
#include <string.h>
#include "vnet.h"

#define NOWHERE   0x7f000000u       /* no memory there: the vectors' address */
#define STORE_LEN 0x1000u           /* the store of a one-page image */

static struct vnet net;

/* every receive buffer at the top page of its RAM (the descriptors are
 * read by the device when a frame comes, virtio 1.x 2.7.13) */
static uint32_t aim_at_top(void)
{
    uint32_t top = guest_dt.mem_base + guest_dt.mem_size - STORE_LEN;
    for (unsigned int d = 0; d < VNET_QN; d++) {
        net.rx.desc[d].addr = top + (d % 2) * (STORE_LEN / 2);
        net.rx.desc[d].len = STORE_LEN / 2;
    }
    dsb();
    return top;
}

static void crash(void)
{
    uint32_t v;
    mmu_disable();      /* its vectors' address then is an IPA with nothing there */
    __asm__ volatile("mcr p15, 0, %0, c12, c0, 0\n isb" : : "r"(NOWHERE));
    try_read32(NOWHERE, &v);
    for (;;)
        ;
}

/* the control partition's MAC (managelife.dts): unicast, so that no other
 * prey's receive buffers are taken */
static const uint8_t boss_mac[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };

static void send_burst(void)
{
    static uint8_t frame[64];
    memcpy(frame, boss_mac, 6);
    memcpy(frame + 6, net.mac, 6);
    frame[12] = 0x88;                       /* a local experimental type */
    frame[13] = 0xb5;
    vnet_send_burst(&net, frame, sizeof(frame));
}

void guest_main(uint32_t dtb)
{
    mmu_enable();           /* the device is DMA coherent: cacheable rings */
    test_begin("aim");
    bool up = vnet_setup(&net);
    CHECK(up, "no network device");
    if (!up) {
        tests_finish();
        guest_poweroff();
    }
    const char *end = strstr(guest_dt.bootargs, "end=");
    end = end ? end + 4 : "halt";
    gprintf("aimed: receive buffers at 0x%08lx\n", (unsigned long)aim_at_top());
    test_end();
    tests_finish();
    gprintf("ending: %s\n", end);
    if (strncmp(end, "halt-tx", 7) == 0) {
        send_burst();
        guest_poweroff();
    }
    if (strncmp(end, "crash-tx", 8) == 0) {
        send_burst();
        crash();
    }
    if (strncmp(end, "crash", 5) == 0)
        crash();
    if (strncmp(end, "stop", 4) == 0)
        for (;;)
            __asm__ volatile("wfi");
    guest_poweroff();
}
