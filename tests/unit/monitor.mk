UNIT_SRCS_escape := hyp/console_escape.c
$(BUILD)/unit/test_escape: hyp/console_escape.c hyp/console_escape.h
