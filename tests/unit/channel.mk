# The channels' run-time part (hyp/channel.c, included by the test itself
# with the barrier stubbed) over a configuration parsed by the real parser
UNIT_SRCS_channel := hyp/config.c hyp/config_channel.c hyp/platform.c hyp/dt_index.c mm/stage2.c \
                     hyp/mmio.c

$(BUILD)/unit/test_channel: hyp/channel.c hyp/channel.h $(UNIT_SRCS_channel) hyp/guest.h \
                            hyp/guest_config.h hyp/config_internal.h mm/stage2.h hyp/mmio.h
