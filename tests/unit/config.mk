# Sources of the configuration, guest device tree and vUART tests
UNIT_SRCS_config := hyp/config.c hyp/config_channel.c hyp/platform.c hyp/dt_index.c
UNIT_SRCS_guest_dt := hyp/guest_dt.c hyp/platform.c hyp/dt_index.c hyp/config.c hyp/config_channel.c
UNIT_SRCS_vuart := hyp/vuart.c

# rebuild when the code under test changes, not only the test
$(BUILD)/unit/test_config: $(UNIT_SRCS_config) hyp/guest_config.h hyp/config_internal.h hyp/platform.h
$(BUILD)/unit/test_guest_dt: $(UNIT_SRCS_guest_dt) hyp/guest_dt.h hyp/guest_config.h hyp/config_internal.h hyp/platform.h
$(BUILD)/unit/test_vuart: $(UNIT_SRCS_vuart) hyp/vuart.h hyp/mmio.h hyp/pl011.h
