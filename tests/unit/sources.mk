# Hypervisor sources each host unit test links (UNIT_SRCS_<name> for test_<name>.c)
UNIT_SRCS_platform := hyp/platform.c
UNIT_SRCS_cpu_release := hyp/platform.c hyp/cpu_release.c
$(BUILD)/unit/test_cpu_release: hyp/platform.c hyp/platform.h hyp/cpu_release.c hyp/cpu_release.h
