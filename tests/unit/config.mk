# Sources of the configuration, guest device tree and vUART tests
UNIT_SRCS_config := hyp/config/config.c hyp/config/config_channel.c hyp/platform/platform.c hyp/dt/dt_index.c
UNIT_SRCS_guest_dt := hyp/guest/guest_dt.c hyp/platform/platform.c hyp/dt/dt_index.c hyp/config/config.c hyp/config/config_channel.c
UNIT_SRCS_vuart := hyp/guest/vuart.c

# rebuild when the code under test changes, not only the test
$(BUILD)/unit/test_config: $(UNIT_SRCS_config) hyp/config/guest_config.h hyp/config/config_internal.h hyp/platform/platform.h
$(BUILD)/unit/test_guest_dt: $(UNIT_SRCS_guest_dt) hyp/guest/guest_dt.h hyp/config/guest_config.h hyp/config/config_internal.h hyp/platform/platform.h
$(BUILD)/unit/test_vuart: $(UNIT_SRCS_vuart) hyp/guest/vuart.h hyp/trap/mmio.h hyp/drivers/uart/pl011.h
