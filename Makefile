# Partita - a micro-hypervisor for ARMv7-A with the Virtualization Extensions.
# `make` builds build/partita.bin; `make run` boots it in QEMU; `make test`
# runs every test.  Both install what is missing first (scripts/setup.sh).

BUILD   ?= build
CROSS   ?= arm-none-eabi-
CC      := $(CROSS)gcc
OBJCOPY := $(CROSS)objcopy
OBJDUMP := $(CROSS)objdump
QEMU    ?= qemu-system-arm
CPU     ?= cortex-a15
SMP     ?= 4
MEM     ?= 1G
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

ifeq ($(V),1)
Q :=
else
Q := @
endif

LIBFDT  := $(BUILD)/libfdt
# Cortex-A15 instructions, code tuned for ARMv7-A in general: Partita runs on
# A15 and A7 alike (and the A15 tuning's LDRD/STRD prologues take more
# instructions than PUSH/POP for no gain on either core)
ARCHFLAGS := -mcpu=cortex-a15 -mtune=generic-armv7-a -marm -mfloat-abi=soft -mgeneral-regs-only
# C is T32 (Thumb-2): a quarter smaller than A32 and, at -O2, about as
# many instructions on every path `make bench` counts (docs/benchmarks.md).
# The assembly stays A32 (`.arm` in every .S: Hyp mode takes exceptions in
# A32 with HSCTLR.TE = 0, ARM ARM B4.1.67), memcpy and memset among it
# (hyp/lib/string.S); the C library's other routines (strcmp, strlen, 64-bit
# division) were T32 already, from the toolchain's thumb/v7-a/nofp multilib.
# Each function is a section of its own, so that the link drops what
# nothing calls (--gc-sections).
CFLAGS  := $(subst -marm,-mthumb,$(ARCHFLAGS)) -std=gnu11 -fms-extensions -O2 -g \
           -ffreestanding -fno-common -ffunction-sections -fdata-sections \
           -fno-short-enums -fno-builtin-printf -Wall -Wextra -Werror \
           -Wframe-larger-than=1024 -Wno-unused-parameter \
           -fstack-usage -fcallgraph-info=su \
           -Iinclude -I. -I$(LIBFDT)/include -I$(BUILD)/include
ASFLAGS := $(ARCHFLAGS) -Iinclude -I. -I$(BUILD)/include -D__ASSEMBLER__
LDFLAGS := $(ARCHFLAGS) -nostartfiles -static -Wl,--no-warn-mismatch \
           -Wl,-z,max-page-size=4096 -Wl,--build-id=none -Wl,--no-warn-execstack \
           -Wl,--gc-sections

# `make IMAGE=guest.bin` wraps any image in a single-guest configuration;
# PASSTHROUGH="/pl031@9010000 ..." gives it those host DT nodes
IMAGE_FORMAT ?= raw
VCPUS   ?= 1
LOAD    ?= 0
INITRD  ?=
PASSTHROUGH ?=
BOOTARGS ?= console=ttyAMA0
ifdef IMAGE
GUEST_MEM ?= $(if $(filter linux,$(IMAGE_FORMAT)),256,64)
CONFIG  := $(BUILD)/config/image.dts
MKCONFIG := $(shell sh scripts/mkconfig.sh $(CONFIG) "$(IMAGE)" "$(IMAGE_FORMAT)" "$(VCPUS)" \
    "$(GUEST_MEM)" "$(INITRD)" "$(BOOTARGS)" "$(LOAD)" "$(PASSTHROUGH)" >&2 || echo failed)
ifeq ($(MKCONFIG),failed)
$(error cannot make a configuration for IMAGE=$(IMAGE) (see above))
endif
endif
CONFIG  ?= guests/demo/demo.dts
CONFIG_DTB := $(BUILD)/config/$(notdir $(CONFIG:.dts=.dtb))
CONFIG_OBJ := $(CONFIG_DTB:.dtb=.o)
CONFIG_STAMP := $(BUILD)/config/selected

