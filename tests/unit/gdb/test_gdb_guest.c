/*
 * Host unit tests for gdb's hold on a guest (hyp/gdb/gdb_guest.c,
 * compiled in here): when the stub may take a guest's vCPUs as held, so
 * that their saved registers and their stage 1 are gdb's to read.  The
 * vCPUs' own CPUs are a model that acts a little each time the boot CPU
 * reads the counter (it spins on it while it waits): a vCPU in its guest
 * leaves when asked, or stays (a long exit); a vCPU just started waits for
 * its CPU to reset it (hyp/sched/sched.c vcpu_take_requests).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

/* this_cpu() reads HTPIDR: the test has one CPU of its own (below) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wint-to-pointer-cast"
#include "hyp/platform/percpu.h"
#pragma GCC diagnostic pop
#include <arch/sysregs.h>

static struct pcpu t_cpu;       /* index 0: the stub runs on the boot CPU */
#define this_cpu() (&t_cpu)
#define dsb_ish() __sync_synchronize()
/* gdb_debug_hit's look at the debug unit (not under test here: the CPU's
 * own register, which only ARM code can read) */
#define sysreg_read_dbgdscrint() 0u
struct debug_gdb debug_gdb;     /* hyp/arch/debug.c's, which needs the CPU */

/* (its memory access casts a guest's physical address to a pointer, as
 * the hypervisor's identity map allows; never reached here) */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wint-to-pointer-cast"
#include "hyp/gdb/gdb_guest.c"
#pragma GCC diagnostic pop

#define NVCPU       2
#define OLD_PC      0x40001158u     /* where the last life was held */
#define NEW_ENTRY   0x40000000u     /* where its start puts it */
#define TICK_US     1000u           /* the counter, per read: 1 ms */

enum cpu_model {
    LEAVES,         /* in its guest; leaves once asked, after `delay` reads */
    STAYS,          /* in its guest and kept there (a long exit) */
    STARTING,       /* started, its CPU resets it after `delay` reads */
    NEVER_RESET,    /* started, its CPU never gets to it */
};

static struct {
    enum cpu_model model[NVCPU];
    unsigned int delay[NVCPU];
    uint64_t now;           /* in microseconds (timer_ticks_to_us: 1:1) */
    unsigned int kicks;
    unsigned int reads;     /* of the counter */
} m;

static struct guest_config t_cfg;
static struct guest t_g;
struct pcpu pcpus[MAX_CPUS];

/* one step of each vCPU's own CPU */
static void cpus_act(void)
{
    for (unsigned int i = 0; i < NVCPU; i++) {
        struct vcpu *v = &t_g.vcpu[i];
        if (m.delay[i] && --m.delay[i])
            continue;
        if (m.model[i] == LEAVES && (v->requests & VCPU_REQ_HALT)) {
            v->on_cpu = false;
        } else if (m.model[i] == STARTING && (v->requests & VCPU_REQ_POWER_ON)) {
            v->requests &= ~VCPU_REQ_POWER_ON;
            v->regs.pc = NEW_ENTRY;
            v->cp15.sctlr = 0;
            v->power = VCPU_ON;
        }
    }
}

uint64_t timer_now(void)
{
    cpus_act();
    m.reads++;
    m.now += TICK_US;
    return m.now;
}

uint64_t timer_ticks_to_us(uint64_t t) { return t; }
void gic_kick_cpu(unsigned int pcpu) { m.kicks++; }

/* what the halt says when it times out: the last line, kept */
static char said[160];
void console_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(said, sizeof(said), fmt, ap);
    va_end(ap);
}
void sched_cpu0_work(void) {}
void dcache_clean_inval_range(const void *va, uint32_t len) {}
void icache_invalidate_all(void) {}
bool vcpu_translate(struct vcpu *v, uint32_t va, bool write, uint64_t *pa) { return false; }

void guest_kick_all(struct guest *g, uint32_t req)
{
    for (unsigned int i = 0; i < g->cfg->ncpus; i++) {
        g->vcpu[i].requests |= req;
        vcpu_kick(&g->vcpu[i]);
    }
}

/* a guest of two vCPUs on CPUs 1 and 2, both in their guest, held before
 * (the last life) at OLD_PC with their MMU on */
static int setup(void **state)
{
    memset(&m, 0, sizeof(m));
    memset(&t_g, 0, sizeof(t_g));
    said[0] = '\0';
    (void)strcpy(t_cfg.name, "dbg");
    t_cfg.ncpus = NVCPU;
    t_g.cfg = &t_cfg;
    t_g.state = GUEST_RUNNING;
    for (unsigned int i = 0; i < NVCPU; i++) {
        struct vcpu *v = &t_g.vcpu[i];
        v->vm = guest_vm(&t_g);
        v->id = i;
        v->pcpu = i + 1;
        v->power = VCPU_ON;
        v->on_cpu = true;
        v->regs.pc = OLD_PC;
        v->cp15.sctlr = 1;
        m.model[i] = LEAVES;
    }
    return 0;
}

