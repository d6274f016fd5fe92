/*
 * libFuzzer target for the trap decoders: the data-abort syndrome
 * (hyp/vdev/mmio.c), the condition check and PC/IT stepping of trapped
 * instructions (hyp/arch/insn.c), and the emulated PL011 behind the MMIO bus
 * (hyp/vdev/vuart.c).  Each input is a list of (HSR, HDFAR, HPFAR, CPSR, value)
 * records, every one decoded and, when it decodes, dispatched to a UART at
 * a fuzzed address.  Checked: a decoded access is 1, 2 or 4 bytes, the
 * syndrome's SAS and WnR, at the IPA HPFAR and HDFAR give; a loaded value is
 * zero- or sign-extended exactly; a step moves the PC by 2 or 4 and
 * changes nothing in the CPSR but the IT bits, and an IT block ends.
 *
 * Built and run by tests/unit/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hyp/arch/insn.h"
#include "hyp/vdev/mmio.h"
#include "hyp/vdev/vuart.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_decode: %s\n", #c); abort(); } } while (0)

static void tx(void *ctx, char c) { (void)ctx; (void)c; }
static void irq(void *ctx, bool level) { (void)ctx; (void)level; }

static uint32_t word(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct vuart uart;
    struct mmio_bus bus;
    mmio_bus_init(&bus);
    vuart_init(&uart, tx, irq, NULL);
    uint64_t base = size >= 4 ? (uint64_t)(word(data) & ~0xfffu) << (data[0] & 8) : 0x09000000u;
    mmio_register(&bus, base, 0x1000, vuart_mmio, &uart);
    for (size_t off = 4; off + 20 <= size; off += 20) {
        uint32_t hsr = word(data + off), hdfar = word(data + off + 4);
        uint32_t hpfar = word(data + off + 8), cpsr = word(data + off + 12);
        uint32_t value = word(data + off + 16);

        struct mmio_access a;
        if (mmio_decode(hsr, &a)) {
            uint64_t ipa = FAULT_IPA(hdfar, hpfar);
            CHECK(a.size == 1 || a.size == 2 || a.size == 4);
            CHECK(a.size == 1u << HSR_DABT_SAS(hsr));
            CHECK(a.write == ((hsr & HSR_DABT_WNR) != 0));
            CHECK(ipa == (((uint64_t)(hpfar & 0xfffffff0u) << 8) | (hdfar & 0xfff)));
            uint32_t v = mmio_load_value(hsr, value);
            if (a.size < 4) {
                uint32_t bits = a.size * 8, low = value & ((1u << bits) - 1);
                bool neg = (hsr & HSR_DABT_SSE) && (low >> (bits - 1));
                CHECK(v == (neg ? low | ~((1u << bits) - 1) : low));
            } else {
                CHECK(v == value);
            }
            a.value = a.write ? value : 0;
            if (mmio_dispatch(&bus, ipa, &a) == MMIO_HANDLED)
                CHECK(ipa >= base && ipa + a.size <= base + 0x1000);
        }

        (void)insn_condition_passed(cpsr, hsr);
        uint32_t pc = hdfar, c2 = cpsr;
        bool is32 = (hsr & HSR_IL) != 0;
        insn_skip(&pc, &c2, is32);
        CHECK(pc == hdfar + (is32 ? 4 : 2));
        CHECK((c2 & ~PSR_IT_MASK) == (cpsr & ~PSR_IT_MASK));
        if (!(cpsr & (1u << 5)))
            CHECK(c2 == cpsr);                  /* ARM state: no IT block */
        /* an IT block ends within four steps */
        for (int i = 0; i < 4; i++)
            insn_skip(&pc, &c2, is32);
        if (cpsr & (1u << 5))
            CHECK(insn_itstate(c2) == 0);
    }
    return 0;
}
