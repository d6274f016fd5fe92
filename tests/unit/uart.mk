# The console UART drivers against register models (test_host_uart.c)
UNIT_SRCS_host_uart := hyp/drivers/uart/host_uart.c hyp/drivers/uart/ns16550.c hyp/drivers/uart/samsung_uart.c hyp/drivers/uart/imx_uart.c hyp/drivers/uart/pl011.c
$(BUILD)/unit/test_host_uart: hyp/drivers/uart/host_uart.c hyp/drivers/uart/host_uart.h hyp/drivers/uart/ns16550.c hyp/drivers/uart/ns16550.h \
    hyp/drivers/uart/samsung_uart.c hyp/drivers/uart/samsung_uart.h hyp/drivers/uart/imx_uart.c hyp/drivers/uart/imx_uart.h hyp/drivers/uart/uart_port.h hyp/drivers/uart/pl011.c hyp/drivers/uart/pl011.h hyp/platform/platform.h
