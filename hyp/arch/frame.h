/* The register frame the HYP exception entry saves (hyp/arch/vectors.S). */
#ifndef HYP_FRAME_H
#define HYP_FRAME_H

#define FRAME_R0     0x0u
#define FRAME_SP     52u
#define FRAME_LR     56u
#define FRAME_PC     60u
#define FRAME_SPSR   64u
#define FRAME_KIND   68u
#define FRAME_SIZE   72u

/* exception kinds (HYP vector offsets / 4) */
#define EXC_RESET    0x0u
#define EXC_UNDEF    1u
#define EXC_HVC      2u
#define EXC_PABT     3u
#define EXC_DABT     4u
#define EXC_TRAP     5u
#define EXC_IRQ      6u
#define EXC_FIQ      7u
#define EXC_STACK_OVERFLOW 0x100u  /* or-ed in: the entry found SP in a guard page */

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <stddef.h>
struct hyp_frame {
    uint32_t r[13];
    uint32_t sp, lr, pc, spsr;
    uint32_t kind;
};
/* (size_t): cppcheck does not know offsetof's type (MISRA C:2012 rule 10.4). */
_Static_assert((size_t)offsetof(struct hyp_frame, sp) == FRAME_SP, "frame");
_Static_assert((size_t)offsetof(struct hyp_frame, lr) == FRAME_LR, "frame");
_Static_assert((size_t)offsetof(struct hyp_frame, pc) == FRAME_PC, "frame");
_Static_assert((size_t)offsetof(struct hyp_frame, spsr) == FRAME_SPSR, "frame");
_Static_assert((size_t)offsetof(struct hyp_frame, kind) == FRAME_KIND, "frame");
_Static_assert(sizeof(struct hyp_frame) == FRAME_SIZE, "frame");

void hyp_fatal(struct hyp_frame *f) __attribute__((noreturn));
#endif
#endif
