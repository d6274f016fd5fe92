/*
 * Isolation, the attacker's side (runs beside guests/test/victim.c, see
 * tests/system/configs/isolation.dts): every access to the hypervisor's memory
 * and to the other guest's memory, given as physical addresses that lie
 * outside this guest's RAM window, must end in this guest's own abort
 * handler with DFAR/IFAR = the address, and leave the victim untouched.
 * Also: the edge of its RAM window (the last 4 KiB page is mapped, the
 * next is not) and a pattern test of all of its RAM.
 *
 * bootargs: hyp=<PA>,... other=<PA>,... (addresses to attack),
 *           attack-after=<ms> (let the victim arm its watch first)
 */
#include "guest.h"

#define FSR_EXT_ABORT 0x008u
#define FSR_WNR       (1u << 11)

static uint32_t ram_end;

static bool abort_ok(uint32_t addr, bool write, uint32_t kind)
{
    struct fault_record *f = my_fault();
    uint32_t want = FSR_EXT_ABORT | (write ? FSR_WNR : 0);
    return f->kind == kind && f->far == addr && (f->fsr & 0xc0fu) == want && f->mode == 0x17;
}

static void attack(const char *what, uint32_t addr)
{
    uint32_t v;
    struct fault_record *f = my_fault();
    bool hit = try_read32(addr, &v);
    CHECK(hit && abort_ok(addr, false, FAULT_DABT) && v == 0xdeadbeef,
          "%s: read of 0x%08lx: abort %d DFAR 0x%08lx DFSR 0x%03lx value 0x%08lx", what,
          (unsigned long)addr, hit, (unsigned long)f->far, (unsigned long)f->fsr,
          (unsigned long)v);
    hit = try_write32(addr, 0xbad0bad0u);
    CHECK(hit && abort_ok(addr, true, FAULT_DABT),
          "%s: write of 0x%08lx: abort %d DFAR 0x%08lx DFSR 0x%03lx", what, (unsigned long)addr,
          hit, (unsigned long)f->far, (unsigned long)f->fsr);
    hit = try_write32(addr + 0x40, 0);
    CHECK(hit && abort_ok(addr + 0x40, true, FAULT_DABT), "%s: write of 0x%08lx: abort %d",
          what, (unsigned long)(addr + 0x40), hit);
    hit = try_exec(addr);
    CHECK(hit && abort_ok(addr, false, FAULT_PABT),
          "%s: branch to 0x%08lx: prefetch abort %d IFAR 0x%08lx IFSR 0x%03lx", what,
          (unsigned long)addr, hit, (unsigned long)f->far, (unsigned long)f->fsr);
}

static void test_window_edge(void)
{
    test_begin("ram_window_edge");
    uint32_t v;
    CHECK(guest_dt.valid && (guest_dt.mem_size & 0x1fffff) != 0,
          "RAM size 0x%lx: the configuration should end it with 4 KiB pages, not a block",
          (unsigned long)guest_dt.mem_size);
    CHECK(!try_write32(ram_end - 4, 0x0defaced) && !try_read32(ram_end - 4, &v) &&
          v == 0x0defaced, "the last word of RAM 0x%08lx: read 0x%08lx",
          (unsigned long)(ram_end - 4), (unsigned long)v);
    CHECK(!try_read32(ram_end - 0x1000, &v), "the last page 0x%08lx aborts",
          (unsigned long)(ram_end - 0x1000));
    CHECK(try_read32(ram_end, &v) && abort_ok(ram_end, false, FAULT_DABT),
          "the first word after RAM 0x%08lx did not abort", (unsigned long)ram_end);
    CHECK(try_write32(ram_end + 0xffc, 1) && abort_ok(ram_end + 0xffc, true, FAULT_DABT),
          "0x%08lx did not abort", (unsigned long)(ram_end + 0xffc));
    test_end();
}

static void test_ram_all(void)
{
    test_begin("ram_all_patterns");
    uint32_t first = 0, start = image_end();
    uint64_t t0 = cntvct();
    uint32_t bad = ram_test(start, ram_end, &first);
    CHECK(bad == 0, "%lu bad words in 0x%08lx-0x%08lx, the first at 0x%08lx", (unsigned long)bad,
          (unsigned long)start, (unsigned long)ram_end, (unsigned long)first);
    gprintf("ram: 0x%08lx-0x%08lx tested in %lu ms\n", (unsigned long)start,
            (unsigned long)ram_end, (unsigned long)((cntvct() - t0) * 1000 / cntfrq()));
    test_end();
}

void guest_main(uint32_t dtb)
{
    uint32_t hyp[8], other[8], after = 300;
    ram_end = RAM_BASE + guest_dt.mem_size;
    int nhyp = bootarg_u32s("hyp", hyp, 8), nother = bootarg_u32s("other", other, 8);
    bootarg_u32("attack-after", &after);
    gprintf("probe: RAM 0x%08lx-0x%08lx", (unsigned long)RAM_BASE, (unsigned long)ram_end);
    for (int i = 0; i < nhyp; i++)
        gprintf(" hyp 0x%08lx", (unsigned long)hyp[i]);
    for (int i = 0; i < nother; i++)
        gprintf(" other 0x%08lx", (unsigned long)other[i]);
    gprintf("\n");

    test_window_edge();
    test_ram_all();

    test_begin("hypervisor_memory");
    CHECK(nhyp > 0, "no hyp= addresses in bootargs '%s'", guest_dt.bootargs);
    for (int i = 0; i < nhyp; i++) {
        CHECK(hyp[i] >= ram_end || hyp[i] < RAM_BASE, "hyp address 0x%08lx is inside the "
              "guest's own RAM window", (unsigned long)hyp[i]);
        attack("hypervisor", hyp[i]);
    }
    test_end();

    /* the victim arms its watch when it starts: wait for it */
    while (cntvct() < ms_to_ticks(after))
        ;
    test_begin("other_guest_memory");
    CHECK(nother > 0, "no other= addresses in bootargs '%s'", guest_dt.bootargs);
    for (int i = 0; i < nother; i++) {
        CHECK(other[i] >= ram_end || other[i] < RAM_BASE, "other address 0x%08lx is inside "
              "the guest's own RAM window", (unsigned long)other[i]);
        for (uint32_t off = 0; off < 0x1000; off += 0x400)
            attack("other guest", other[i] + off);
    }
    test_end();

    test_begin("still_served");
    struct smc_ret r = hvc_call(PSCI_VERSION, 0, 0, 0);
    CHECK(r.r0 == 0x00010000u, "PSCI_VERSION after the attacks: 0x%08lx", (unsigned long)r.r0);
    test_end();
    tests_finish();
}
