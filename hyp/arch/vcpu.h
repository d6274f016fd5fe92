/*
 * A virtual CPU: the full state of one guest CPU, pinned to one physical
 * CPU.  The general registers move on every exit (hyp/arch/entry.S); the banked
 * registers, CP15, timer and vGIC state stay live in the CPU while the vCPU
 * is loaded and are saved only when it leaves its physical CPU
 * (vcpu_load/vcpu_put, one file per kind of state).
 */
#ifndef HYP_VCPU_H
#define HYP_VCPU_H

/*
 * guest_run's table of exit handlers: a trap's by its HSR exception class
 * (ARM ARM B3.13.6, HSR[31:26]), then one for a physical IRQ and one for
 * a physical FIQ taken from the guest (HCR.IMO/FMO; FIQ is the hypervisor's
 * Group 0 on a direct guest's CPU, docs/direct-interrupts.md).
 */
#define GUEST_EXIT_EC_NR 0x40
#define GUEST_EXIT_IRQ   GUEST_EXIT_EC_NR
#define GUEST_EXIT_FIQ   (GUEST_EXIT_EC_NR + 1)
#define GUEST_EXIT_NR    (GUEST_EXIT_EC_NR + 2)

#ifndef __ASSEMBLER__
#include "hyp/lib/ratelimit.h"
#include <stdint.h>
#include <arch/sysregs.h>
#include <stdbool.h>
#include "vgic/vgic.h"
#include "debug.h"
#include "vfp.h"
#include "psci_env.h"
#include "hyp/vdev/mmio.h"

/* Saved by the exception entry: its layout is used by assembly */
struct vcpu_regs {
    uint32_t r[13];
    uint32_t lr_usr;        /* HYP mode has no LR of its own: it is LR_usr */
    uint32_t pc;            /* ELR_hyp */
    uint32_t cpsr;          /* SPSR_hyp */
    uint32_t host_sp;       /* HYP stack pointer while the guest runs */
};

struct vcpu_banked {
    uint32_t sp_usr;
    uint32_t sp_svc, lr_svc, spsr_svc;
    uint32_t sp_abt, lr_abt, spsr_abt;
    uint32_t sp_und, lr_und, spsr_und;
    uint32_t sp_irq, lr_irq, spsr_irq;
    uint32_t r8_fiq, r9_fiq, r10_fiq, r11_fiq, r12_fiq, sp_fiq, lr_fiq, spsr_fiq;
};

/* in the order cp15_restore writes them, four words at a time (sr4.h) */
struct vcpu_cp15 {
    uint32_t cpacr, ttbcr, dacr, dfsr, ifsr, adfsr, aifsr, dfar, ifar, prrr;
    uint32_t nmrr, amair0, amair1, vbar, contextidr, tpidrurw, tpidruro, tpidrprw;
    uint32_t csselr, cntkctl;
    uint64_t ttbr0, ttbr1, par;
    uint32_t sctlr;
};

struct vcpu_timer {
    uint32_t cntv_ctl;
    uint64_t cntv_cval;
};

enum vcpu_power { VCPU_OFF, VCPU_ON_PENDING, VCPU_ON };

/* trap causes counted per vCPU (for `stats`) */
enum trap_cause {
    TRAP_WFI, TRAP_CP15, TRAP_CP14, TRAP_HVC, TRAP_SMC, TRAP_DABT_MMIO, TRAP_DABT_FAULT,
    TRAP_PABT, TRAP_UNKNOWN, TRAP_IRQ, TRAP_VFP, TRAP_NR
};

struct vm;
struct vcpu_share;

