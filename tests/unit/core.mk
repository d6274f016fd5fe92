# Hypervisor sources the core-module unit tests link (UNIT_SRCS_<name> for
# test_<name>.c), and the files each test binary is rebuilt from when they change.
UNIT_SRCS_stage2 := mm/stage2.c
UNIT_SRCS_mmio   := hyp/mmio.c
UNIT_SRCS_insn   := hyp/insn.c
UNIT_SRCS_psci   := hyp/psci.c

$(BUILD)/unit/test_stage2: mm/stage2.c mm/stage2.h
$(BUILD)/unit/test_mmio: hyp/mmio.c hyp/mmio.h
$(BUILD)/unit/test_insn: hyp/insn.c hyp/insn.h
$(BUILD)/unit/test_psci: hyp/psci.c hyp/psci.h