/* the guest started again (guest_start): vCPU 0 waits for its CPU, the
 * others are off until it starts them; gdb's hold was dropped with it */
static void started_again(void)
{
    for (unsigned int i = 0; i < NVCPU; i++) {
        struct vcpu *v = &t_g.vcpu[i];
        v->on_cpu = false;
        v->power = VCPU_OFF;
        v->requests = 0;
    }
    t_g.vcpu[0].power = VCPU_ON_PENDING;
    t_g.vcpu[0].requests = VCPU_REQ_POWER_ON;
}

static void test_vcpus_that_leave_are_held(void **state)
{
    m.delay[0] = 3;
    m.delay[1] = 10;
    assert_false(guest_debug_held(&t_g));
    assert_true(guest_debug_halt(&t_g));
    assert_true(guest_debug_held(&t_g));
    assert_int_equal(m.kicks, NVCPU);
    assert_true(m.now < GUEST_DEBUG_HALT_US);
}

/* a busy wait looks at the counter once every TIMER_WAIT_LOOKS looks
 * (timer/timer.h): under QEMU each read takes the global lock that the
 * CPU waited for needs, and gdb's halt reading it back to back kept a CPU
 * from its kick for over a second on a loaded host */
static void test_a_wait_reads_the_counter_sparingly(void **state)
{
    uint32_t looks = 0u, n = 1u;
    uint64_t t0 = m.now;
    while (!timer_waited_us(t0, 10u * TICK_US, &looks)) {
        n++;
    }
    assert_int_equal(m.reads, 10);
    assert_int_equal(n, 10u * TIMER_WAIT_LOOKS);
}

/* a vCPU kept in Hyp mode past the bound: refused, never taken as held */
static void test_a_vcpu_that_stays_is_not_held(void **state)
{
    m.model[1] = STAYS;
    assert_false(guest_debug_halt(&t_g));
    assert_true(m.now >= GUEST_DEBUG_HALT_US);
    /* which vCPU, and that its CPU still holds it */
    assert_string_equal(said, "gdb: vCPU 1 of 'dbg' (CPU 2): held 1, power 2, requests 0x4\n");
    assert_false(guest_debug_held(&t_g));
    /* asked again later: still refused while it stays */
    assert_false(guest_debug_halt(&t_g));
    assert_false(guest_debug_held(&t_g));
    /* once it has left, the next request has it */
    m.model[1] = LEAVES;
    assert_true(guest_debug_halt(&t_g));
    assert_true(guest_debug_held(&t_g));
}

/*
 * Restarted from under gdb (its control partition, the monitor): the
 * stub's next request halts it again.  Its vCPU 0 is on no CPU yet, but
 * what is saved of it is the last life's until its CPU has reset it - its
 * registers, and a stage 1 over RAM the start scrubbed (a read through it
 * faulted: gdb's E01) - so it is held only once that is done.
 */
static void test_not_held_before_its_cpu_reset_it(void **state)
{
    assert_true(guest_debug_halt(&t_g));
    started_again();
    m.model[0] = STARTING;
    m.delay[0] = 5;
    assert_false(guest_debug_held(&t_g));
    assert_true(guest_debug_halt(&t_g));
    assert_int_equal(t_g.vcpu[0].power, VCPU_ON);
    assert_int_equal(t_g.vcpu[0].regs.pc, NEW_ENTRY);
    assert_int_equal(t_g.vcpu[0].cp15.sctlr, 0);
    assert_true(guest_debug_held(&t_g));
}

/* its CPU never gets to the start (kept busy): refused, as a vCPU that
 * does not leave is */
static void test_a_start_never_taken_is_not_held(void **state)
{
    assert_true(guest_debug_halt(&t_g));
    started_again();
    m.model[0] = NEVER_RESET;
    assert_false(guest_debug_halt(&t_g));
    /* off every CPU, its start never taken */
    assert_string_equal(said, "gdb: vCPU 0 of 'dbg' (CPU 1): held 0, power 1, requests 0x5\n");
    assert_false(guest_debug_held(&t_g));
    assert_int_equal(t_g.vcpu[0].regs.pc, OLD_PC);
}

/* resumed: no longer held until halted again */
static void test_resume_drops_the_hold(void **state)
{
    assert_true(guest_debug_halt(&t_g));
    guest_debug_resume(&t_g);
    assert_false(guest_debug_held(&t_g));
    assert_true(guest_debug_halt(&t_g));
    guest_debug_resume_vcpu(&t_g.vcpu[1]);
    assert_false(guest_debug_held(&t_g));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_vcpus_that_leave_are_held, setup),
        cmocka_unit_test_setup(test_a_wait_reads_the_counter_sparingly, setup),
        cmocka_unit_test_setup(test_a_vcpu_that_stays_is_not_held, setup),
        cmocka_unit_test_setup(test_not_held_before_its_cpu_reset_it, setup),
        cmocka_unit_test_setup(test_a_start_never_taken_is_not_held, setup),
        cmocka_unit_test_setup(test_resume_drops_the_hold, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
