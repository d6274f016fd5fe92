#ifndef HYP_MONITOR_H
#define HYP_MONITOR_H

#define MONITOR_PROMPT "partita> "
#define MONITOR_LINE_MAX 128

/* The monitor console loop on the boot CPU; never returns. */
void monitor_run(void) __attribute__((noreturn));
/* Run one command line (also used by tests through the console). */
void monitor_exec(char *line);

#endif
