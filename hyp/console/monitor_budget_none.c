/*
 * Memory-bandwidth budgets left out of the image (docs/building.md,
 * "Rooms"): linked instead of monitor_budget.c.
 */
#include "monitor_cmds.h"
#include "hyp/lib/console.h"

void cmd_budget(int argc, char **argv)
{
    pr_info("budget: memory-bandwidth budgets are not built into this image\n");
}
