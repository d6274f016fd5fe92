# The channels' run-time part (hyp/guest/channel.c, included by the test itself
# with the barrier stubbed) over a configuration parsed by the real parser
UNIT_SRCS_channel := hyp/config/config.c hyp/config/config_channel.c hyp/platform/platform.c hyp/dt/dt_index.c mm/stage2.c \
                     hyp/trap/mmio.c

$(BUILD)/unit/test_channel: hyp/guest/channel.c hyp/guest/channel.h $(UNIT_SRCS_channel) hyp/guest/guest.h \
                            hyp/config/guest_config.h hyp/config/config_internal.h mm/stage2.h hyp/trap/mmio.h
