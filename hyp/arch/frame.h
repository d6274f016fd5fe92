/* The register frame the HYP exception entry saves (hyp/arch/vectors.S). */
#ifndef HYP_FRAME_H
#define HYP_FRAME_H

#define FRAME_R0     0
#define FRAME_SP     52
#define FRAME_LR     56
#define FRAME_PC     60
#define FRAME_SPSR   64
#define FRAME_KIND   68
#define FRAME_SIZE   72

/* exception kinds (HYP vector offsets / 4) */
#define EXC_RESET    0
#define EXC_UNDEF    1
#define EXC_HVC      2
#define EXC_PABT     3
#define EXC_DABT     4
#define EXC_TRAP     5
#define EXC_IRQ      6
#define EXC_FIQ      7
#define EXC_STACK_OVERFLOW 0x100   /* or-ed in: the entry found SP in a guard page */

#ifndef __ASSEMBLER__
#include <stdint.h>
#include <stddef.h>
struct hyp_frame {
    uint32_t r[13];
    uint32_t sp, lr, pc, spsr;
    uint32_t kind;
};
_Static_assert(offsetof(struct hyp_frame, sp) == FRAME_SP, "frame");
_Static_assert(offsetof(struct hyp_frame, lr) == FRAME_LR, "frame");
_Static_assert(offsetof(struct hyp_frame, pc) == FRAME_PC, "frame");
_Static_assert(offsetof(struct hyp_frame, spsr) == FRAME_SPSR, "frame");
_Static_assert(offsetof(struct hyp_frame, kind) == FRAME_KIND, "frame");
_Static_assert(sizeof(struct hyp_frame) == FRAME_SIZE, "frame");

void hyp_fatal(struct hyp_frame *f) __attribute__((noreturn));
#endif
#endif
