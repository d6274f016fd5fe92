/*
 * libFuzzer target for gdb's single-step decoder (hyp/arch/arm_next.c):
 * the input gives the registers, the CPSR and a page of memory around the
 * PC (instructions, and what a load of the PC reads).  Checked, besides
 * the sanitizers: memory is only read through the callback; an ARM
 * instruction whose condition fails goes on to the next word; in Thumb
 * state the answer is a Thumb address unless the instruction interworks.
 *
 * Built and run by tests/unit/fuzz.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arch/sysregs.h>
#include "hyp/arch/arm_next.h"
#include "hyp/arch/insn.h"
#include "fuzz_input.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_next: %s\n", #c); abort(); } } while (0)

#define PAGE 4096u
static uint8_t page[PAGE];
static uint32_t page_base;

static bool rd(void *arg, uint32_t addr, uint32_t n, uint32_t *val)
{
    CHECK(n == 1 || n == 2 || n == 4);
    if (addr - page_base >= PAGE || addr - page_base + n > PAGE)
        return false;
    *val = 0;
    for (uint32_t i = 0; i < n; i++)
        *val |= (uint32_t)page[addr - page_base + i] << (8 * i);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    struct arm_next_ctx c = { .read = rd };
    c.cpsr = take(&in, 4);
    for (int i = 0; i < 16; i++)
        c.r[i] = (i == 13 || i == 15 || (take(&in, 1) & 1)) ? 0x10000000u + (take(&in, 2) & 0xffc)
                                                             : take(&in, 4);
    if (c.cpsr & PSR_T)
        c.r[15] &= ~1u;
    else
        c.r[15] &= ~3u;
    page_base = 0x10000000u;
    memset(page, 0, sizeof(page));
    for (uint32_t i = 0; i < PAGE && in.n; i++)
        page[i] = (uint8_t)take(&in, 1);
    uint32_t next = 0;
    bool ok = arm_next(&c, &next);
    if (!ok)
        return 0;
    if (!(c.cpsr & PSR_T)) {
        uint32_t insn;
        CHECK(rd(NULL, c.r[15], 4, &insn));
        if ((insn >> 28) < 0xe && !insn_cond_holds(insn >> 28, c.cpsr))
            CHECK(next == c.r[15] + 4);
    }
    return 0;
}