# every folder of the hypervisor: the layers (README, "Source layout")
SRC_DIRS := boot $(sort $(dir $(wildcard hyp/*/ hyp/*/*/))) vgic timer mm
SRCS_C := $(filter-out hyp/arch/asm-offsets.c,$(foreach d,$(SRC_DIRS),$(wildcard $(d:%/=%)/*.c)))
SRCS_S := $(foreach d,$(SRC_DIRS),$(wildcard $(d:%/=%)/*.S))
SRCS_S := $(filter-out hyp/config/config_blob.S,$(SRCS_S))
# what stands in for a room an image leaves out (scripts/rooms.py): compiled
# once with the rest, linked only into the images that leave that room out
STUB_SRCS := $(filter-out hyp/gdb/gdb_none.c,$(filter %_none.c,$(SRCS_C)))
SRCS_C := $(filter-out $(STUB_SRCS),$(SRCS_C))
# the debugger (hyp/gdb/, with the next-instruction decoder it steps by):
# in unless `make GDB=n`, which links hyp/gdb/gdb_none.c in its place
GDB ?= y
ifeq ($(GDB),n)
SRCS_C := $(filter-out hyp/gdb/%.c hyp/arch/arm_next.c,$(SRCS_C)) hyp/gdb/gdb_none.c
else
SRCS_C := $(filter-out hyp/gdb/gdb_none.c,$(SRCS_C))
endif
GDB_STAMP := $(BUILD)/config/gdb
OBJS   := $(SRCS_C:%.c=$(BUILD)/obj/%.o) $(SRCS_S:%.S=$(BUILD)/obj/%.o)
ASM_OFFSETS := $(BUILD)/include/asm-offsets.h
# every object an image may link; scripts/rooms.py picks from them by the
# rooms the configuration uses (ROOMS=all|none|NAMES forces a selection)
LINK_OBJS := $(OBJS) $(STUB_SRCS:%.c=$(BUILD)/obj/%.o)
ROOMS ?= auto
# coverage maps every image's addresses through partita.elf's symbols: the
# images must link the same objects, so all of them
ifneq ($(filter coverage,$(MAKECMDGOALS)),)
ROOMS := all
endif
ROOMS_STAMP := $(BUILD)/config/rooms

.PHONY: all run run-disk debug test unit systest deps clean guests-build images linux-payload FORCE
all: $(BUILD)/partita.bin $(BUILD)/partita.uImage $(BUILD)/partita.itb

deps:
	$(Q)sh scripts/setup.sh

$(LIBFDT)/lib/libfdt.a:
	$(Q)sh scripts/fetch-libfdt.sh $(LIBFDT)

# A32 where T32 costs instructions: the console's formatting, which
# every line printed runs (T32 made the benchmarks' boot and Stage-2 fault
# paths 2-3% longer: docs/benchmarks.md)
A32_OBJS := $(BUILD)/obj/hyp/lib/format.o $(BUILD)/obj/hyp/lib/console.o
$(A32_OBJS): CFLAGS := $(subst -mthumb,-marm,$(CFLAGS))

$(BUILD)/obj/%.o: %.c $(LIBFDT)/lib/libfdt.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

# the version string, rewritten only when `git describe` changes
$(BUILD)/include/version.h: FORCE
	@mkdir -p $(dir $@)
	@echo '#define PARTITA_VERSION "$(VERSION)"' | cmp -s - $@ || \
	    echo '#define PARTITA_VERSION "$(VERSION)"' > $@
$(BUILD)/obj/boot/main.o $(BUILD)/obj/hyp/console/monitor.o: $(BUILD)/include/version.h

# offsets of C structures for assembly, generated from C (hyp/arch/asm-offsets.c)
$(ASM_OFFSETS): hyp/arch/asm-offsets.c $(foreach d,$(SRC_DIRS),$(wildcard $(d:%/=%)/*.h)) $(wildcard include/arch/*.h) $(LIBFDT)/lib/libfdt.a Makefile
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -S $< -o $@.s
	$(Q)(echo "/* generated from hyp/arch/asm-offsets.c: do not edit */"; \
	  sed -n 's/.*->\([A-Z0-9_]*\) #\{0,1\}\([0-9-]*\).*/#define \1 \2/p' $@.s) > $@

$(BUILD)/obj/%.o: %.S $(ASM_OFFSETS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  AS      $<")
	$(Q)$(CC) $(ASFLAGS) -MMD -MP -c $< -o $@

# The constants of layout.h are unsigned (u) for C; ld takes no suffix, so
# it is taken off the preprocessed script's numbers.
$(BUILD)/linker.lds: linker.ld include/arch/layout.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -E -P -x c -Iinclude -D__ASSEMBLER__ $< -o $@.i
	$(Q)sed -E 's/\b(0[xX][0-9a-fA-F]+|[0-9]+)[uU]\b/\1/g' $@.i > $@
	$(Q)rm -f $@.i

# ---- the configuration: one device tree, guest images inside (/incbin/) ----
# dtc's list of the files a configuration reads, kept as $@.deps with an
# empty rule for each (as gcc's -MP), so that a file moved or removed does
# not stop make
define config_dtb
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  DTC     $<")
	$(Q)dtc -q -I dts -O dtb -i . -d $@.d -o $@ $<
	@awk '{ print; for (i = 2; i <= NF; i++) print $$i ":" }' $@.d > $@.deps && rm -f $@.d
endef
$(CONFIG_DTB): $(CONFIG) guests-build
	$(config_dtb)

$(CONFIG_OBJ): hyp/config/config_blob.S $(CONFIG_DTB)
	$(Q)$(CC) $(ASFLAGS) -DCONFIG_DTB='"$(CONFIG_DTB)"' -c $< -o $@

# relink when another configuration is selected, the debugger is in or out,
# or the rooms or the sources are others (a file added or removed: each
# image's list of objects is made anew)
$(CONFIG_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo "$(CONFIG)" | cmp -s - $@ || echo "$(CONFIG)" > $@
$(GDB_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo "GDB=$(GDB)" | cmp -s - $@ || echo "GDB=$(GDB)" > $@
$(ROOMS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo "ROOMS=$(ROOMS) $(LINK_OBJS)" | cmp -s - $@ || echo "ROOMS=$(ROOMS) $(LINK_OBJS)" > $@

# the objects an image of a configuration links: its rooms, stand-ins for
# the rest; a configuration that asks for a room left out is refused here
define room_objs
	$(Q)/usr/bin/python3 scripts/rooms.py link $< $(GDB) "$(ROOMS)" $(BUILD)/obj \
	    $(LINK_OBJS) > $@.tmp && mv $@.tmp $@
endef
$(BUILD)/config/%.objs: $(BUILD)/config/%.dtb $(GDB_STAMP) $(ROOMS_STAMP) scripts/rooms.py Makefile
	$(room_objs)

$(BUILD)/partita.elf: $(LINK_OBJS) $(CONFIG_OBJ) $(CONFIG_DTB:.dtb=.objs) $(CONFIG_STAMP) $(BUILD)/linker.lds $(LIBFDT)/lib/libfdt.a Makefile
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -T $(BUILD)/linker.lds $$(cat $(CONFIG_DTB:.dtb=.objs)) $(CONFIG_OBJ) \
	    $(LIBFDT)/lib/libfdt.a -lc -lgcc -o $@ -Wl,-Map,$(BUILD)/partita.map

$(BUILD)/partita.bin: $(BUILD)/partita.elf
	@$(if $(Q),echo "  OBJCOPY $@")
	$(Q)$(OBJCOPY) -O binary $< $@

# U-Boot's bootm: a legacy uImage and a FIT image of any Partita image
%.uImage: %.bin scripts/mkbootimg.sh
	@$(if $(Q),echo "  MKIMAGE $@")
	$(Q)sh scripts/mkbootimg.sh uimage $< $@
%.itb: %.bin scripts/mkbootimg.sh boot/partita.its
	@$(if $(Q),echo "  MKIMAGE $@")
	$(Q)sh scripts/mkbootimg.sh fit $< $@

# every configuration as its own image, the demos' (guests/demo) and the
# system tests' (tests/system/configs), named after its file, and the U-Boot
# images the bootloader tests boot from a disk
CONFIG_DIRS := guests/demo tests/system/configs
CONFIG_DTS  := $(foreach d,$(CONFIG_DIRS),$(wildcard $(d)/*.dts))
CONFIGS := $(basename $(notdir $(CONFIG_DTS)))
ifneq ($(words $(CONFIGS)),$(words $(sort $(CONFIGS))))
$(error two configurations of one name in $(CONFIG_DIRS): build/images/NAME.bin would be both)
endif
IMAGES  := $(CONFIGS:%=$(BUILD)/images/%.bin) $(BUILD)/images/smp.uImage $(BUILD)/images/smp.itb
images: $(IMAGES) board-dtbs

$(BUILD)/config/%.dtb: guests/demo/%.dts guests-build
	$(config_dtb)
$(BUILD)/config/%.dtb: tests/system/configs/%.dts guests-build
	$(config_dtb)

$(BUILD)/config/%.o: hyp/config/config_blob.S $(BUILD)/config/%.dtb
	$(Q)$(CC) $(ASFLAGS) -DCONFIG_DTB='"$(BUILD)/config/$*.dtb"' -c $< -o $@

$(BUILD)/images/%.elf: $(LINK_OBJS) $(BUILD)/config/%.o $(BUILD)/config/%.objs $(BUILD)/linker.lds $(LIBFDT)/lib/libfdt.a Makefile
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -T $(BUILD)/linker.lds $$(cat $(BUILD)/config/$*.objs) $(BUILD)/config/$*.o \
	    $(LIBFDT)/lib/libfdt.a -lc -lgcc -o $@

$(BUILD)/images/%.bin: $(BUILD)/images/%.elf
	$(Q)$(OBJCOPY) -O binary $< $@
.SECONDARY: $(CONFIGS:%=$(BUILD)/config/%.dtb) $(CONFIGS:%=$(BUILD)/config/%.o) \
            $(CONFIGS:%=$(BUILD)/config/%.objs) \
            $(CONFIGS:%=$(BUILD)/images/%.elf)

QEMU_MACHINE ?= virt,virtualization=on
# QEMU's own escape moves to Ctrl-] so that Ctrl-A reaches Partita.  There
# is no host audio: QEMU 10 refuses a board with sound (vexpress) when it
# finds no default audio driver unless told `-audio none`, which QEMU 7.2
# refuses (it wants a sound card model there): it takes the first -audiodev
# as every sound device's backend instead.
QEMU_NO_AUDIO = $(shell $(QEMU) -M virt,dumpdtb=/dev/null -nographic -monitor none \
                  -audio none >/dev/null 2>&1 && echo -audio none || echo -audiodev none,id=noaudio)
QEMU_ARGS = -M $(QEMU_MACHINE) -cpu $(CPU) -smp $(SMP) -m $(MEM) -nographic $(QEMU_NO_AUDIO) \
            -echr 0x1d -kernel $(BUILD)/partita.bin $(QEMU_EXTRA)

run: deps
	@$(MAKE) --no-print-directory all
	@echo "Partita in QEMU: Ctrl-A three times switches consoles; Ctrl-] x quits QEMU"
	$(QEMU) $(QEMU_ARGS)

# The disk demo (guests/demo/diskdemo.dts): QEMU's virtio-blk-device on a
# 64 MiB image of the build's (sparse; kept between runs)
DISK_IMG ?= $(BUILD)/disk.img
$(DISK_IMG):
	@mkdir -p $(dir $@)
	truncate -s 64M $@
run-disk: deps $(DISK_IMG)
	@$(MAKE) --no-print-directory run CONFIG=guests/demo/diskdemo.dts \
	    QEMU_EXTRA="-drive file=$(DISK_IMG),if=none,format=raw,id=d0 -device virtio-blk-device,drive=d0 $(QEMU_EXTRA)"

debug: deps
	@$(MAKE) --no-print-directory all
	@echo "QEMU waits for gdb on :1234. In another terminal:"
	@echo "  gdb-multiarch $(BUILD)/partita.elf -ex 'target remote :1234'"
	$(QEMU) $(QEMU_ARGS) -S -gdb tcp::1234

# gdb for a guest: the console on a local TCP port, where first a
# terminal types `gdb NAME` at the monitor and then gdb attaches
GDB_PORT ?= 4444
debug-guest: deps
	@$(MAKE) --no-print-directory all
	@test -n "$(NAME)" || { echo "usage: make debug-guest NAME=guest [ELF=its.elf] [CONFIG=...]"; exit 2; }
	@echo "The console is on 127.0.0.1:$(GDB_PORT). In another terminal:"
	@echo "  nc 127.0.0.1 $(GDB_PORT)      # type: gdb $(NAME)   then quit nc (Ctrl-C)"
	@echo "  gdb-multiarch $(if $(ELF),$(ELF),<the guest's ELF>) -ex 'target remote 127.0.0.1:$(GDB_PORT)'"
	@echo "After gdb detaches, nc again for the monitor."
	$(QEMU) $(QEMU_ARGS) -serial tcp:127.0.0.1:$(GDB_PORT),server=on,wait=off
.PHONY: debug-guest

# ---- tests ----
HOSTCC     ?= gcc
UNIT_CFLAGS := -std=gnu11 -fms-extensions -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter \
               -fsanitize=address,undefined -fno-sanitize-recover=all \
               -Iinclude -I. -Itests/unit -DHOST_TEST
UNIT_LIBS   := -lcmocka -lfdt
# the tests, by layer: tests/unit/<layer>/test_<name>.c (the one table of
# what each links: tests/unit/units.mk)
UNIT_TEST_SRCS := $(wildcard tests/unit/*/test_*.c tests/unit/*/*/test_*.c)
UNIT_TESTS  := $(foreach t,$(UNIT_TEST_SRCS),$(BUILD)/unit/$(basename $(notdir $(t))))
FIXTURES    := $(patsubst tests/unit/fixtures/%.dts,$(BUILD)/unit/fixtures/%.dtb,$(wildcard tests/unit/fixtures/*.dts))

.SECONDARY: $(FIXTURES)
$(BUILD)/unit/fixtures/%.dtb: tests/unit/fixtures/%.dts
	@mkdir -p $(dir $@)
	$(Q)dtc -q -d $@.d -I dts -O dtb -o $@ $<
-include $(FIXTURES:=.d)

# each unit test links the hypervisor sources tests/unit/units.mk names;
# its header dependencies come from the compiler (-MM, a pass of their own:
# -MMD with one -MF keeps only the last source's, and the test's own, which
# #includes the hypervisor's .c files, would not be rebuilt when they change)
include tests/unit/units.mk
include tests/boards/boards.mk
unit_src = $(filter %/test_$(1).c,$(UNIT_TEST_SRCS))
.SECONDEXPANSION:
$(BUILD)/unit/test_%: $$(call unit_src,$$*) $(FIXTURES) $$(UNIT_SRCS_$$*) Makefile tests/unit/units.mk
	@mkdir -p $(dir $@) $(BUILD)/unit/deps
	$(Q)$(HOSTCC) $(UNIT_CFLAGS) -MM -MP -MT $@ $(call unit_src,$*) $(UNIT_SRCS_$*) \
	    > $(BUILD)/unit/deps/test_$*.d
	$(Q)$(HOSTCC) $(UNIT_CFLAGS) $(call unit_src,$*) $(UNIT_SRCS_$*) -o $@ $(UNIT_LIBS)
-include $(wildcard $(BUILD)/unit/deps/*.d)

unit: deps $(UNIT_TESTS)
	$(Q)sh tests/unit/run.sh $(BUILD)/unit $(UNIT_TESTS)

systest: deps all images
	$(Q)/usr/bin/python3 -m pytest -q tests/system

test: deps
	$(Q)$(MAKE) --no-print-directory all images
	$(Q)sh tests/run-all.sh

clean:
	rm -rf $(BUILD)

-include $(OBJS:.o=.d) $(CONFIG_DTB).deps $(wildcard $(BUILD)/config/*.dtb.deps)
include guests/guests.mk

# ---- benchmarks: instruction counts under -icount (tests/bench/README.md) ----
include tests/bench/bench.mk

# dependencies between the layers run one way (scripts/check-layers.py),
# the rooms' stand-ins' too
.PHONY: check-layers
check-layers: $(LINK_OBJS)
	$(Q)/usr/bin/python3 scripts/check-layers.py --src . $(BUILD)/obj $(LINK_OBJS)

# what each optional room costs in text and read-only data (scripts/room-sizes.py)
.PHONY: room-sizes
room-sizes: $(LINK_OBJS) $(BUILD)/images/demo.elf $(BUILD)/images/minimal.elf
	$(Q)/usr/bin/python3 scripts/room-sizes.py --images "$(BUILD)/images/demo.elf $(BUILD)/images/minimal.elf" \
	    $(BUILD)/obj $(LINK_OBJS)

# comments cite specifications and files of the repository, nothing outside
# it (scripts/check-citations.py)
.PHONY: check-citations
check-citations:
	$(Q)/usr/bin/python3 scripts/check-citations.py .

# the deepest stack of every entry against the stack it runs on, from the
# compiler's -fstack-usage and the call graph (scripts/stack/stack-check.py;
# indirect calls resolved by scripts/stack/indirect.txt), of an image with
# every room (the debugger as GDB says), whatever the configuration uses
STACK_ELF := $(BUILD)/stack/partita-all.elf
$(BUILD)/stack/all.objs: $(CONFIG_DTB) $(GDB_STAMP) $(ROOMS_STAMP) scripts/rooms.py Makefile
	@mkdir -p $(dir $@)
	$(Q)/usr/bin/python3 scripts/rooms.py link $< $(GDB) all $(BUILD)/obj $(LINK_OBJS) > $@.tmp \
	    && mv $@.tmp $@
$(STACK_ELF): $(LINK_OBJS) $(CONFIG_OBJ) $(BUILD)/stack/all.objs $(BUILD)/linker.lds $(LIBFDT)/lib/libfdt.a Makefile
	$(Q)$(CC) $(LDFLAGS) -T $(BUILD)/linker.lds $$(cat $(BUILD)/stack/all.objs) $(CONFIG_OBJ) \
	    $(LIBFDT)/lib/libfdt.a -lc -lgcc -o $@
.PHONY: stack-check
stack-check: $(STACK_ELF)
	$(Q)/usr/bin/python3 scripts/stack/stack-check.py $(STACK_ELF) $(BUILD)/obj \
	    scripts/stack/indirect.txt include/arch/layout.h

# the long exploratory fuzzing run (FUZZ_SECONDS per target): what it finds
# that adds coverage is kept in tests/unit/corpus/NAME, which `make test`'s
# fixed-count run replays first (tests/unit/fuzz.sh)
FUZZ_SECONDS ?= 300
.PHONY: fuzz
fuzz: deps
	$(Q)FUZZ_KEEP=1 sh tests/unit/fuzz.sh $(FUZZ_SECONDS)

.PHONY: bench bench-check
bench: deps bench-build room-sizes
	$(Q)/usr/bin/python3 scripts/bench.py --no-build
bench-check: deps bench-build
	$(Q)/usr/bin/python3 scripts/bench.py --no-build --check
# record the baseline of this compiler and QEMU (tests/bench/baselines/)
.PHONY: bench-baseline
bench-baseline: deps bench-build
	$(Q)/usr/bin/python3 scripts/bench.py --no-build --update-baseline

# MISRA C:2012: cppcheck's MISRA addon over everything that runs in Hyp mode
# (libfdt, Debian's, is not analysed), one line per rule; --check fails on a
# mandatory rule's finding or on more findings than tests/misra/baseline-cppcheck-X.Y.json
# (docs/misra.md)
MISRA_DIRS := $(sort $(foreach d,$(SRC_DIRS),$(firstword $(subst /, ,$(d)))))
.PHONY: misra misra-check misra-baseline
misra: $(ASM_OFFSETS) $(BUILD)/include/version.h
	$(Q)/usr/bin/python3 scripts/misra/misra.py $(BUILD) $(MISRA_DIRS)
misra-check: $(ASM_OFFSETS) $(BUILD)/include/version.h
	$(Q)/usr/bin/python3 scripts/misra/misra.py --check $(BUILD) $(MISRA_DIRS)
misra-baseline: $(ASM_OFFSETS) $(BUILD)/include/version.h
	$(Q)/usr/bin/python3 scripts/misra/misra.py --update-baseline $(BUILD) $(MISRA_DIRS)

# coverage of the hypervisor (scripts/coverage/coverage.py): the system
# tests (COVERAGE_TESTS, all by default) with every QEMU logging the
# translation blocks of the hypervisor's text, and the unit tests built with
# gcov; per-folder percentages, and $(BUILD)/coverage/report.txt lists every
# function never executed, with its reason.  A test that builds (`make run`)
# builds with every room too (ROOMS=all in its environment), so that every
# QEMU runs the text of the partita.elf kept in $(COV); the tests of images
# that leave rooms out (test_rooms.py) fail then, and still count
COV := $(BUILD)/coverage
COVERAGE_TESTS ?= tests/system
.PHONY: coverage
coverage: deps all images
	$(Q)rm -rf $(COV)/qemu && mkdir -p $(COV)/qemu
	$(Q)find $(COV)/host -name '*.gcda' -delete 2>/dev/null || true
	$(Q)$(MAKE) --no-print-directory unit BUILD=$(COV)/host HOSTCC="$(HOSTCC) --coverage" \
	    || echo "coverage: some unit tests failed (counted as they ran)"
	$(Q)cp $(BUILD)/partita.elf $(COV)/partita.elf
	$(Q)range=$$($(CROSS)nm $(COV)/partita.elf | \
	    awk '$$3 == "__text_start" { s = $$1 } $$3 == "__text_end" { e = $$1 } END { print "0x" s "..0x" e }'); \
	  ROOMS=all PARTITA_COVERAGE=$(abspath $(COV))/qemu PARTITA_COVERAGE_RANGE=$$range \
	    /usr/bin/python3 -m pytest -q -p no:cacheprovider $(COVERAGE_TESTS) \
	    || echo "coverage: some system tests failed (counted as they ran)"
	$(Q)/usr/bin/python3 scripts/coverage/coverage.py $(COV)/partita.elf $(COV)/qemu \
	    $(COV)/host/unit $(COV)/report.txt
