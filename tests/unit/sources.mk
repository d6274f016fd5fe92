# Hypervisor sources each host unit test links (UNIT_SRCS_<name> for test_<name>.c)
UNIT_SRCS_platform := hyp/platform/platform.c hyp/dt/dt_index.c
UNIT_SRCS_dt_index := hyp/dt/dt_index.c
$(BUILD)/unit/test_dt_index: hyp/dt/dt_index.c hyp/dt/dt_index.h
UNIT_SRCS_cpu_release := hyp/platform/platform.c hyp/dt/dt_index.c hyp/platform/cpu_release.c
$(BUILD)/unit/test_cpu_release: hyp/platform/platform.c hyp/platform/platform.h hyp/platform/cpu_release.c hyp/platform/cpu_release.h

# The board readiness table (docs/boards.md): Partita's probe on the host
READINESS := $(BUILD)/tools/readiness
$(READINESS): tests/boards/readiness.c hyp/platform/platform.c hyp/platform/platform.h hyp/dt/dt_index.c hyp/dt/dt_index.h
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation -Iinclude -I. \
	    tests/boards/readiness.c hyp/platform/platform.c hyp/dt/dt_index.c -o $@ -lfdt
.PHONY: boards-table
boards-table: $(READINESS) board-dtbs
	$(Q)$(READINESS) $(BUILD)/dtbs "$$(cat $(BUILD)/dtbs/PACKAGE)" > docs/boards.md
	@echo "  TABLE   docs/boards.md"
images: $(READINESS)
UNIT_SRCS_format := hyp/lib/format.c
$(BUILD)/unit/test_format: hyp/lib/format.c hyp/lib/format.h