struct vcpu {
    struct vcpu_regs regs;
    /* the access being emulated (hyp/trap/abort.c: trap_dabt): here, within
     * a STRH's 8-bit offset, so that the MMIO path needs no stack frame */
    struct mmio_access mmio;
    /* VCPU_REQ_*: set by others, taken by owner.  Right before vgic.queued
     * and near the start: one LDRD (8-bit offset) reads both after every
     * exit (hyp/arch/entry.S) */
    volatile uint32_t requests;
    struct vgic_cpu vgic;
    struct vcpu_banked banked;
    struct vcpu_cp15 cp15;
    struct vcpu_timer timer;
    struct psci_env psci;           /* what PSCI calls act on, set up once */
    struct vm *vm;                  /* its guest, as arch, trap and sched see it */
    unsigned int id;                /* index within the guest */
    unsigned int pcpu;              /* physical CPU it is pinned to */
    uint32_t vmpidr;
    volatile enum vcpu_power power;
    uint32_t on_entry, on_r[3];     /* where and how a power-on starts it */
    /* a CPU holds it, from its claim (hyp/sched/sched_internal.h) until
     * it is put back: its state is the CPU's registers once vcpu_load has
     * run, and the saved copy here only when this is false */
    bool on_cpu;
    bool pmu;                       /* its guest has the PMU (configuration "pmu") */
    uint32_t hcr;                   /* HCR while it runs (vcpu_set_pmu, _direct) */
    bool direct;                    /* its CPU's interrupts are its own (vcpu_set_direct) */
    bool pmu_used;                  /* it has touched the PMU since its reset */
    bool dbg_used;                  /* ... or the debug registers */
    bool dbg_trap;                  /* gdb attached: HDCR.TDE, its debug exceptions trap */
    bool dbg_reload;                /* on a CPU of its own, under gdb or just after:
                                     * comparators (and VFP) to load in vcpu_load */
    uint32_t dbg_watch;             /* 1 + gdb's watchpoint that stopped it, or 0 */
    struct vcpu_vfp *dbg_vfp;       /* ditto: where its VFP is kept while away (gdb's) */
    struct debug_regs dbg;          /* its view of them (hyp/arch/debug.h) */
    uint32_t last_fault_pc, last_fault_far, fault_repeats;  /* a fault it cannot get out of */
    uint32_t traps[TRAP_NR];
    struct ratelimit abort_log;     /* its abort reports on the console */
    struct vcpu_share *share;       /* on a shared CPU only (hyp/sched/sched_share.c) */
};

#define VCPU_REQ_POWER_ON  (1u << 0)   /* CPU_ON: reset to on_entry and run */
#define VCPU_REQ_STOP      (1u << 1)   /* leave the physical CPU at once */
/* held off its CPU by gdb (hyp/gdb): unlike the others, it stays
 * set, and the vCPU is not runnable, until gdb lets it go */
#define VCPU_REQ_HALT      (1u << 2)
/* its partition's memory-bandwidth budget is spent (hyp/sched/budget.c):
 * like HALT it stays set, and the vCPU is not runnable, until the next
 * period's refill clears it */
#define VCPU_REQ_THROTTLE  (1u << 3)
/* the requests that stay set while the vCPU waits off its CPU */
#define VCPU_REQ_HELD      (VCPU_REQ_HALT | VCPU_REQ_THROTTLE)

/*
 * Ask v's own CPU to reset v to entry with r0-r2 and run it (VCPU_REQ_POWER_ON,
 * taken by hyp/sched/sched.c vcpu_take_requests); the caller kicks that CPU.
 * What the reset reads is written first and the request last, by a
 * sequentially consistent read-modify-write, so the CPU that sees the request
 * sees the rest.  v's guest must be running already: a CPU drops the start of
 * a vCPU whose guest is not (hyp/sched/sched_internal.h vcpu_requests_take),
 * so a start seen before its guest's state would leave v pending for ever.
 */
static inline void vcpu_request_power_on(struct vcpu *v, uint32_t entry, uint32_t r0,
                                         uint32_t r1, uint32_t r2)
{
    v->on_entry = entry;
    v->on_r[0] = r0;
    v->on_r[1] = r1;
    v->on_r[2] = r2;
    v->power = VCPU_ON_PENDING;
    (void)__atomic_or_fetch(&v->requests, VCPU_REQ_POWER_ON, __ATOMIC_SEQ_CST);
}

/*
 * Run v (loaded on this CPU) until it or its CPU is wanted outside the
 * guest (hyp/arch/entry.S): each exit calls table[HSR.EC] (or
 * table[GUEST_EXIT_IRQ]) straight from the exception entry, and the guest
 * is resumed at once (its list registers flushed first when
 * v->vgic.queued says so) unless v->requests or *attention is non-zero.
 * The one way into a guest (hyp/sched: vcpu_run).
 */
typedef void (*exit_fn)(struct vcpu *v, uint32_t hsr);
void guest_run(struct vcpu *v, const exit_fn table[GUEST_EXIT_NR],
               const volatile uint32_t *attention);

