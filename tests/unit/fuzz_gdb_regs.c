/*
 * libFuzzer target for the gdb stub's register and memory writes: the
 * input is a byte stream as a hostile debugger would send it;
 * every packet the receiver (hyp/gdb/rsp.c) completes is decoded
 * and, if it is a P, G or M, carried out as the stub does - P and G by the
 * stub's own gdb_regs.c on a vCPU of this file's, M decoded into a buffer
 * of the stub's size.  Checked after every packet: the vCPU's CPSR is one
 * hyp/arch/psr.c allows (never Hyp, Monitor or a reserved mode, no J, IT
 * only in Thumb state), a refused write changed nothing of the vCPU, a
 * write taken changed only what it names, and an M never decodes past its
 * length (ASan guards the buffer).
 *
 * Built and run by tests/unit/fuzz.sh (target gdbregs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arch/sysregs.h>
#include "hyp/gdb/gdb_regs.h"
#include "hyp/arch/psr.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_gdb_regs: %s\n", #c); abort(); } } while (0)

static struct vcpu v;

static void vcpu_reset_fake(void)
{
    memset(&v, 0, sizeof(v));
    v.regs.cpsr = PSR_MODE_SVC | PSR_A | PSR_I | PSR_F;
}

/* the seven modes, and the fields the check keeps out, whatever came before */
static void check_cpsr(uint32_t cpsr)
{
    CHECK(psr_guest_mode(cpsr & PSR_MODE_MASK));
    CHECK(!(cpsr & PSR_J));
    CHECK(!(cpsr & PSR_RESERVED));
    CHECK((cpsr & PSR_T) || !(cpsr & PSR_IT_MASK));
}

static void on_packet(const struct rsp_rx *rx)
{
    static uint8_t mem[RSP_MEM_MAX];
    struct rsp_cmd c;
    struct vcpu before = v;
    bool ok = false;
    rsp_decode(rx->buf, rx->len, &c);
    switch (c.kind) {
    case RSP_CMD_WRITE_REG:
        ok = !c.wide && gdb_reg_write(&v, c.reg, c.value);
        if (ok) {   /* only the one register changed */
            uint32_t *r = gdb_reg_at(&v, c.reg);
            CHECK(r && *r == c.value);
            uint32_t keep = *r;
            *r = *gdb_reg_at(&before, c.reg);
            CHECK(memcmp(&v, &before, sizeof(v)) == 0);
            *r = keep;
        }
        break;
    case RSP_CMD_WRITE_REGS:
        ok = gdb_regs_write(&v, c.data, c.data_len);
        break;
    case RSP_CMD_WRITE_MEM: {
        /* as do_write_mem: the decoded length must be the request's */
        int n = rsp_hex_decode(c.data, c.data_len, mem, sizeof(mem));
        CHECK(n < 0 || (uint32_t)n == c.len);
        CHECK(c.len <= RSP_MEM_MAX);
        break;
    }
    case RSP_CMD_READ_REGS: {
        static struct rsp_tx tx;
        rsp_tx_begin(&tx);
        gdb_regs_read(&v, &tx);
        CHECK(!tx.overflow && tx.len == 1 + 8 * GDB_G_REGS);
        break;
    }
    default:
        break;
    }
    if (!ok)
        CHECK(memcmp(&v, &before, sizeof(v)) == 0);
    check_cpsr(v.regs.cpsr);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct rsp_rx rx;
    rsp_rx_init(&rx);
    vcpu_reset_fake();
    for (size_t i = 0; i < size; i++)
        if (rsp_rx_feed(&rx, (char)data[i]) == RSP_EV_PACKET)
            on_packet(&rx);
    return 0;
}
