# The bare-metal guests (guests/test, beside the demos' configurations in
# guests/demo): freestanding C programs for the virtual board,
# linked at its RAM (IPA 0x40000000) and loaded as raw images.
GUEST_CC      := $(CROSS)gcc
GUEST_CFLAGS  := -mcpu=cortex-a15 -marm -mfloat-abi=soft -std=gnu11 -O2 -g -ffreestanding \
                 -fno-common -Wall -Wextra -Werror -Wno-unused-parameter -Iguests/lib -Iinclude
GUEST_LDFLAGS := -nostartfiles -static -T guests/lib/guest.ld -Wl,--no-warn-execstack \
                 -Wl,--build-id=none -Wl,--no-warn-mismatch
GUEST_LIB     := guests/lib/start.S guests/lib/guestlib.c guests/lib/chan.c guests/lib/vnet.c \
                 guests/lib/blkfront.c \
                 guests/lib/manage_client.c
GUEST_NAMES   := $(patsubst guests/test/%.c,%,$(wildcard guests/test/*.c))
GUEST_BINS    := $(GUEST_NAMES:%=$(BUILD)/guests/%.bin)

# The Linux guest: Debian's armmp kernel and a busybox initramfs, fetched
# with apt-get download and built once (guests/linux/build.sh)
LINUX_DIR     := $(BUILD)/guests/linux
LINUX_PAYLOAD := $(LINUX_DIR)/zImage $(LINUX_DIR)/initrd.cpio.gz

guests-build: $(GUEST_BINS) $(LINUX_DIR)/.built

# bare-metal images the Linux payload carries for `partita load`
LINUX_IMAGES  := $(BUILD)/guests/hello.bin $(BUILD)/guests/echo.bin
LINUX_TOOLS   := $(addprefix guests/linux/tools/,partita.c partita-chan.c partita-blkd.c \
                                                 partita-tools.h partita-net partita-blkbench \
                                                 cntvct.c perfstat.c hwbp.c)
$(LINUX_DIR)/.built: guests/linux/build.sh guests/linux/init guests/linux/shutdown $(LINUX_TOOLS) \
                     include/partita/manage_abi.h include/partita/chan_ring.h include/partita/chan_doorbell.h \
                     include/partita/blk_queue.h $(LINUX_IMAGES)
	@echo "  LINUX   $(LINUX_DIR) (Debian kernel and busybox initramfs)"
	$(Q)PARTITA_IMAGES="$(LINUX_IMAGES)" bash guests/linux/build.sh $(LINUX_DIR)
	@touch $@
linux-payload: $(LINUX_DIR)/.built
# build.sh writes both: anything built from them waits for it
$(LINUX_PAYLOAD): $(LINUX_DIR)/.built
	@:
# the initramfs with Debian's perf appended (guests/linux/perf.sh), for the
# configurations that run it only
$(LINUX_DIR)/initrd-perf.cpio.gz: $(LINUX_DIR)/.built guests/linux/perf.sh
	@echo "  PERF    $@"
	$(Q)bash guests/linux/perf.sh $(LINUX_DIR)
$(BUILD)/config/linuxpmu.dtb: $(LINUX_DIR)/initrd-perf.cpio.gz

# The board device trees of the same Debian kernel package, unmodified
# (vexpress-a15 tests, the board readiness table)
BOARD_DTBS    := $(BUILD)/dtbs
$(BOARD_DTBS)/.extracted: $(LINUX_DIR)/.built scripts/board-dtbs.sh
	$(Q)sh scripts/board-dtbs.sh $(LINUX_DIR) $(BOARD_DTBS)
	@touch $@
board-dtbs: $(BOARD_DTBS)/.extracted
.PHONY: board-dtbs

$(BUILD)/guests/%.elf: guests/test/%.c $(GUEST_LIB) guests/lib/guest.h guests/lib/chan.h include/partita/hvc.h \
                       include/partita/chan_ring.h include/partita/chan_doorbell.h guests/lib/vnet.h guests/lib/virtio_mmio_regs.h \
                       guests/lib/blkfront.h include/partita/blk_queue.h \
                       guests/lib/manage_client.h guests/lib/guest.ld include/partita/manage_abi.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  GUEST   $@")
	$(Q)$(GUEST_CC) $(GUEST_CFLAGS) $(GUEST_LDFLAGS) $(GUEST_LIB) $< -o $@ -lc -lgcc

$(BUILD)/guests/%.bin: $(BUILD)/guests/%.elf
	$(Q)$(OBJCOPY) -O binary $< $@
# kept: gdb takes a guest's symbols from its ELF (make debug-guest)
.SECONDARY: $(GUEST_NAMES:%=$(BUILD)/guests/%.elf)
