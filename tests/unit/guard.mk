# Hypervisor guards against hostile guests: console rate limit, set/way operands
UNIT_SRCS_ratelimit := hyp/lib/ratelimit.c
UNIT_SRCS_setway := mm/setway.c
$(BUILD)/unit/test_ratelimit: hyp/lib/ratelimit.c hyp/lib/ratelimit.h
$(BUILD)/unit/test_setway: mm/setway.c mm/setway.h
