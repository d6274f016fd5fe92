# Hypervisor sources each host unit test links (UNIT_SRCS_<name> for test_<name>.c)
UNIT_SRCS_platform := hyp/platform.c
