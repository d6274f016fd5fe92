# The board readiness tool (tests/boards/readiness.c): the platform probe
# run over every board DTB of the kernel package, for docs/boards.md.
READINESS := $(BUILD)/tools/readiness
$(READINESS): tests/boards/readiness.c hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c hyp/platform/gic_quirks.h $(SOC_SMP_SRCS) hyp/platform/soc_smp.h hyp/platform/platform.h hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_index.h hyp/dt/dt_reg.c hyp/dt/dt_irq.c hyp/dt/translate.h
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation -Iinclude -I. \
	    tests/boards/readiness.c hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c -o $@ -lfdt
.PHONY: boards-table
boards-table: $(READINESS) board-dtbs
	$(Q)$(READINESS) $(BUILD)/dtbs "$$(cat $(BUILD)/dtbs/PACKAGE)" > docs/boards.md
	@echo "  TABLE   docs/boards.md"
images: $(READINESS)
UNIT_SRCS_format := hyp/lib/format.c
$(BUILD)/unit/test_format: hyp/lib/format.c hyp/lib/format.h
