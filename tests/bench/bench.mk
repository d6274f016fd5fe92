# Benchmarks, included by the top Makefile after its own rules:
# it reuses $(BUILD), $(CC), $(OBJCOPY), $(ASFLAGS), $(LDFLAGS), $(OBJS) and
# the guest build variables of guests/guests.mk.
#
#   bench-build   the benchmark guest (ELF for the native run, raw binary for
#                 Partita) and one Partita image per tests/bench/configs/*.dts
#
# scripts/bench.py builds this itself (make -f Makefile -f tests/bench/bench.mk
# bench-build), runs QEMU and prints the table; the guard below makes a
# second inclusion harmless.
ifndef BENCH_MK_INCLUDED
BENCH_MK_INCLUDED := 1

BENCH_DIR      := $(BUILD)/bench
BENCH_GUEST    := $(BENCH_DIR)/guest/bench
BENCH_SRCS     := tests/bench/bench_asm.S tests/bench/bench.c
BENCH_CONFIGS  := $(patsubst tests/bench/configs/%.dts,%,$(wildcard tests/bench/configs/*.dts))
BENCH_IMAGES   := $(BENCH_CONFIGS:%=$(BENCH_DIR)/images/%.bin)

.PHONY: bench-build
bench-build: $(BENCH_GUEST).elf $(BENCH_GUEST).bin $(BENCH_IMAGES)

# bench_asm.S first: its .text.start (the boot stamp) leads the image, and
# -e makes it the ELF entry point for the native run too
$(BENCH_GUEST).elf: $(BENCH_SRCS) $(GUEST_LIB) guests/lib/guest.h guests/lib/guest.ld \
                    tests/bench/bench.mk
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GUEST   $@")
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) -Wl,-e,bench_entry \
	    tests/bench/bench_asm.S $(GUEST_LIB) tests/bench/bench.c -o $@ -lc -lgcc

$(BENCH_GUEST).bin: $(BENCH_GUEST).elf
	$(Q)$(OBJCOPY) -O binary $< $@

# the configurations: as the top Makefile's $(BUILD)/config and
# $(BUILD)/images rules, in $(BUILD)/bench
$(BENCH_DIR)/config/%.dtb: tests/bench/configs/%.dts $(BENCH_GUEST).bin $(LINUX_PAYLOAD) $(GUEST_BINS)
	@mkdir -p $(dir $@)
	$(Q)dtc -q -I dts -O dtb -i . -d $@.d -o $@ $<

$(BENCH_DIR)/config/%.o: hyp/config/config_blob.S $(BENCH_DIR)/config/%.dtb
	$(Q)$(CC) $(ASFLAGS) -DCONFIG_DTB='"$(BENCH_DIR)/config/$*.dtb"' -c $< -o $@

$(BENCH_DIR)/config/%.objs: $(BENCH_DIR)/config/%.dtb $(GDB_STAMP) $(ROOMS_STAMP) scripts/rooms.py Makefile
	$(room_objs)

$(BENCH_DIR)/images/%.elf: $(LINK_OBJS) $(BENCH_DIR)/config/%.o $(BENCH_DIR)/config/%.objs \
                           $(BUILD)/linker.lds $(LIBFDT)/lib/libfdt.a Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -T $(BUILD)/linker.lds $$(cat $(BENCH_DIR)/config/$*.objs) $(BENCH_DIR)/config/$*.o \
	    $(LIBFDT)/lib/libfdt.a -lc -lgcc -o $@ -Wl,-Map,$(BENCH_DIR)/images/$*.map

$(BENCH_DIR)/images/%.bin: $(BENCH_DIR)/images/%.elf
	$(Q)$(OBJCOPY) -O binary $< $@

.SECONDARY: $(BENCH_GUEST).elf $(BENCH_CONFIGS:%=$(BENCH_DIR)/config/%.dtb) \
            $(BENCH_CONFIGS:%=$(BENCH_DIR)/config/%.o) $(BENCH_CONFIGS:%=$(BENCH_DIR)/config/%.objs) \
            $(BENCH_CONFIGS:%=$(BENCH_DIR)/images/%.elf)
-include $(wildcard $(BENCH_DIR)/config/*.dtb.d)

endif
