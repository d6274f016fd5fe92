/*
 * Cyclic schedules left out of the image (docs/building.md, "Rooms"):
 * linked instead of monitor_schedule.c.
 */
#include "monitor_cmds.h"
#include "hyp/lib/console.h"

void cmd_schedule(int argc, char **argv)
{
    pr_info("schedule: cyclic schedules are not built into this image\n");
}
