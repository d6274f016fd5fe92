/*
 * The console escape: Ctrl-A three times in a row moves input focus
 * (monitor -> each guest -> monitor), the convention Xen users know.
 * Ctrl-As that turn out not to be an escape are passed on, in order.
 * Pure state machine, unit tested on the host.
 */
#ifndef HYP_CONSOLE_ESCAPE_H
#define HYP_CONSOLE_ESCAPE_H

#include "hyp/lib/console.h"     /* ESC_CHAR, ESC_COUNT */

struct console_escape {
    unsigned int held;      /* Ctrl-As seen in a row, not yet passed on */
};

/*
 * Feed one input character.  Returns -1 when the escape is complete
 * (switch focus; nothing to pass on), else the number of characters
 * written to out (0..ESC_COUNT) to deliver to whoever has focus.
 */
int console_escape_feed(struct console_escape *e, char c, char out[ESC_COUNT]);

#endif
