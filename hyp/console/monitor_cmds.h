/* Monitor commands kept out of monitor.c (its command table names them). */
#ifndef HYP_CONSOLE_MONITOR_CMDS_H
#define HYP_CONSOLE_MONITOR_CMDS_H

/* info: the platform, the colours, each guest's image (monitor_info.c) */
void cmd_info(int argc, char **argv);
/* budget [NAME [EVENTS PERIOD-US]]: memory-bandwidth budgets (monitor_budget.c) */
void cmd_budget(int argc, char **argv);
/* schedule [NAME]: cyclic schedules (monitor_schedule.c) */
void cmd_schedule(int argc, char **argv);
/* health [NAME]: the health monitor's log (monitor_health.c) */
void cmd_health(int argc, char **argv);

#endif
