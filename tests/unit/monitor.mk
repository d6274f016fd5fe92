UNIT_SRCS_escape := hyp/console/console_escape.c
$(BUILD)/unit/test_escape: hyp/console/console_escape.c hyp/console/console_escape.h