/* the PMU or not (configuration "pmu"), and the traps that go with it */
void vcpu_set_pmu(struct vcpu *v, bool pmu);
/* interrupts = "direct" (docs/direct-interrupts.md): after vcpu_set_pmu */
void vcpu_set_direct(struct vcpu *v);
/* once per CPU, before its first vcpu_load */
void vcpu_cpu_init(void);
void vcpu_load(struct vcpu *v);
void vcpu_put(struct vcpu *v);
void vcpu_reset(struct vcpu *v, uint32_t entry, uint32_t r0, uint32_t r1, uint32_t r2);

/* Exits so far: one trap counter moves for each (the IRQ one for interrupts),
 * so the total is their sum - not another count on the way into every trap */
static inline uint64_t vcpu_exits(const struct vcpu *v)
{
    uint64_t n = 0u;
    for (unsigned int i = 0u; i < (unsigned int)TRAP_NR; i++) {
        n += v->traps[i];
    }
    return n;
}

/*
 * The guest's view of Rn in its current mode (B9.2.1: banked SP and LR,
 * the FIQ mode's r8-r12; reads of r15 give PC + 8 / + 4).  Inline by
 * design, and the only accessors: r0-r7, which no mode banks and which
 * nearly every trapped access names, come straight from the saved frame,
 * saving a call and the mode decode on the MMIO and CP15 paths; the rest
 * go to the out-of-line *_slow versions in vcpu.c.
 */
uint32_t vcpu_get_reg_slow(struct vcpu *v, unsigned int n);
void vcpu_set_reg_slow(struct vcpu *v, unsigned int n, uint32_t val);
static inline uint32_t vcpu_get_reg(struct vcpu *v, unsigned int n)
{
    return n < 8u ? v->regs.r[n] : vcpu_get_reg_slow(v, n);
}
static inline void vcpu_set_reg(struct vcpu *v, unsigned int n, uint32_t val)
{
    if (n < 8u) {
        v->regs.r[n] = val;
    } else {
        vcpu_set_reg_slow(v, n, val);
    }
}
/* Did a trapped instruction pass its condition check (B3.13.4)? */
bool vcpu_condition_passed(struct vcpu *v, uint32_t hsr);
/*
 * Step past the trapped instruction.  Inline by design: in ARM state every
 * instruction is 4 bytes and there is no IT block to advance (A2.5.2), so
 * that is one add; Thumb (16/32-bit length from HSR.IL, ITSTATE) goes out
 * of line (insn.c).
 */
void vcpu_skip_instr_thumb(struct vcpu *v, uint32_t hsr);
static inline void vcpu_skip_instr(struct vcpu *v, uint32_t hsr)
{
    if ((v->regs.cpsr & PSR_T) == 0u) {
        v->regs.pc += 4u;
    } else {
        vcpu_skip_instr_thumb(v, hsr);
    }
}
void vcpu_inject_undef(struct vcpu *v);
void vcpu_inject_dabt(struct vcpu *v, uint32_t va, bool write);
void vcpu_inject_pabt(struct vcpu *v, uint32_t va);

/* A debugger's view of a vCPU loaded on no CPU (hyp/arch/vcpu_reg.c, vcpu_access.c):
 * Rn (0-15) in its current mode in the saved state, and a virtual address
 * translated through its stage 1 and Stage-2 on this CPU (false: a fault) */
uint32_t *vcpu_saved_reg(struct vcpu *v, unsigned int n);
/* A debug event of the guest's own handed back to it: its prefetch abort
 * (a breakpoint) or data abort (a watchpoint) with the debug-event status */
void vcpu_inject_debug(struct vcpu *v, bool data, uint32_t va);
bool vcpu_translate(struct vcpu *v, uint32_t va, bool write, uint64_t *pa);

/* state kinds, each in its own file */
void banked_save(struct vcpu_banked *b);
void banked_restore(const struct vcpu_banked *b);
void cp15_save(struct vcpu_cp15 *c);
void cp15_restore(const struct vcpu_cp15 *c);
void vtimer_save(struct vcpu_timer *t);
void vtimer_restore(const struct vcpu_timer *t);

#endif /* !__ASSEMBLER__ */
#endif
