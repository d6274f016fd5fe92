# The board readiness tool (tests/boards/readiness.c): the platform probe
# run over every board DTB of the kernel package, for docs/boards.md (and
# docs/boards-linux-X.Y.md for another release's kernel series).
READINESS := $(BUILD)/tools/readiness
$(READINESS): tests/boards/readiness.c hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c hyp/platform/gic_quirks.h $(SOC_SMP_SRCS) hyp/platform/soc_smp.h hyp/platform/platform.h hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_index.h hyp/dt/dt_reg.c hyp/dt/dt_irq.c hyp/dt/translate.h
	@mkdir -p $(dir $@)
	$(Q)$(HOSTCC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-format-truncation -Iinclude -I. \
	    tests/boards/readiness.c hyp/platform/platform.c hyp/platform/platform_uart.c hyp/platform/gic_quirks.c $(SOC_SMP_SRCS) hyp/dt/dt_index.c hyp/dt/dt_lookup.c hyp/dt/dt_reg.c hyp/dt/dt_irq.c -o $@ -lfdt
.PHONY: boards-table
# each kernel series its own table (scripts/board-table-path.sh)
boards-table: $(READINESS) board-dtbs
	$(Q)pkg="$$(cat $(BUILD)/dtbs/PACKAGE)"; table=$$(sh scripts/board-table-path.sh "$$pkg") && \
	    $(READINESS) $(BUILD)/dtbs "$$pkg" > $$table && echo "  TABLE   $$table"
images: $(READINESS)
UNIT_SRCS_format := hyp/lib/format.c
$(BUILD)/unit/test_format: hyp/lib/format.c hyp/lib/format.h
