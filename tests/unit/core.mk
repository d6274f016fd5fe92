# Hypervisor sources the core-module unit tests link (UNIT_SRCS_<name> for
# test_<name>.c), and the files each test binary is rebuilt from when they change.
UNIT_SRCS_stage2 := mm/stage2.c
UNIT_SRCS_mmio   := hyp/trap/mmio.c
UNIT_SRCS_insn   := hyp/arch/insn.c
UNIT_SRCS_psci   := hyp/trap/psci.c

$(BUILD)/unit/test_stage2: mm/stage2.c mm/stage2.h
$(BUILD)/unit/test_mmio: hyp/trap/mmio.c hyp/trap/mmio.h
$(BUILD)/unit/test_insn: hyp/arch/insn.c hyp/arch/insn.h
$(BUILD)/unit/test_psci: hyp/trap/psci.c hyp/trap/psci.h
