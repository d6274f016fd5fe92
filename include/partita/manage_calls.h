/*
 * Every management call (include/partita/manage_abi.h) for a table, and the
 * IDs beside their two ranges, which no call has: the hostile control
 * partitions of the tests draw from them (tests/unit/manage/manage_program.h,
 * guests/test/rogueboss.c, guests/test/manager.c's rogue role), so that a call added to the ABI is raced from
 * the day it is.  Nothing of the hypervisor's includes this.
 */
#ifndef PARTITA_MANAGE_CALLS_H
#define PARTITA_MANAGE_CALLS_H

#include "manage_abi.h"

#define PARTITA_MG_ALL_CALLS                                                          \
    PARTITA_MG_VERSION, PARTITA_MG_INFO, PARTITA_MG_START, PARTITA_MG_STOP,           \
    PARTITA_MG_RESTART, PARTITA_MG_STATS, PARTITA_MG_CONSOLE_READ,                    \
    PARTITA_MG_CONSOLE_WRITE, PARTITA_MG_LOAD, PARTITA_MG_BUDGET, PARTITA_MG_BUDGET_SET, \
    PARTITA_MG_HEALTH, PARTITA_MG_SCHEDULE, PARTITA_MG_SCHEDULE_SET
#define PARTITA_MG_BESIDE_CALLS                                                       \
    (PARTITA_MG_FIRST - 1u), (PARTITA_MG_LAST + 1u), (PARTITA_MG_HEALTH - 1u),        \
    (PARTITA_MG_SCHEDULE_SET + 1u)

#endif
