#ifndef HYP_MONITOR_H
#define HYP_MONITOR_H

#define MONITOR_PROMPT "partita> "
#define MONITOR_LINE_MAX 128u

/* Print the first prompt. */
void monitor_start(void);
/* Take the typed input so far (boot CPU, between guest entries). */
void monitor_poll(void);
/* Run one command line (also used by tests through the console). */
void monitor_exec(char *line);
/* The hypervisor's own memory, its build and the host (the `info` command) */
void hyp_print_info(void);

#endif
