# The console UART drivers against register models (test_host_uart.c)
UNIT_SRCS_host_uart := hyp/host_uart.c hyp/ns16550.c hyp/samsung_uart.c hyp/imx_uart.c hyp/pl011.c
$(BUILD)/unit/test_host_uart: hyp/host_uart.c hyp/host_uart.h hyp/ns16550.c hyp/ns16550.h \
    hyp/samsung_uart.c hyp/samsung_uart.h hyp/imx_uart.c hyp/imx_uart.h hyp/uart_port.h hyp/pl011.c hyp/pl011.h hyp/platform.h
