/* gdb's core registers of a halted vCPU (gdb_regs.h). */
#include <arch/sysregs.h>
#include "gdb_regs.h"
#include <string.h>
#include "hyp/arch/psr.h"
#include "gdb_vfp.h"

/* The target description gdb asks for (qXfer:features:read): the core
 * registers as gdb_reg_at numbers them, then the VFP registers */
static const char target_xml[] =
    "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
    "<target><architecture>arm</architecture>"
    "<feature name=\"org.gnu.gdb.arm.core\">"
    "<reg name=\"r0\" bitsize=\"32\"/><reg name=\"r1\" bitsize=\"32\"/>"
    "<reg name=\"r2\" bitsize=\"32\"/><reg name=\"r3\" bitsize=\"32\"/>"
    "<reg name=\"r4\" bitsize=\"32\"/><reg name=\"r5\" bitsize=\"32\"/>"
    "<reg name=\"r6\" bitsize=\"32\"/><reg name=\"r7\" bitsize=\"32\"/>"
    "<reg name=\"r8\" bitsize=\"32\"/><reg name=\"r9\" bitsize=\"32\"/>"
    "<reg name=\"r10\" bitsize=\"32\"/><reg name=\"r11\" bitsize=\"32\"/>"
    "<reg name=\"r12\" bitsize=\"32\"/>"
    "<reg name=\"sp\" bitsize=\"32\" type=\"data_ptr\"/>"
    "<reg name=\"lr\" bitsize=\"32\"/>"
    "<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\"/>"
    "<reg name=\"cpsr\" bitsize=\"32\" regnum=\"25\"/>"
    "</feature>" GDB_VFP_XML "</target>";

bool gdb_features_read(const struct rsp_cmd *c, struct rsp_tx *tx)
{
    size_t size = sizeof(target_xml) - 1u;
    if (strcmp(c->annex, "target.xml") != 0) {
        return false;
    }
    size_t off = c->addr < size ? c->addr : size;
    size_t n = size - off;
    /* each character may take two when escaped: half a packet at most */
    size_t max = ((c->len < (RSP_PACKET_MAX / 2u)) ? c->len : (RSP_PACKET_MAX / 2u));
    rsp_tx_str(tx, n > max ? "m" : "l");
    rsp_tx_bytes(tx, target_xml + off, n > max ? max : n);
    return true;
}

uint32_t *gdb_reg_at(struct vcpu *v, unsigned int n)
{
    if (n < GDB_NCORE) {
        return vcpu_saved_reg(v, n);
    }
    if (n == GDB_REG_CPSR) {
        return &v->regs.cpsr;
    }
    return NULL;
}

/* the one check of every value gdb gives a register: any value for r0-r15
 * (the guest's own, and the PC of its own state), a CPSR as psr.h says */
static bool reg_allowed(struct vcpu *v, unsigned int n, uint32_t val)
{
    if (!gdb_reg_at(v, n)) {
        return false;
    }
    return (n != GDB_REG_CPSR) || psr_debugger_may_write(v->regs.cpsr, val);
}

bool gdb_reg_write(struct vcpu *v, unsigned int n, uint32_t val)
{
    if (!reg_allowed(v, n, val)) {
        return false;
    }
    *gdb_reg_at(v, n) = val;
    return true;
}

void gdb_regs_read(struct vcpu *v, struct rsp_tx *tx)
{
    for (unsigned int n = 0u; n < GDB_NCORE; n++) {
        rsp_tx_reg32(tx, *gdb_reg_at(v, n));
    }
    rsp_tx_reg32(tx, *gdb_reg_at(v, GDB_REG_CPSR));
}

/* G's i-th value is gdb's register i, then the CPSR */
static unsigned int g_reg(unsigned int i)
{
    return (i < GDB_NCORE) ? i : GDB_REG_CPSR;
}

bool gdb_regs_write(struct vcpu *v, const char *hex, size_t len)
{
    uint32_t val[GDB_G_REGS];
    size_t nregs = len / 8u;
    if (((len % 8u) != 0u) || (nregs == 0u) || (nregs > GDB_G_REGS)) {
        return false;
    }
    /* every value decoded and checked before the first is written: r13
     * and r14 go to the banks of the mode the vCPU is in now, as gdb read
     * them, and the CPSR (the last) is checked against that one too */
    for (unsigned int i = 0u; i < nregs; i++) {
        if (!rsp_hex_reg32(hex + 8u * i, &val[i]) || !reg_allowed(v, g_reg(i), val[i])) {
            return false;
        }
    }
    for (unsigned int i = 0u; i < nregs; i++) {
        *gdb_reg_at(v, g_reg(i)) = val[i];
    }
    return true;
}
