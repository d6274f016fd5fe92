# Hypervisor sources each host unit test links (UNIT_SRCS_<name> for test_<name>.c)
UNIT_SRCS_platform := hyp/platform.c hyp/dt_index.c
UNIT_SRCS_dt_index := hyp/dt_index.c
$(BUILD)/unit/test_dt_index: hyp/dt_index.c hyp/dt_index.h
